#!/usr/bin/env bash
# The repository's tests for Windows x64, run here under wine (scripts/windows-toolchain.sh):
#   rust  `cargo test --workspace --target x86_64-pc-windows-gnu`: the Windows test binaries, run
#         by cargo's target runner (scripts/windows/wine-runner.sh, .cargo/config.toml); the
#         pseudo console (ConPTY) tests, whose names hold `conpty`, apart on a terminal (below);
#   node  every __test__/*.test.mjs on the official node.exe, one process per file;
#   bun   every __test__/*.test.mjs on the official bun.exe (`bun test`), one process per file;
#         the node and bun suites run side by side, each printing a line per file as it ends.
# The JavaScript suites load the Windows addon from the work tree, where binding.js looks for it:
# ./agent-tools-native.win32-x64-msvc.node. That is $ATN_WIN_DLL when set, else the release DLL
# `npm run pack:all` left in npm/win32-x64-msvc/, else a debug build made here (napi build for
# x86_64-pc-windows-gnu, renamed as pack:all does).
#
#   scripts/test-windows.sh [rust] [node] [bun]     (all three by default)
#
# ATN_UNDER_WINE=1 is set for the suites: __test__/helpers.mjs's `notUnderWine(reason)` then skips
# the tests that cannot hold under wine, by name and with the reason. On Windows itself nothing
# sets it, and those tests run. The summary below counts and lists every skipped test of both
# runtimes with its reason, a skipped describe's tests one by one (scripts/skip-summary.sh).
#
# A test that fails on Windows and waits for a fix in the code it tests is listed by name in
# scripts/windows/known-failures.txt (Rust tests as cargo prints them): it still runs, its failure
# does not fail the run, any other failure does, and a listed test that passes is reported.
# Bun: __test__/wine-bun-preload.mjs stands in for bun.exe's recursive removal, broken under wine.
#
# Under wine, node.exe cannot write its stdout to a pipe (EBADF, docs/windows-port.md), so each
# file's output goes to a file in $ATN_WINE_LOGS (default: a temporary directory, kept), read
# back for the summary; a failing file's output is printed in full.
set -euo pipefail
cd "$(dirname "$0")/.."

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(rust node bun)
for p in "${parts[@]}"; do
  case "$p" in rust | node | bun) ;; *) echo "usage: $0 [rust] [node] [bun]" >&2; exit 2 ;; esac
done
wants() { printf '%s\n' "${parts[@]}" | grep -qx "$1"; }

eval "$(bash scripts/windows-toolchain.sh --env)"
# One wineserver for the whole run. Left alone, wine starts one with the first program and stops
# it 3 s after the last, and a program that starts as it stops fails ("wine client error:0:
# recvmsg: Connection reset by peer"): between two test files, say.
# Wine's own services (services.exe, winedevice.exe, …) start with the first program and live as
# long as the server: started here with nothing of ours as their output, not within a pipe that
# they would hold open (`cargo test | tee` below would never end).
# A server still running from before (an earlier step's, which stops 3 s after its last program)
# refuses `-p` (exit 2) and then stops under the run: it is waited for (or stopped) first.
timeout 30 wineserver -w 2>/dev/null || wineserver -k 2>/dev/null || true
trap 'wineserver -k 2>/dev/null || true' EXIT
wineserver -p >/dev/null 2>&1 || { echo "could not start a persistent wineserver for the run" >&2; exit 1; }
"$ATN_WINE" cmd.exe /c exit </dev/null >/dev/null 2>&1 || true
logs="${ATN_WINE_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/atn-wine-tests.XXXXXX")}"
mkdir -p "$logs"
# Per file: a generous bound (the longest file takes about a minute here), so a hang fails the
# file instead of stalling the run. A file that reaches it runs once more: wine now and then hangs
# a program for good (a hang of our own hangs the second run too); the summary names the file and
# its first run's output stays in the logs ($logs/<runtime>-<file>.timed-out).
FILE_TIMEOUT="${ATN_WINE_FILE_TIMEOUT:-600}"
status=0
summary=()
notes=()

if wants rust; then
  echo "== cargo test --workspace --target x86_64-pc-windows-gnu (under wine)"
  t0=$SECONDS
  rc=0
  cargo test --locked --no-fail-fast --workspace --target x86_64-pc-windows-gnu -- --skip conpty 2>&1 | tee "$logs/rust.out" || rc=$?
  sed -n -E 's/^test (.*) \.\.\. FAILED$/\1/p' "$logs/rust.out" | sort -u >"$logs/rust.failed"
  awk -F '\t' '!/^#/ && NF >= 3 && $1 == "cargo" && $2 == "rust" { print $3 }' scripts/windows/known-failures.txt | sort -u >"$logs/rust.known"
  unexpected="$(comm -23 "$logs/rust.failed" "$logs/rust.known")"
  while IFS= read -r t; do
    [ -n "$t" ] && ! grep -qxF -- "$t" "$logs/rust.failed" && notes+=("rust: listed as a known failure but passed: $t")
  done <"$logs/rust.known"
  verdict=passed
  if [ "$rc" -ne 0 ] && { [ -n "$unexpected" ] || [ ! -s "$logs/rust.failed" ]; }; then
    verdict=FAILED
    status=1
    [ -z "$unexpected" ] || sed 's/^/unexpected failure: /' <<<"$unexpected"
    # What each unexpected failure printed (its panic), repeated at the very end of the run.
    while IFS= read -r t; do
      [ -n "$t" ] && awk -v head="---- $t stdout ----" '$0 == head { on = 1; n = 0; print; next } on && (/^---- / || /^failures:$/) { on = 0 } on && n++ < 40 { print }' "$logs/rust.out"
    done <<<"$unexpected" >"$logs/rust.details"
  elif [ "$rc" -ne 0 ]; then
    verdict="passed but for its known failures"
  fi
  counts="$(awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "%d passed, %d failed, %d ignored", p, f, i }' "$logs/rust.out")"
  summary+=("rust (wine): $verdict, $counts (failing: $(wc -l <"$logs/rust.failed")), $((SECONDS - t0)) s")

  # The pseudo console (ConPTY) tests: under wine 8 a pseudo console reaches its program only when
  # the process that made it runs on wine's console, so their test binaries run on a terminal,
  # `script`'s (docs/windows-port.md, "Pseudo-consoles (ConPTY) under wine"); run without one, they
  # fail and say so. The terminal is wide, so that wine's console does not wrap libtest's lines;
  # the escape sequences and carriage returns it draws them with are stripped for the summary.
  echo "== cargo test --workspace --lib --target x86_64-pc-windows-gnu conpty (under wine, on a terminal: script)"
  t0=$SECONDS
  rc=0
  command -v script >/dev/null || { echo "script (util-linux) is missing: the ConPTY tests need it" >&2; exit 1; }
  CARGO_TERM_PROGRESS_WHEN=never script -qec "stty cols 1000 2>/dev/null; cargo test --locked --no-fail-fast --workspace --lib --target x86_64-pc-windows-gnu -- --color never conpty" /dev/null </dev/null >"$logs/rust-conpty.raw" 2>&1 || rc=$?
  tr -d '\r' <"$logs/rust-conpty.raw" |
    sed -E 's/\x1b\[[0-9]*C/ /g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b[()][0-9A-Za-z]//g; s/\x1b\][^\x07]*\x07//g' >"$logs/rust-conpty.out"
  cat "$logs/rust-conpty.out"
  counts="$(awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "%d passed, %d failed, %d ignored", p, f, i }' "$logs/rust-conpty.out")"
  verdict=passed
  # a run that found no test (a filter gone wrong, no terminal) fails too
  if [ "$rc" -ne 0 ] || ! grep -qE '^test result: ok\. [1-9][0-9]* passed' "$logs/rust-conpty.out"; then
    verdict=FAILED
    status=1
  fi
  summary+=("rust ConPTY tests (wine, on script's terminal): $verdict, $counts, $((SECONDS - t0)) s")
fi

if wants node || wants bun; then
  dll=agent-tools-native.win32-x64-msvc.node
  if [ -n "${ATN_WIN_DLL:-}" ]; then
    cp "$ATN_WIN_DLL" "$dll"
  elif [ -e "npm/win32-x64-msvc/$dll" ]; then
    echo "== the release DLL of pack:all (npm/win32-x64-msvc/$dll)"
    cp "npm/win32-x64-msvc/$dll" "$dll"
  else
    echo "== debug build of the addon for x86_64-pc-windows-gnu"
    out="$(mktemp -d)"
    (unset CARGO_BUILD_TARGET; npx --no-install napi build --platform --target x86_64-pc-windows-gnu \
      --output-dir "$out" --no-js --dts "$out/binding.d.ts")
    cp "$out/agent-tools-native.win32-x64-gnu.node" "$dll"
    rm -rf "$out"
  fi
  npm run -s build:ts
  export ATN_UNDER_WINE=1
  # 300 s per test on node.exe too (__test__/harness.mjs), as bun.exe's --timeout below: a test
  # that hangs fails by name
  export ATN_NODE_TEST_TIMEOUT_MS=300000
  # Programs the suites start by name find wine's node.exe (the MCP suites run the server with
  # `node`, as a Windows user's PATH has it); the bun they start is wine's bun.exe.
  WINEPATH="Z:$(dirname "$ATN_WIN_NODE" | tr / '\\')${WINEPATH:+;$WINEPATH}"
  export WINEPATH ATN_TEST_BUN="$ATN_WIN_BUN"
fi

# The failing tests of a file's output, one name a line: Node's TAP ("not ok N - name" whose
# failure is the test's own, not its subtests'), Bun's "(fail) describe > name [time]".
failed_tests() { # <runtime> <output file>
  if [ "$1" = node ]; then
    awk '/^ *not ok [0-9]+ - / { name = $0; sub(/^ *not ok [0-9]+ - /, "", name); pending = 1; next }
         pending && /failureType:/ { if ($0 !~ /subtestsFailed/) print name; pending = 0 }' "$2"
  else
    sed -n -E 's/^\(fail\) (.* > )?(.*) \[[0-9.]+m?s\]$/\2/p; s/^\(fail\) (.* > )?([^[]*[^] ])$/\2/p' "$2"
  fi
}

# The known failures (scripts/windows/known-failures.txt) of a runtime and file, one name a line.
known_failures() { # <runtime> <file name>
  awk -F '\t' -v r="$1" -v f="$2" '!/^#/ && NF >= 3 && $1 == f && ($2 == r || $2 == "both") { print $3 }' scripts/windows/known-failures.txt
}

# run_js <runtime> <command…>: every test file, one process each, output in $logs/<runtime>-<file>.out.
# A file passes when it exits 0, or when every test that failed is listed for it in
# scripts/windows/known-failures.txt (tests that fail on Windows and wait for a fix in the code they
# test; each listed failure is printed). A listed test that passes is reported, to be removed.
# It prints a line per file as it ends; its summary line, its notes, its failing files' outputs and
# its status go to $logs/<runtime>.{summary,notes,report,status}, read once both runtimes are done.
run_js() {
  local runtime="$1"
  shift
  local t0=$SECONDS failed=() known=0 f file name out rc unexpected
  local notes="$logs/$runtime.notes" report="$logs/$runtime.report"
  : >"$notes"
  : >"$report"
  echo 0 >"$logs/$runtime.status"
  # written at the end only: a run that stops early leaves none, not an earlier run's
  rm -f "$logs/$runtime.summary"
  for f in __test__/*.test.mjs; do
    file="$(basename "$f")"
    name="${file%.test.mjs}"
    out="$logs/$runtime-$name.out"
    rc=0
    timeout --kill-after=30 "$FILE_TIMEOUT" "$@" "./$f" >"$out" 2>&1 </dev/null || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      mv "$out" "$out.timed-out"
      echo "$runtime $file: timed out after $FILE_TIMEOUT s and ran again (first run: $out.timed-out)" >>"$notes"
      echo "--- $runtime $f: timed out after $FILE_TIMEOUT s, running it again"
      rc=0
      timeout --kill-after=30 "$FILE_TIMEOUT" "$@" "./$f" >"$out" 2>&1 </dev/null || rc=$?
    elif [ "$rc" -ne 0 ] && [ ! -s "$out" ]; then
      # Not a word, not even the runner's first line: wine did not start the runtime (seen
      # once with bun.exe, exit 1). A failure of the tests always has output; it runs once more.
      echo "$runtime $file: exited $rc without any output (the runtime did not start) and ran again" >>"$notes"
      echo "--- $runtime $f: exited $rc without any output, running it again"
      rc=0
      timeout --kill-after=30 "$FILE_TIMEOUT" "$@" "./$f" >"$out" 2>&1 </dev/null || rc=$?
    fi
    failed_tests "$runtime" "$out" | sort -u >"$out.failed"
    known_failures "$runtime" "$file" | sort -u >"$out.known"
    while IFS= read -r t; do
      [ -n "$t" ] && ! grep -qxF -- "$t" "$out.failed" && echo "$runtime $file: listed as a known failure but passed: $t" >>"$notes"
    done <"$out.known"
    if [ "$rc" -eq 0 ]; then
      echo "--- $runtime $f: passed"
      continue
    fi
    unexpected="$(comm -23 "$out.failed" "$out.known")"
    # a file that did not run to its end (killed, timed out, crashed) fails whatever it reported
    if [ -s "$out.failed" ] && [ -z "$unexpected" ] && grep -qE '^# tests [0-9]+$|^Ran [0-9]+ tests? across' "$out"; then
      echo "--- $runtime $f: passed but for its known failures:"
      sed 's/^/      known failure: /' "$out.failed"
      known=$((known + $(wc -l <"$out.failed")))
    else
      failed+=("$name")
      echo "--- $runtime $f: FAILED, exit $rc (its output follows the run)"
      {
        echo "--- $runtime $f: exit $rc; its output ($out):"
        cat "$out"
        [ -z "$unexpected" ] || sed 's/^/      unexpected failure: /' <<<"$unexpected"
      } >>"$report"
    fi
  done
  local pass fail skip
  if [ "$runtime" = node ]; then
    pass="$(cat "$logs"/node-*.out | awk '/^# pass / { n += $3 } END { print n + 0 }')"
    fail="$(cat "$logs"/node-*.out | awk '/^# fail / { n += $3 } END { print n + 0 }')"
  else
    pass="$(cat "$logs"/bun-*.out | awk '/^ *[0-9]+ pass$/ { n += $1 } END { print n + 0 }')"
    fail="$(cat "$logs"/bun-*.out | awk '/^ *[0-9]+ fail$/ { n += $1 } END { print n + 0 }')"
  fi
  # Every skipped test with its reason (a skipped describe's tests one by one, __test__/harness.mjs);
  # the run fails when the runner's total and the tests listed with a reason differ.
  if ! bash scripts/skip-summary.sh "$runtime" "$logs/$runtime"-*.out >"$logs/$runtime-skips.txt"; then
    tail -n 1 "$logs/$runtime-skips.txt" >>"$notes"
    echo 1 >"$logs/$runtime.status"
  fi
  skip="$(sed -n -E "1s/^$runtime: ([0-9]+) skipped$/\1/p" "$logs/$runtime-skips.txt")"
  local verdict=passed
  if [ ${#failed[@]} -gt 0 ]; then
    verdict="FAILED (${failed[*]})"
    echo 1 >"$logs/$runtime.status"
  fi
  echo "$runtime (wine): $verdict, $pass passed, $fail failed ($known of them known failures), $skip skipped, $((SECONDS - t0)) s" >"$logs/$runtime.summary"
}

# The two runtimes' suites run side by side: under wine a suite spends most of its time waiting
# (on wineserver, on the processes its tests start), so two share the machine's cores well.
runtimes=()
if wants node; then
  echo "== node.exe $("$ATN_WINE" "$ATN_WIN_NODE" -p process.version 2>/dev/null >"$logs/node-version.txt"; cat "$logs/node-version.txt") (wine): __test__/*.test.mjs"
  run_js node "$ATN_WINE" "$ATN_WIN_NODE" --test-reporter=tap &
  runtimes+=(node)
fi
if wants bun; then
  echo "== bun.exe (wine): bun test __test__/*.test.mjs"
  # __test__/wine-bun-preload.mjs: recursive removal, which bun.exe cannot do under wine
  # 300 s per test (npm test gives 60 s): the same fixed work runs several times slower under wine
  run_js bun "$ATN_WINE" "$ATN_WIN_BUN" test --timeout 300000 --preload ./__test__/wine-bun-preload.mjs &
  runtimes+=(bun)
fi
wait
for r in "${runtimes[@]}"; do
  cat "$logs/$r.report"
  summary+=("$(cat "$logs/$r.summary" 2>/dev/null || echo "$r (wine): FAILED, the run of its suites ended early")")
  while IFS= read -r n; do notes+=("$n"); done <"$logs/$r.notes"
  [ "$(cat "$logs/$r.status" 2>/dev/null)" = 0 ] && [ -s "$logs/$r.summary" ] || status=1
done

echo
for r in node bun; do
  [ ! -s "$logs/$r-skips.txt" ] || sed "1s/^$r: /$r.exe (wine): /" "$logs/$r-skips.txt"
done
# Last, so that the tail of a long log says what happened.
echo "== Windows tests under wine (logs: $logs)"
for s in "${summary[@]}"; do echo "$s"; done
for n in "${notes[@]}"; do echo "$n"; done
[ ! -s "$logs/rust.details" ] || cat "$logs/rust.details"
exit $status
