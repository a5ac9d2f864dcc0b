#!/usr/bin/env bash
# `npm run bench`: the release addon, the reference tools, then bench/run.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure.sh
command -v rg >/dev/null || { echo "== installing ripgrep (reference tool)"; apt-get install -y ripgrep >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y ripgrep >/dev/null); }
[ -x node_modules/.bin/ast-grep ] || npm install --no-save --no-audit --no-fund @ast-grep/cli >/dev/null
echo "== release build"
npx --no-install napi build --platform --release --js binding.js --dts binding.d.ts
node bench/run.mjs "$@"
