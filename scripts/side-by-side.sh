# Sourced by scripts/test.sh and scripts/test-portable.sh: the Bun and the Node suites run side
# by side. Each runner mostly waits on one core (its tests' files, processes and timers), so on
# two cores both together take about as long as the longer one alone.
#
#   side_by_side LOGS BUN_COMMAND... ::: NODE_COMMAND...
#
# Bun's output is shown as it comes and kept in LOGS/bun.out; Node's is kept in LOGS/node.out
# and shown once both have ended. Returns non-zero when either run failed; a Node run still going
# when the caller is interrupted (Ctrl-C) is ended.
side_by_side() {
  local logs="$1" arg rc=0 into=bun
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
  "${bun_command[@]}" 2>&1 | tee "$logs/bun.out" || rc=$?
  echo "== node --test (it ran beside bun test; its output follows)"
  wait "$SIDE_BY_SIDE_NODE" || rc=$?
  trap - INT TERM
  cat "$logs/node.out"
  return "$rc"
}
