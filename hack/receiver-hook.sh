#!/usr/bin/env bash
# receiver-hook.sh is the post-receive hook of the Git server `make run` starts (hack/run.sh installs it in the
# repository): for each branch pushed, it sends siteops' receiver the push event a Git host would send, signed
# with the receiver's token (X-Hub-Signature-256, as GitHub signs), so the SiteSync syncs at once rather than at
# its interval. The receiver's URL and token are in the repository's config: siteops.receiver, siteops.token.
set -uo pipefail
url=$(git config siteops.receiver) token=$(git config siteops.token)
while read -r old new ref; do
  case $ref in refs/heads/*) ;; *) continue ;; esac
  body=$(printf '{"ref":"%s","before":"%s","after":"%s","repository":{"clone_url":"%s"}}' \
    "$ref" "$old" "$new" "$(git config siteops.url)")
  sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$token" | sed 's/^.* //')
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
    -H 'X-GitHub-Event: push' -H "X-GitHub-Delivery: $(openssl rand -hex 8)" -H "X-Hub-Signature-256: sha256=$sig" \
    --data-binary "$body" "$url")
  echo "siteops: push of ${ref#refs/heads/} announced to the receiver (HTTP $code)"
done
exit 0
