#!/usr/bin/env bash
# boilerplate.sh keeps the licence header of hack/boilerplate.go.txt at the top of every Go file of the
# repository: tracked and untracked-but-not-ignored .go files, testdata/ folders excluded.
#
#   hack/boilerplate.sh --check [FILE...]   list the files without the header; exit 1 when there are any
#   hack/boilerplate.sh --fix [FILE...]     put the header on the files without it
#
# A file passes when it starts with the header (any four-digit year on the Copyright line) followed by a blank
# line; a `//go:build` line and a blank line may come before it, which is how controller-gen writes
# zz_generated.deepcopy.go. --fix writes the header as it is in hack/boilerplate.go.txt, below a leading
# `//go:build` line if there is one. It leaves alone, and lists, files that carry some other copyright notice:
# those need a person to decide.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
header=hack/boilerplate.go.txt
log() { printf '[boilerplate] %s\n' "$*" >&2; }

mode=${1:-}
case $mode in
  --check | --fix) shift ;;
  *) echo "usage: $0 --check|--fix [FILE...]" >&2; exit 2 ;;
esac

files=()
if [ $# -gt 0 ]; then
  files=("$@")
else
  while IFS= read -r -d '' f; do
    [ -f "$f" ] && files+=("$f") # a tracked file deleted in the work tree is listed too
  done < <(git ls-files -z --cached --others --exclude-standard -- '*.go' ':(exclude,glob)**/testdata/**')
fi

# missing prints, one a line, the files of "${files[@]}" whose first lines are not the header. awk prints the
# files that pass (one pass over all of them; an empty file never passes); comm keeps the others.
missing() {
  [ ${#files[@]} -gt 0 ] || return 0
  comm -23 <(printf '%s\n' "${files[@]}" | sort -u) <(
    printf '%s\0' "${files[@]}" | xargs -0 awk -v hdr="$header" '
      function norm(s) { if (s ~ /^Copyright [0-9][0-9][0-9][0-9] /) sub(/[0-9][0-9][0-9][0-9]/, "YYYY", s); return s }
      BEGIN { while ((getline l < hdr) > 0) h[++n] = norm(l) }
      FNR == 1 { off = 0; good = 1; if ($0 ~ /^\/\/go:build /) off = 2 }
      FNR == 2 && off == 2 && $0 != "" { good = 0 }
      FNR > off && FNR <= off + n && norm($0) != h[FNR - off] { good = 0 }
      FNR == off + n + 1 && good && $0 == "" { print FILENAME }
    ' | sort -u)
}

mapfile -t bad < <(missing)
log "${#files[@]} Go files checked, ${#bad[@]} without the licence header of $header"

if [ "$mode" = --check ]; then
  [ ${#bad[@]} -eq 0 ] && exit 0
  printf '%s\n' "${bad[@]}"
  log "run 'hack/boilerplate.sh --fix' to add it"
  exit 1
fi

fixed=0 skipped=()
for f in "${bad[@]}"; do
  if head -n 20 "$f" | grep -qi 'copyright'; then skipped+=("$f"); continue; fi
  tmp=$(mktemp)
  {
    if head -n 1 "$f" | grep -q '^//go:build '; then
      head -n 1 "$f"; echo
      body=$(tail -n +2 "$f" | sed '/./,$!d') # the rest, without the blank lines after the constraint
    else
      body=$(cat "$f")
    fi
    cat "$header"; echo
    printf '%s\n' "$body"
  } >"$tmp"
  cat "$tmp" >"$f" && rm -f "$tmp" # cat, not mv: keep the file's mode
  fixed=$((fixed + 1))
done
log "added the header to $fixed files"
if [ ${#skipped[@]} -gt 0 ]; then
  log "${#skipped[@]} files carry another copyright notice; fix them by hand:"
  printf '%s\n' "${skipped[@]}"
  exit 1
fi
