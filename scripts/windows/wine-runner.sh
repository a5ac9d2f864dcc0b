#!/usr/bin/env bash
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a Windows executable (a
# test binary, for `cargo test --target x86_64-pc-windows-gnu`) under wine, with the prefix of
# scripts/windows-toolchain.sh (taken from the environment when its `--env` was evaluated).
#
# Unlike node.exe (docs/windows-port.md), a Rust binary under wine writes to a pipe of the host
# as well as to a file or a terminal, so the output goes straight through: `cargo test … | tail`
# works and progress is live.
set -euo pipefail

if [ -z "${WINEPREFIX:-}" ] || [ -z "${ATN_WINE:-}" ]; then
  eval "$(bash "$(dirname "$0")/../windows-toolchain.sh" --env)"
fi
export WINEDEBUG="${WINEDEBUG:--all}"
exec "$ATN_WINE" "$@"
