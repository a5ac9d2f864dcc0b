# Sourced by scripts/test.sh and scripts/test-portable.sh: the Bun and the Node suites run side
# by side. Each runner mostly waits on one core (its tests' files, processes and timers), so on
# two cores both together take about as long as the longer one alone.
#
#   side_by_side LOGS BUN_COMMAND... ::: NODE_COMMAND...
#
# Bun's output is shown as it comes and kept in LOGS/bun.out; Node's is kept in LOGS/node.out
# and shown once both have ended. When either run failed, what failed is repeated last, so that
# the end of a long log names it. Returns non-zero when either run failed; a Node run still going
# when the caller is interrupted (Ctrl-C) is ended.
side_by_side() {
  local logs="$1" arg into=bun
  shift
  local -a bun_command=() node_command=()
  for arg in "$@"; do
    if [ "$arg" = ":::" ]; then
      into=node
    elif [ "$into" = bun ]; then
      bun_command+=("$arg")
    else
      node_command+=("$arg")
    fi
  done
  "${node_command[@]}" >"$logs/node.out" 2>&1 &
  SIDE_BY_SIDE_NODE=$!
  trap 'kill "$SIDE_BY_SIDE_NODE" 2>/dev/null || true' INT TERM
  local bun_rc=0 node_rc=0
  "${bun_command[@]}" 2>&1 | tee "$logs/bun.out" || bun_rc=$?
  echo "== node --test (it ran beside bun test; its output follows)"
  wait "$SIDE_BY_SIDE_NODE" || node_rc=$?
  trap - INT TERM
  cat "$logs/node.out"
  # Bun prints a failure's message before its "(fail)" line, Node's TAP after its "not ok" line.
  [ "$bun_rc" = 0 ] || side_by_side_failures bun "$bun_rc" "$logs/bun.out" -B12 '^\(fail\)|^error:'
  [ "$node_rc" = 0 ] || side_by_side_failures node "$node_rc" "$logs/node.out" -A14 '^ *not ok'
  [ "$bun_rc" = 0 ] && [ "$node_rc" = 0 ]
}

# side_by_side_failures NAME EXIT_CODE LOG CONTEXT PATTERN: the log's lines that name a failure
# with CONTEXT (a grep option: where the runner prints the message), or its last lines when none
# does (a runner that crashed).
side_by_side_failures() {
  echo "== $1 failed (exit code $2); what failed:"
  if ! grep -m 10 "$4" -E "$5" "$3"; then
    tail -n 40 "$3"
  fi
}
