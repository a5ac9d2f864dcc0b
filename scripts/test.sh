#!/usr/bin/env bash
# `npm test`: every test — Rust core (cargo test, including the typings freshness check), the
# public API under Bun and under Node, and the compile-time typing contract (tsc).
set -euo pipefail
cd "$(dirname "$0")/.."
# One target dir for cargo test and the napi build, so the addon build reuses the test build.
export CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')"

bash scripts/ensure.sh
# The packaging suite builds a stand-in Windows DLL with mingw-w64 for pack:all's import check.
command -v x86_64-w64-mingw32-gcc >/dev/null || bash scripts/windows-toolchain.sh --build
echo "== cargo test"
cargo test --locked --workspace
echo "== napi build"
bash scripts/ensure.sh --rebuild
echo "== build:ts (ts/ → js/, index.d.ts)"
npm run -s build:ts
# Each runtime's output is kept for the count of skipped tests at the end (scripts/skip-summary.sh).
logs="$(mktemp -d "${TMPDIR:-/tmp}/atn-tests.XXXXXX")"
trap 'rm -rf "$logs"' EXIT
# Bun gives each test 5 s unless told otherwise, a figure for an idle machine; Node gives no limit.
# 60 s leaves a test that takes 1 s on an idle machine room for a busy one; the heavy tests set
# their own, larger timeouts, proportional to their fixed amount of work.
bun_suites=(node_modules/.bin/bun test --timeout 60000 __test__/)
# Node's usual report on the terminal (spec there, TAP otherwise), and TAP in a file.
reporter=tap
[ -t 1 ] && reporter=spec
node_suites=(node --test --test-reporter="$reporter" --test-reporter-destination=stdout
  --test-reporter=tap --test-reporter-destination="$logs/node.tap" __test__/)
source scripts/side-by-side.sh
echo "== bun test and node --test, side by side (bun's output first)"
side_by_side "$logs" "${bun_suites[@]}" ::: "${node_suites[@]}"
echo "== skipped tests, with their reasons"
bash scripts/skip-summary.sh bun "$logs/bun.out"
bash scripts/skip-summary.sh node "$logs/node.tap"
echo "== tsc (typing contract; the framework adapters from a consumer)"
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p __test__/types-adapters/tsconfig.json
echo "== all test suites passed"
