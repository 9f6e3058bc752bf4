#!/bin/sh
# Fails when host/reins/js/ is not what `npm run build` makes from pagescripts/src.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reins-bundles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
node "$here/build.mjs" "$tmp"
for name in collect.js functions.json; do
  if ! diff -u "$here/../host/reins/js/$name" "$tmp/$name" >/dev/null; then
    echo "host/reins/js/$name is stale: run \`npm run build\` in pagescripts/ and commit it" >&2
    diff -u "$here/../host/reins/js/$name" "$tmp/$name" | head -40 >&2
    exit 1
  fi
done
echo "host/reins/js/ is up to date"
