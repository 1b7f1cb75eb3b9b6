#!/usr/bin/env bash
# run.sh is `make run`: the manager (bin/manager) against the current kubeconfig, or, when there is no reachable
# cluster, against a local fleet it starts itself (hack/local-cluster.sh), fresh each time:
#   - the hub: a control plane with Argo CD and Argo Rollouts, siteops' CRDs, and the manager on the host;
#   - two site clusters, dev and prod (overlays/ names them), registered in Argo CD; each runs Argo Rollouts,
#     and its siteops manager pods run bin/manager on the host (hack/sitemanagers), so base/'s webhooks answer;
#   - a Git server holding a copy of this checkout's base/ and overlays/ (overlays/local, the end-to-end
#     tests' hub overlay, left out), cloned into $SITEOPS_CLUSTER_DIR/source for you to edit and push;
#   - the ApplicationSet of base/argocd pointed at that server, and the SiteSync default/sites, whose receiver
#     each push triggers (hack/receiver-hook.sh).
# It prints a short tour once the fleet is ready for the first push. Ctrl-C stops everything it started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/versions.sh"
log() { printf '[run %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
receiver=127.0.0.1:9292
manager_args=(--enable-webhooks=false --leader-elect-retry-period=2s --metrics-bind-address=127.0.0.1:8443
  --health-probe-bind-address=127.0.0.1:8081 --receiver-bind-address=$receiver)

reachable() { [ -n "${KUBECONFIG:-}" ] || [ -f "$HOME/.kube/config" ] || return 1; kubectl get --raw=/readyz --request-timeout=5s >/dev/null 2>&1; }

started_fleet= mgr_pid=
# cleanup stops the manager, then the fleet. It runs once, to the end: a failing step (set -e) or a second
# Ctrl-C must not cut it short and leave the fleet running (the manager exits 1 on its second signal).
cleanup() {
  trap '' INT TERM
  trap - EXIT
  set +e
  if [ -n "$mgr_pid" ]; then kill "$mgr_pid" 2>/dev/null; wait "$mgr_pid" 2>/dev/null; fi
  if [ -n "$started_fleet" ]; then log "stopping the local fleet"; "$here/local-cluster.sh" down; fi
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

# seed_source makes the source repository the SiteSync renders: a bare repository the git daemon serves, with
# hack/receiver-hook.sh as its post-receive hook, and its clone $SITEOPS_CLUSTER_DIR/source holding a copy of
# this checkout's base/ and overlays/ as they are on disk, committed and pushed.
seed_source() {
  local bare=$SITEOPS_GIT_ROOT/siteops.git work=$SITEOPS_CLUSTER_DIR/source o
  git init -q --bare -b main "$bare"
  cp "$here/receiver-hook.sh" "$bare/hooks/post-receive"
  git -C "$bare" config siteops.receiver "http://$receiver/hook/default/sites"
  git -C "$bare" config siteops.token "$token"
  git -C "$bare" config siteops.url "$SITEOPS_GIT_DAEMON/siteops.git"
  git clone -q "$SITEOPS_GIT_DAEMON/siteops.git" "$work" 2>/dev/null
  git -C "$work" config user.email >/dev/null || git -C "$work" config user.email "you@siteops.local"
  git -C "$work" config user.name >/dev/null || git -C "$work" config user.name "make run"
  cp -r "$root/base" "$work/"
  mkdir -p "$work/overlays"
  for o in "$root"/overlays/*/; do [ "$(basename "$o")" = local ] || cp -r "$o" "$work/overlays/"; done
  git -C "$work" add .
  git -C "$work" commit -qm "base/ and overlays/ of $(basename "$root") as make run found them"
  git -C "$work" push -q origin main >/dev/null 2>&1
}

# deliver applies base/argocd's ApplicationSet with its repository URL pointed at the Git server, the receiver's
# Secret and the SiteSync default/sites.
deliver() {
  local repo=$SITEOPS_GIT_DAEMON/siteops.git
  sed "s#https://git.example.com/platform/siteops.git#$repo#g" "$root/base/argocd/applicationset.yaml" |
    kubectl apply -f - >/dev/null
  kubectl -n default create secret generic receiver --from-literal=token="$token" >/dev/null
  kubectl -n default apply -f - >/dev/null <<EOT
apiVersion: gitops.siteops.dev/v1alpha1
kind: SiteSync
metadata: {name: sites}
spec:
  source: {url: "file://$SITEOPS_GIT_ROOT/siteops.git", ref: main}
  target: {branch: rendered}
  interval: 5m
  receiver: {secretRef: {name: receiver}}
EOT
}

# tour prints the exports and a short tour of the fleet.
tour() {
  cat <<EOT

The fleet is ready (${1}s). In another shell:

  export KUBECONFIG=$KUBECONFIG SITEOPS_CLUSTER_DIR=$SITEOPS_CLUSTER_DIR
  export PATH=$root/bin:$root/hack:$(dirname "$(command -v kubectl-argo-rollouts)"):\$PATH
  cd $SITEOPS_CLUSTER_DIR/source  # a clone of the fleet's Git server: base/, overlays/dev, overlays/prod
  siteops status  # dev and prod become Delivered
  sed -i 's/size: 2/size: 3/' overlays/dev/site-values.yaml
  sed -i 's/hello from dev/hi from dev/' overlays/dev/greeter-values.yaml  # the sample Helm chart's value
  git commit -qam "dev: three guestbook pods, a new greeting" && git push
  siteops status  # dev: a new rendered commit, then Delivered again
  kubectl --kubeconfig $SITEOPS_CLUSTER_SITES_DIR/dev/admin.kubeconfig -n siteops-samples get guestbooks
  kubectl --kubeconfig $SITEOPS_CLUSTER_SITES_DIR/dev/admin.kubeconfig -n siteops-samples get configmap greeter

Add a site: cp -r overlays/dev overlays/paris; local-cluster.sh add-site paris; git add, commit, push.
More in docs/fleet.md. Ctrl-C here stops the fleet.

EOT
}

start=$SECONDS
if reachable; then
  log "using the cluster of the current kubeconfig ($(kubectl config current-context 2>/dev/null || echo in-cluster))"
else
  missing=()
  for c in etcd kube kwok rollouts argocd; do
    [ -f "$("$here/build-bins.sh" --path "$c")/.complete" ] || missing+=("$c")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "no reachable cluster: starting a local fleet; first building ${missing[*]} from Go modules" \
      "(all five cold: ~20 min on 2 cores; progress below)"
  else
    log "no reachable cluster: starting a local fleet (its binaries are built)"
  fi
  export SITEOPS_CLUSTER_DIR=${SITEOPS_CLUSTER_DIR:-$SITEOPS_CACHE/run-cluster}
  export SITEOPS_CLUSTER_COMPONENTS="kwok rollouts argocd" SITEOPS_CLUSTER_SITES=dev,prod
  export SITEOPS_CLUSTER_SITE_COMPONENTS="rollouts managers" SITEOPS_SITE_MANAGER=$root/bin/manager
  export SITEOPS_SITE_MANAGERS=$root/bin/site-managers
  (cd "$root" && CGO_ENABLED=0 go build -o bin/site-managers ./hack/sitemanagers)
  started_fleet=1
  "$here/local-cluster.sh" down --wipe >/dev/null 2>&1 || true
  "$here/local-cluster.sh" up
  touch "$SITEOPS_CLUSTER_DIR/make-run" # `hack/local-cluster.sh down` finds it by this file
  eval "$("$here/local-cluster.sh" env)"
  token=$(openssl rand -hex 16)
  seed_source
fi
ns=siteops-system
kubectl create namespace "$ns" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
log "installing CRDs"
kubectl apply --server-side --force-conflicts -f "$root/base/crd/bases" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=60s >/dev/null
[ -z "$started_fleet" ] || deliver

# Git clones of SiteSync sources live beside the other caches (the fleet's in its state folder, made afresh each
# time), not in a shared /tmp/siteops.
work=$SITEOPS_CACHE/run-work
[ -z "$started_fleet" ] || work=$SITEOPS_CLUSTER_DIR/manager-work
"$root/bin/manager" "${manager_args[@]}" --leader-election-namespace="$ns" --work-dir="$work" --zap-devel=true &
mgr_pid=$!
if [ -n "$started_fleet" ]; then
  rendered=
  for _ in $(seq 1 240); do
    rendered=$(kubectl -n default get sitesync sites -o jsonpath='{.status.renderedRevision}' 2>/dev/null || true)
    [ -z "$rendered" ] || break
    kill -0 "$mgr_pid" 2>/dev/null || { log "the manager exited"; exit 1; }
    sleep 0.5
  done
  [ -n "$rendered" ] || log "no rendered commit after $((SECONDS - start))s: see siteops status"
  tour $((SECONDS - start))
else
  log "manager running (pid $mgr_pid). In another shell:"
  echo
  echo "  export KUBECONFIG=${KUBECONFIG:-$HOME/.kube/config}"
  echo "  kubectl get cronjobs.batch.tutorial.kubebuilder.io,guestbooks,sitesyncs -A"
  echo
fi
wait "$mgr_pid"
