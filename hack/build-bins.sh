#!/usr/bin/env bash
# build-bins.sh builds the Kubernetes-side binaries siteops tests run against, from Go modules only, and caches
# them by version under $SITEOPS_CACHE/bin/<name>-<version>/. A component already built is skipped.
#
#   hack/build-bins.sh [etcd] [kube] [kwok] [rollouts] [argocd] [kustomize] [helm] [flux]
#                      (default: all but flux, which only make bench-flux asks for)
#   hack/build-bins.sh --path NAME                                          print the folder of NAME
#
# Cold build times on an idle 2-core machine (test/bench/RESULTS.md, "Build and test times"): etcd ~2 min, kube
# (apiserver, controller-manager, scheduler) ~12 min, kwok ~3 min, rollouts ~6.5 min, argocd ~6 min,
# kustomize ~1 min, helm ~2 min; flux (source-controller, kustomize-controller) 24 min of CPU (50 min at nice 10 on a 2-core
# machine busy with other builds, load 12-20).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
# KWOK_PROCESS_BACKED annotates the pods kwok leaves NotReady for test/podproc (hack/kwok/pod-process-backed.yaml).
KWOK_PROCESS_BACKED=e2e.siteops.dev/process-backed

# kwok_stages_key is a digest of what build_kwok adds to kwok's own stages.
kwok_stages_key() {
  { cat "$here"/kwok/*.yaml; echo "$KWOK_PROCESS_BACKED"; } | sha256sum | cut -c1-8
}

# rollouts_key is a digest of what build_rollouts adds to Argo Rollouts' source.
rollouts_key() { cat "$here"/rollouts/*.go | sha256sum | cut -c1-8; }

dir_of() {
  case $1 in
    etcd) echo "$SITEOPS_CACHE/bin/etcd-$ETCD_VERSION" ;;
    kube) echo "$SITEOPS_CACHE/bin/kube-$KUBE_VERSION" ;;
    # kwok-stages.yaml holds hack/kwok/*.yaml and the pod-ready exclusion build_kwok adds: a change is a new build.
    kwok) echo "$SITEOPS_CACHE/bin/kwok-$KWOK_VERSION-$(kwok_stages_key)" ;;
    # The rollouts-controller links hack/rollouts/*.go: a change to them is a new build.
    rollouts) echo "$SITEOPS_CACHE/bin/rollouts-$ROLLOUTS_VERSION-$(rollouts_key)" ;;
    # The Argo CD build links hack/argocd/main.go: a change to it is a new build.
    argocd) echo "$SITEOPS_CACHE/bin/argocd-$ARGOCD_VERSION-$(sha256sum "$here/argocd/main.go" | cut -c1-8)" ;;
    kustomize) echo "$SITEOPS_CACHE/bin/kustomize-$KUSTOMIZE_VERSION" ;;
    helm) echo "$SITEOPS_CACHE/bin/helm-$HELM_VERSION" ;;
    flux) echo "$SITEOPS_CACHE/bin/flux-$FLUX_VERSION" ;;
    *) echo "unknown component $1" >&2; return 1 ;;
  esac
}

if [ "${1:-}" = --path ]; then dir_of "$2"; exit 0; fi

# Private build cache: another process cleaning the shared one mid-build broke builds here once.
export GOCACHE=$SITEOPS_CACHE/gocache
export GOFLAGS=-buildvcs=false CGO_ENABLED=0
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
work=$SITEOPS_CACHE/build
mkdir -p "$work" "$SITEOPS_CACHE/bin"

moddir() { go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }
log() { printf '[build-bins %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
# cpu sets CPU to the CPU seconds (user + system) this script's finished children have used (as in .ci/run).
cpu() {
  times >"$work/.times.$$"
  CPU=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
    "$work/.times.$$")
  rm -f "$work/.times.$$"
}

# tools_module writes a throw-away module in $work/$1 that imports the given main packages.
tools_module() {
  local name=$1; shift
  rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n'
  } >"$work/$name/tools.go"
}

build_etcd() {
  tools_module etcd go.etcd.io/etcd/server/v3
  cd "$work/etcd"
  printf 'module siteops.local/build/etcd\n\ngo 1.26.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >go.mod
  go mod tidy
  go build -trimpath -ldflags "-s -w" -o "$1/etcd" go.etcd.io/etcd/server/v3
}

build_kube() {
  # k8s.io/kubernetes is not meant to be required: its go.mod replaces every staging module with ./staging.
  # A wrapper module requires it and points each staging module at its published v0.Y.Z instead.
  local staging="v0.${KUBE_VERSION#v1.}" minor kmod
  minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
  kmod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  tools_module kube k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler
  cd "$work/kube"
  {
    printf 'module siteops.local/build/kube\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$KUBE_VERSION"
    sed -n '/^replace (/,/^)/p' "$kmod" | grep -oE 'k8s.io/[a-z0-9-]+ => ./staging' |
      awk -v v="$staging" '{print "\t" $1 " => " $1 " " v}'
    printf ')\n'
  } >go.mod
  go mod tidy
  local ld="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld="$ld -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  go build -trimpath -ldflags "$ld" -o "$1/" k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
}

build_kwok() {
  GOBIN=$1 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  # kwok simulates kubelets through Stage objects: its own "fast" stages make pods Ready and Job pods Succeed.
  # Pods annotated $KWOK_PROCESS_BACKED are left to hack/kwok/pod-process-backed.yaml instead of kwok's
  # pod-ready: a test harness runs their process on the host and sets their Ready condition from its /readyz.
  local d f
  d=$(moddir "sigs.k8s.io/kwok@$KWOK_VERSION")
  for f in "$d"/kustomize/stage/node/fast/*.yaml "$d"/kustomize/stage/node/heartbeat-with-lease/*.yaml \
    "$d"/kustomize/stage/pod/fast/*.yaml "$here"/kwok/*.yaml; do
    case $f in *kustomization.yaml) continue ;; esac
    echo "---"
    case $f in
      */pod/fast/pod-ready.yaml)
        awk -v a="$KWOK_PROCESS_BACKED" '{ print }
          /^    matchExpressions:$/ { printf "    - key: %c.metadata.annotations[\"%s\"]%c\n      operator: %cDoesNotExist%c\n", 39, a, 39, 39, 39 }' "$f" ;;
      *) cat "$f" ;;
    esac
  done >"$1/kwok-stages.yaml"
  grep -q "annotations\[\"$KWOK_PROCESS_BACKED\"\]'$" "$1/kwok-stages.yaml"
}

build_rollouts() {
  local d src=$work/rollouts
  d=$(moddir "github.com/argoproj/argo-rollouts@$ROLLOUTS_VERSION")
  rm -rf "$src" && cp -r "$d" "$src" && chmod -R u+w "$src"
  # server/static is empty in the module zip but go:embed needs a file; metrics/health listen on 0.0.0.0.
  echo '<html><body>dashboard not built</body></html>' >"$src/server/static/index.html"
  sed -i 's/"0.0.0.0:%d"/"127.0.0.1:%d"/' "$src/controller/controller.go"
  grep -q '"127.0.0.1:%d"' "$src/controller/controller.go"
  # SITEOPS_CLUSTER_DNS: the cluster DNS of a local site, for the web metrics of its analyses.
  cp "$here/rollouts/clusterdns.go" "$src/cmd/rollouts-controller/siteops_clusterdns.go"
  cd "$src"
  go build -trimpath -o "$1/" -ldflags "-s -w \
    -X github.com/argoproj/argo-rollouts/utils/version.version=${ROLLOUTS_VERSION#v} \
    -X github.com/argoproj/argo-rollouts/utils/version.gitTreeState=clean" \
    ./cmd/rollouts-controller ./cmd/kubectl-argo-rollouts
  mkdir -p "$1/crds" && cp manifests/crds/*-crd.yaml "$1/crds/"
}

build_argocd() {
  local d src=$work/argocd
  d=$(moddir "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION")
  rm -rf "$src" && cp -r "$d" "$src" && chmod -R u+w "$src"
  sed -i 's/"0.0.0.0:%d"/"127.0.0.1:%d"/' "$src/controller/appcontroller.go"   # metrics listen address
  grep -q '"127.0.0.1:%d"' "$src/controller/appcontroller.go"
  # Argo CD's ./cmd links every component (API server, CLI, Dex, notifications…); the tests run two.
  # hack/argocd/main.go is a multi-call main that links just those (a quarter fewer packages to compile); the
  # role comes from argv[0]. It builds inside Argo CD's module (go.mod's ignore keeps it out of siteops' own);
  # go vet checks it here first. vet takes -trimpath like the build, so both share one compile of every
  # package; vet adds its analysis of the dependencies (~45 s once, then cached). Then golangci-lint with
  # siteops' .golangci.yml, when the Makefile passes it in SITEOPS_GOLANGCI_LINT and make lint has installed
  # it (~50 s and 3.5 GB of memory once the packages are compiled: it type-checks all of Argo CD's).
  mkdir -p "$src/cmd/siteops-argocd"
  cp "$here/argocd/main.go" "$src/cmd/siteops-argocd/main.go"
  cd "$src"
  go vet -trimpath ./cmd/siteops-argocd
  if [ -x "${SITEOPS_GOLANGCI_LINT:-}" ]; then
    "$SITEOPS_GOLANGCI_LINT" run -c "$here/../.golangci.yml" ./cmd/siteops-argocd
  else
    log "argocd: golangci-lint not installed (make lint installs it): hack/argocd/main.go vetted, not linted"
  fi
  go build -trimpath \
    -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v}" \
    -o "$1/argocd" ./cmd/siteops-argocd
  ln -sf argocd "$1/argocd-application-controller"
  ln -sf argocd "$1/argocd-repo-server"
  ln -sf argocd "$1/argocd-git-ask-pass"
  ln -sf argocd "$1/argocd-applicationset-controller"
  mkdir -p "$1/crds" && cp manifests/crds/*-crd.yaml "$1/crds/"
}

build_kustomize() {
  GOBIN=$1 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
}

# build_helm builds the Helm CLI of the SDK's release: the anchor of the chart parity tests (kustomize --enable-helm).
build_helm() {
  GOBIN=$1 go install -trimpath -ldflags "-s -w" "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
}

# build_flux builds Flux's source-controller and kustomize-controller, the anchor of make bench-flux, each in a
# copy of its module. Their api/ is a module of its own, left out of the zip: the published api module of the
# same version replaces go.mod's ./api, and the build adds its go.sum lines (-mod=mod; go mod tidy would fetch
# their tests' dependencies, one of which the module proxy no longer serves). Their CRDs go to crds/.
build_flux() {
  local c d src
  for c in source-controller kustomize-controller; do
    d=$(moddir "github.com/fluxcd/$c@$FLUX_VERSION")
    src=$work/flux-$c
    rm -rf "$src" && cp -r "$d" "$src" && chmod -R u+w "$src"
    cd "$src"
    go mod edit -dropreplace "github.com/fluxcd/$c/api" -require "github.com/fluxcd/$c/api@$FLUX_VERSION"
    # The Go module proxy answers 403 "not available" for github.com/fluxcd/pkg/artifact v0.18.3, which
    # source-controller v1.9.6 requires: v0.18.0, the same minor, stands in.
    if grep -q 'github.com/fluxcd/pkg/artifact v0.18.3$' go.mod; then
      go mod edit -replace github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@v0.18.0
    fi
    log "flux: building $c"
    go build -mod=mod -trimpath -ldflags "-s -w" -o "$1/$c" .
    mkdir -p "$1/crds" && cp config/crd/bases/*.yaml "$1/crds/"
  done
}

# wait_for waits up to $2 seconds (by the clock, not by count) for process $1 to end; it fails while the
# process is still running.
wait_for() {
  local until=$(($(date +%s) + $2))
  while kill -0 "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt "$until" ] || return 1
    sleep 1
  done
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(etcd kube kwok rollouts argocd kustomize helm)
for s in "${steps[@]}"; do
  out=$(dir_of "$s")
  if [ -f "$out/.complete" ]; then log "$s: cached in $out"; continue; fi
  # One build of a component at a time: .ci/run builds them in the background while make test asks for them.
  # A second build-bins waits for the first and then finds the component built.
  exec {lock}>"$SITEOPS_CACHE/bin/.$s.lock"
  if ! flock -n "$lock"; then
    log "$s: another build-bins is building it; waiting for it"
    flock "$lock"
  fi
  if [ -f "$out/.complete" ]; then log "$s: built meanwhile in $out"; exec {lock}>&-; continue; fi
  log "$s: building into $out (cold build, see the times in the header of this script)"
  cpu; start=$(date +%s) start_cpu=$CPU
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  # A cold build prints nothing for minutes: say every minute that it is still going.
  (build_"$s" "$out.tmp") &
  pid=$!
  while ! wait_for "$pid" 60; do log "$s: still building ($(($(date +%s) - start))s so far)"; done
  wait "$pid"
  touch "$out.tmp/.complete"
  rm -rf "$out" && mv "$out.tmp" "$out"
  exec {lock}>&-
  cpu
  log "$s: done in $(($(date +%s) - start))s ($((CPU - start_cpu)) CPU s)"
done
