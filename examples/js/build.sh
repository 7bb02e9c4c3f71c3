#!/usr/bin/env bash
# Builds examples/target/js/jszmq.js: installs jszmq and esbuild from the npm registry into
# examples/target/js (nothing is committed) and bundles jszmq for the browser.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../target/js}"
mkdir -p "$out"
cp "$here/package.json" "$here/entry.js" "$here/empty.js" "$here/process-shim.js" "$out/"
cd "$out"
if [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/jszmq ]; then
  npm install --no-audit --no-fund --loglevel=error >/dev/null
fi
node_modules/.bin/esbuild entry.js --bundle --format=iife --global-name=jszmq --platform=browser \
  --define:global=globalThis --inject:./process-shim.js --alias:url=./empty.js --alias:http=./empty.js --alias:https=./empty.js \
  --log-level=warning --outfile=jszmq.js
echo "$out/jszmq.js"
