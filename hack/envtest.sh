#!/usr/bin/env bash
# envtest.sh prints the folder holding etcd and kube-apiserver for controller-runtime's envtest (the value of
# KUBEBUILDER_ASSETS). It asks setup-envtest first: its local store, then (only with
# SITEOPS_ENVTEST_DOWNLOAD=try, for machines with internet) its download. Otherwise, or where the download fails,
# it builds both binaries from Go modules (hack/build-bins.sh) and puts them where
# setup-envtest keeps its own, $ENVTEST_DIR/k8s/<version>-linux-<arch>/, so every later run and every other
# clone on this machine finds them with `setup-envtest use -i`.
#
#   hack/envtest.sh SETUP_ENVTEST_BINARY [VERSION]   (VERSION defaults to KUBE_VERSION without the v)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
setup_envtest=$1
version=${2:-${KUBE_VERSION#v}}
log() { printf '[envtest %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# One install at a time (.ci/run builds in the background while make test asks): a second envtest.sh waits here,
# then finds the binaries in the store.
mkdir -p "$ENVTEST_DIR"
exec {lock}>"$ENVTEST_DIR/.siteops-envtest.lock"
if ! flock -n "$lock"; then
  log "another envtest.sh is installing the binaries; waiting for it"
  flock "$lock"
fi
if path=$("$setup_envtest" use -i "$version" --bin-dir "$ENVTEST_DIR" -p path 2>/dev/null) && [ -n "$path" ]; then
  echo "$path"; exit 0
fi
if [ "${SITEOPS_ENVTEST_DOWNLOAD:-never}" = try ] &&
  path=$(timeout 60 "$setup_envtest" use "$version" --bin-dir "$ENVTEST_DIR" -p path 2>/dev/null) && [ -n "$path" ]; then
  echo "$path"; exit 0
fi

log "$version is not in setup-envtest's store; building etcd and kube-apiserver from Go modules"
"$here/build-bins.sh" etcd kube >&2
dest=$ENVTEST_DIR/k8s/$version-linux-$(goarch)
mkdir -p "$dest"
# put copies SRC to DEST unless DEST has the same bytes, keeping SRC's modification time: Go's test cache keys
# the envtest packages' results on these files' times, so a copy of the same binary must not look new.
put() { cmp -s "$1" "$2" 2>/dev/null || cp -p "$1" "$2"; }
put "$("$here/build-bins.sh" --path etcd)/etcd" "$dest/etcd"
put "$("$here/build-bins.sh" --path kube)/kube-apiserver" "$dest/kube-apiserver"
# setup-envtest's store holds kubectl too; envtest does not need it, so the machine's kubectl stands in.
if command -v kubectl >/dev/null; then put "$(command -v kubectl)" "$dest/kubectl"; fi
chmod 0555 "$dest"/*
log "installed into $dest"
"$setup_envtest" use -i "$version" --bin-dir "$ENVTEST_DIR" -p path
