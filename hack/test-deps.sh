#!/usr/bin/env bash
# test-deps.sh installs the Debian packages the tests run, when a command of theirs is missing (idempotent:
# nothing happens on a machine that has them all):
#   git   (git, git-http-backend)  the Git servers and users of the Git tests
#   gnupg (gpg, gpgconf)           signing source commits and `git verify-commit` of rendered ones
set -euo pipefail

missing=()
command -v git >/dev/null || missing+=(git)
{ command -v gpg >/dev/null && command -v gpgconf >/dev/null; } || missing+=(gnupg)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "[test-deps] installing Debian's ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null ||
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }
