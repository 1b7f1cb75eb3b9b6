#!/usr/bin/env bash
# run.sh is `make run`: the manager (bin/manager) against the current kubeconfig, or, when there is no reachable
# cluster, against a local control plane it starts itself (hack/local-cluster.sh: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kwok) with the CRDs and samples installed and a SiteSync rendering
# this checkout into a local bare repository. Ctrl-C stops the manager and everything this script started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/versions.sh"
log() { printf '[run %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
manager_args=(--enable-webhooks=false --leader-elect-retry-period=2s --metrics-bind-address=127.0.0.1:8443
  --health-probe-bind-address=127.0.0.1:8081 --receiver-bind-address=127.0.0.1:9292)

reachable() { [ -n "${KUBECONFIG:-}" ] || [ -f "$HOME/.kube/config" ] || return 1; kubectl get --raw=/readyz --request-timeout=5s >/dev/null 2>&1; }

started_cluster= mgr_pid=
# cleanup stops the manager, then the local control plane. It runs once, to the end: neither a failing step
# (set -e; the manager exits 1 on its second signal) nor a second Ctrl-C may cut it short before `down`.
cleanup() {
  trap '' INT TERM
  trap - EXIT
  set +e
  if [ -n "$mgr_pid" ]; then kill "$mgr_pid" 2>/dev/null; wait "$mgr_pid" 2>/dev/null; fi
  if [ -n "$started_cluster" ]; then log "stopping the local control plane"; "$here/local-cluster.sh" down; fi
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

if reachable; then
  log "using the cluster of the current kubeconfig ($(kubectl config current-context 2>/dev/null || echo in-cluster))"
  ns=siteops-system
else
  log "no reachable cluster: starting a local control plane (first run builds it from Go modules, ~15 min on 2 cores)"
  export SITEOPS_CLUSTER_DIR=${SITEOPS_CLUSTER_DIR:-$SITEOPS_CACHE/run-cluster}
  export SITEOPS_CLUSTER_COMPONENTS=kwok
  started_cluster=1
  "$here/local-cluster.sh" up
  touch "$SITEOPS_CLUSTER_DIR/make-run" # `hack/local-cluster.sh down` finds it by this file
  eval "$("$here/local-cluster.sh" env)"
  ns=siteops-system
fi

kubectl create namespace "$ns" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
log "installing CRDs"
kubectl apply --server-side --force-conflicts -f "$root/base/crd/bases" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
if [ -n "$started_cluster" ]; then
  log "applying samples"
  kubectl apply -k "$root/base/samples" >/dev/null
  # A SiteSync over this checkout, rendering into a local bare repository, so a rendered commit shows up at once.
  rendered=$SITEOPS_CLUSTER_DIR/git/rendered.git
  [ -d "$rendered" ] || git init -q --bare "$rendered"
  ref=$(git -C "$root" rev-parse --abbrev-ref HEAD)
  kubectl -n default apply -f - >/dev/null <<EOT
apiVersion: gitops.siteops.dev/v1alpha1
kind: SiteSync
metadata: {name: this-checkout}
spec:
  source: {url: "file://$root", ref: "$ref"}
  target: {url: "file://$rendered", branch: rendered}
  interval: 1m
EOT
fi

# Git clones of SiteSync sources live beside the other caches, not in a shared /tmp/siteops.
"$root/bin/manager" "${manager_args[@]}" --leader-election-namespace="$ns" --work-dir="$SITEOPS_CACHE/run-work" \
  --zap-devel=true &
mgr_pid=$!
log "manager running (pid $mgr_pid). In another shell:"
echo
echo "  export KUBECONFIG=${KUBECONFIG:-$HOME/.kube/config}"
echo "  kubectl get cronjobs.batch.tutorial.kubebuilder.io,guestbooks,sitesyncs -A"
[ -n "$started_cluster" ] && echo "  git --git-dir=$rendered log --format='%h %s%n%b' rendered"
echo
wait "$mgr_pid"
