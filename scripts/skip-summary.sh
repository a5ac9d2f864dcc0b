#!/usr/bin/env bash
# The skipped tests of JavaScript test runs, counted and listed with their reasons:
#   scripts/skip-summary.sh <node|bun> <output file>...
# node: TAP output (`node --test --test-reporter=tap`): the `# skipped N` totals and the lines
#       `ok N - <name> # SKIP <reason>` (skipped suites, which are not tests, left out);
# bun:  `bun test` output (stdout and stderr): the `N skip` totals and the lines
#       `skipped: <describe > … > name> # <reason>` that __test__/harness.mjs writes for each
#       (found after another message that lacks its newline, too).
# Prints `<runtime>: N skipped`, then each skipped test with its reason. Exits 1 when the number
# listed differs from the runner's total (a test skipped without the harness).
set -euo pipefail
runtime="${1:-}"
shift || true
case "$runtime" in node | bun) ;; *) echo "usage: $0 <node|bun> <output file>..." >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "usage: $0 <node|bun> <output file>..." >&2; exit 2; }

if [ "$runtime" = node ]; then
  total="$(cat "$@" | tr -d '\r' | awk '/^# skipped [0-9]+$/ { n += $3 } END { print n + 0 }')"
  listed="$(cat "$@" | tr -d '\r' | awk '
    /^ *(not )?ok [0-9]+ - .* # SKIP/ { if (held != "") print held; held = $0; sub(/^ *(not )?ok [0-9]+ - /, "", held); sub(/ # SKIP ?/, " # ", held); next }
    held != "" && /^ *type: .suite.$/ { held = ""; next }
    held != "" && /^ *(\.\.\.|ok [0-9]+|not ok [0-9]+|# Subtest:)/ { print held; held = "" }
    END { if (held != "") print held }')"
else
  total="$(cat "$@" | tr -d '\r' | awk '/^ *[0-9]+ skip$/ { n += $1 } END { print n + 0 }')"
  # At the start of a line, or after a message of bun's own that ended without a newline (seen
  # under wine); never in a line of bun's reporter, "(pass) <name>", whose name may hold the words.
  listed="$(cat "$@" | tr -d '\r' | awk '!/^\((pass|fail|skip|todo)\)/ { i = index($0, "skipped: "); if (i) print substr($0, i + 9) }')"
fi
count=0
[ -z "$listed" ] || count="$(printf '%s\n' "$listed" | wc -l)"
echo "$runtime: $total skipped"
[ -z "$listed" ] || printf '%s\n' "$listed" | sed 's/^/  /'
if [ "$count" -ne "$total" ]; then
  echo "$runtime: the runner counts $total skipped tests, $count are listed with a reason (a test skipped without __test__/harness.mjs?)"
  exit 1
fi
