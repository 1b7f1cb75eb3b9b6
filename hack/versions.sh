# versions.sh is sourced by every hack/ script: the pinned versions of the binaries the tests and the local
# cluster are built from, and the cache folders they live in (outside the work tree, keyed by version).
# Only the Go module proxy is needed to build any of them.

# KUBE_VERSION follows k8s.io/api in go.mod (v0.37.x <-> v1.37.x).
export KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
export ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
export KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
export ROLLOUTS_VERSION=${ROLLOUTS_VERSION:-v1.10.1}
# ARGOCD_VERSION: v3.2.12 does not compile (controller/cache/info.go: undefined settings.ValidateExternalURL).
export ARGOCD_VERSION=${ARGOCD_VERSION:-v3.2.11}
export KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION:-v5.8.1}

# SITEOPS_CACHE holds the built binaries (bin/<name>-<version>/), their throw-away build modules and a private
# Go build cache, so a second clone on the same machine reuses them and `git clean` never loses them.
export SITEOPS_CACHE=${SITEOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siteops}

# ENVTEST_DIR is where setup-envtest keeps its binaries (its per-user data dir); the envtest assets built here
# go to $ENVTEST_DIR/k8s/<version>-linux-<arch>/ so `setup-envtest use -i <version>` finds them.
export ENVTEST_DIR=${ENVTEST_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest}

goarch() { go env GOARCH; }
