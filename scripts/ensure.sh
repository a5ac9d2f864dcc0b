#!/usr/bin/env bash
# Installs the npm dependencies (bun included) and builds the native addon when they are missing.
# Used by `npm run demo` and `npm test`, so a fresh clone needs nothing typed first.
# `--deps`: the npm dependencies only; `--rebuild`: build the addon even when one is there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules/@napi-rs/cli ] || [ ! -e node_modules/.bin/tsc ]; then
  echo "== installing npm dependencies"
  npm install --no-audit --no-fund
fi
# bun's postinstall links its binary; run it by hand if the install skipped scripts.
if ! node_modules/.bin/bun --version >/dev/null 2>&1; then
  node node_modules/bun/install.js
fi

[ "${1:-}" = "--deps" ] && exit 0
if [ "${1:-}" = "--rebuild" ] || ! ls ./*.node >/dev/null 2>&1; then
  echo "== building the native addon (debug)"
  CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')" \
    npx --no-install napi build --platform --js binding.js --dts binding.d.ts
fi
