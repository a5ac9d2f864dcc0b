#!/usr/bin/env bash
# The core's macOS code paths, run on Linux (crates/agent-tools-core/README.md, "The
# `portable-unix` feature"): the core's tests with the feature, then the file, process and
# sandbox-attack suites against an addon built with it. That addon goes to a temporary directory
# and is loaded through NAPI_RS_NATIVE_LIBRARY_PATH (which binding.js honours), so the addon at
# the repository's root stays the normal one. Expects the npm dependencies and js/ (`npm test`
# leaves both).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)" != Linux ]; then
  echo "test-portable: nothing to do here (the portable paths are this system's own)"
  exit 0
fi
export CARGO_BUILD_TARGET="${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"
bash scripts/ensure.sh --deps

out="$(mktemp -d "${TMPDIR:-/tmp}/atn-portable-XXXXXX")"
trap 'rm -rf "$out"' EXIT

echo "== cargo test -p agent-tools-core --features portable-unix"
cargo test --locked -p agent-tools-core --features portable-unix

echo "== napi build --features portable-unix (debug, into a temporary directory)"
npx --no-install napi build --platform --no-js --features portable-unix --output-dir "$out"
addon="$(ls "$out"/*.node)"
export NAPI_RS_NATIVE_LIBRARY_PATH="$addon"
# The suites skip what only Linux's native build does (the process tools' supervisor).
export ATN_PORTABLE_BUILD=1
# The suites must run against this build, not the root's addon.
node -e '
  require("agent-tools-native");
  const loaded = process.report.getReport().sharedObjects.filter((f) => f.endsWith(".node"));
  if (loaded.length !== 1 || loaded[0] !== process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
    console.error("test-portable: the suites would load", loaded);
    process.exit(1);
  }'

suites=()
for name in sandbox write_file apply_patch apply_patches exec_command read_file tree edit_file git_status_summary git_attacks process_tools checkpoints; do
  suites+=("__test__/$name.test.mjs")
done
bun_suites=(node_modules/.bin/bun test --timeout 60000 "${suites[@]}")
# and crash safety: killed writers leave no temporary file
node_suites=(node --test "${suites[@]}" __test__/crash.test.mjs)
source scripts/side-by-side.sh
echo "== bun test and node --test (portable addon), side by side (bun's output first)"
side_by_side "$out" "${bun_suites[@]}" ::: "${node_suites[@]}"
echo "== the portable build passed"
