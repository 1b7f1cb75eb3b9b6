#!/usr/bin/env bash
# same-times.sh runs a command that rewrites files (controller-gen writes every file it generates, changed or
# not) and gives each file under the named folders that came out byte-for-byte the same its old modification
# time back. Go's test cache keys a test's result on the times of the files it read (the envtest packages read
# base/crd/bases), so `make verify`, which regenerates, would otherwise make them all run again.
#
#   hack/same-times.sh DIR... -- COMMAND [ARG...]
set -euo pipefail
dirs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do dirs+=("$1"); shift; done
[ $# -gt 1 ] || { echo "usage: $0 DIR... -- COMMAND [ARG...]" >&2; exit 2; }
shift
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
# --parents keeps each file's path under $snap, -p its time.
find "${dirs[@]}" -type f -print0 | xargs -0 -r cp --parents -p -t "$snap"
"$@"
(cd "$snap" && find . -type f -print0) | while IFS= read -r -d '' f; do
  if [ -f "$f" ] && cmp -s "$snap/$f" "$f"; then touch -r "$snap/$f" "$f"; fi
done
