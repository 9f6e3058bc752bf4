#!/bin/sh
# Fails when host/reins/js/collect.js is not what `npm run build` makes from pagescripts/src.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp "${TMPDIR:-/tmp}/reins-collect.XXXXXX")
trap 'rm -f "$tmp"' EXIT
node "$here/build.mjs" "$tmp"
if ! diff -u "$here/../host/reins/js/collect.js" "$tmp" >/dev/null; then
  echo "host/reins/js/collect.js is stale: run \`npm run build\` in pagescripts/ and commit it" >&2
  diff -u "$here/../host/reins/js/collect.js" "$tmp" | head -40 >&2
  exit 1
fi
echo "collect.js is up to date"
