#!/bin/sh
# Syntax check of every page-script source, test and build script (esbuild parses them again
# when it bundles; this also covers the tests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for file in "$here"/src/*.js "$here"/test/*.mjs "$here"/build.mjs; do
  node --check "$file"
done
echo "page scripts parse"
