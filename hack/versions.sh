# versions.sh is sourced by every hack/ script: the pinned versions of the binaries the tests and the local
# cluster are built from, and the cache folders they live in (outside the work tree, keyed by version).
# Only the Go module proxy is needed to build any of them.

# KUBE_VERSION (kube-apiserver & co., envtest's etcd + kube-apiserver) is read from the k8s.io/api requirement in
# go.mod, k8s.io/api v0.37.2 -> v1.37.2, so bumping the client libraries bumps the test cluster with them.
# Set KUBE_VERSION in the environment to test against another release.
if [ -z "${KUBE_VERSION:-}" ]; then
  _siteops_api=$(awk '$1 == "k8s.io/api" { print $2; exit }' "$(dirname "${BASH_SOURCE[0]}")/../go.mod")
  case $_siteops_api in
    v0.*) KUBE_VERSION=v1.${_siteops_api#v0.} ;;
    *) echo "versions.sh: no k8s.io/api v0.x requirement in go.mod (found '$_siteops_api'); set KUBE_VERSION" >&2; return 1 ;;
  esac
  unset _siteops_api
fi
export KUBE_VERSION
export ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
export KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
export ROLLOUTS_VERSION=${ROLLOUTS_VERSION:-v1.10.1}
# ARGOCD_VERSION: v3.2.12 does not compile (controller/cache/info.go: undefined settings.ValidateExternalURL).
export ARGOCD_VERSION=${ARGOCD_VERSION:-v3.2.11}
export KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION:-v5.8.1}
# HELM_VERSION: the Helm CLI the chart parity tests compare with, read from go.mod's helm.sh/helm/v4 requirement so
# that the CLI and the SDK siteops renders charts with are the same release.
if [ -z "${HELM_VERSION:-}" ]; then
  HELM_VERSION=$(awk '$1 == "helm.sh/helm/v4" { print $2; exit }' "$(dirname "${BASH_SOURCE[0]}")/../go.mod")
fi
export HELM_VERSION
# FLUX_VERSION: source-controller and kustomize-controller, the anchor of make bench-flux only (v1.10 needs go 1.27).
export FLUX_VERSION=${FLUX_VERSION:-v1.9.6}

# SITEOPS_CACHE holds the built binaries (bin/<name>-<version>/), their throw-away build modules and a private
# Go build cache, so a second clone on the same machine reuses them and `git clean` never loses them.
export SITEOPS_CACHE=${SITEOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siteops}

# ENVTEST_DIR is where setup-envtest keeps its binaries (its per-user data dir); the envtest assets built here
# go to $ENVTEST_DIR/k8s/<version>-linux-<arch>/ so `setup-envtest use -i <version>` finds them.
export ENVTEST_DIR=${ENVTEST_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest}

goarch() { go env GOARCH; }
