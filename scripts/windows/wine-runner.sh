#!/usr/bin/env bash
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a Windows executable (a
# test binary, for `cargo test --target x86_64-pc-windows-gnu`) under wine, with the prefix of
# scripts/windows-toolchain.sh (taken from the environment when `--env` was already evaluated).
#
# Under wine a Windows program's stdout or stderr that is a pipe of the host can fail (node.exe
# gets EBADF at its first write); a file or a terminal works. So when cargo hands this script a
# pipe, the program writes to temporary files, printed once it has exited (no live progress
# then), and its exit code is passed on.
set -euo pipefail

if [ -z "${WINEPREFIX:-}" ] || [ -z "${ATN_WINE:-}" ]; then
  eval "$(bash "$(dirname "$0")/../windows-toolchain.sh" --env)"
fi
export WINEDEBUG="${WINEDEBUG:--all}"
# Backtraces of a failing test, as on the host.
export RUST_BACKTRACE="${RUST_BACKTRACE:-0}"

if [ -t 1 ] && [ -t 2 ]; then
  exec "$ATN_WINE" "$@"
fi

out="$(mktemp)"
err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
status=0
"$ATN_WINE" "$@" >"$out" 2>"$err" </dev/null || status=$?
cat "$err" >&2
cat "$out"
exit "$status"
