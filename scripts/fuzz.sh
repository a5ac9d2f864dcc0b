#!/usr/bin/env bash
# `npm run fuzz [seconds] [target...]`: runs each cargo-fuzz target (libFuzzer, AddressSanitizer)
# for `seconds` (default 60) from the checked-in seeds plus the local corpus, and prints one
# summary line per target. A crash leaves its input in fuzz/artifacts/<target>/ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(diff_apply glob_match js_regex tool_args)

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# Sanitizer flags need nightly; without a nightly toolchain the stable compiler is asked to
# accept them (RUSTC_BOOTSTRAP).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
unset CARGO_BUILD_TARGET

summary=()
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target"
  log="fuzz/target/$target.log"
  "${fuzz[@]}" build "$target" >/dev/null 2>&1 || "${fuzz[@]}" build "$target"
  mkdir -p fuzz/target
  set +e
  "${fuzz[@]}" run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1
  status=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  edges=$(sed -n 's/^#.*cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ "$status" -eq 0 ]; then
    summary+=("$target: ${runs:-?} runs in ${seconds} s, ${edges:-?} coverage edges, 0 crashes")
  else
    tail -40 "$log"
    summary+=("$target: FAILED after ${runs:-?} runs (exit $status), see $log and fuzz/artifacts/$target/")
  fi
done
rm -rf "${TMPDIR:-/tmp}"/atn-fuzz-*
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q FAILED
