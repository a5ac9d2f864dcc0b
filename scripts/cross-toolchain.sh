#!/usr/bin/env bash
# Installs what building for every target in package.json's `napi.targets` needs, each piece from
# a package registry or rustup: the Rust standard library of each target (rustup), zig as the C
# compiler and linker (`ziglang` from PyPI; it links against glibc 2.17 and macOS without an SDK)
# and cargo-zigbuild (PyPI's build, else crates.io), which drives cargo through zig. Idempotent: installs only what
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

ZIGLANG_VERSION=0.17.1
CARGO_ZIGBUILD_VERSION=0.24.1

read -r -a targets <<<"$(node -p 'require("./package.json").napi.targets.join(" ")')"
installed="$(rustup target list --installed)"
missing=()
windows=false
for t in "${targets[@]}"; do
  # Windows builds for x86_64-pc-windows-gnu with mingw-w64 under the msvc package name
  # (scripts/packaging.mjs); scripts/windows-toolchain.sh installs that toolchain.
  case "$t" in *-windows-msvc) windows=true; continue ;; esac
  grep -qx "$t" <<<"$installed" || missing+=("$t")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== rustup target add ${missing[*]}"
  rustup target add "${missing[@]}"
fi

if ! python3 -m ziglang version >/dev/null 2>&1; then
  echo "== pip install ziglang==$ZIGLANG_VERSION"
  # PIP_BREAK_SYSTEM_PACKAGES: a Python that marks itself externally managed still takes it
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet "ziglang==$ZIGLANG_VERSION"
fi

if ! cargo-zigbuild --version >/dev/null 2>&1; then
  # PyPI has it built (seconds); compiling it from crates.io takes minutes, so only where no
  # wheel fits this machine
  echo "== pip install cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"
  cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
  if PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"; then
    # beside cargo, which is on PATH (pip's scripts directory may not be)
    scripts="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"
    [ -x "$scripts/cargo-zigbuild" ] && ln -sf "$scripts/cargo-zigbuild" "$cargo_bin/cargo-zigbuild"
  fi
  if ! cargo-zigbuild --version >/dev/null 2>&1; then
    echo "== cargo install cargo-zigbuild@$CARGO_ZIGBUILD_VERSION"
    cargo install --quiet --locked cargo-zigbuild --version "$CARGO_ZIGBUILD_VERSION"
  fi
fi

if $windows; then
  bash scripts/windows-toolchain.sh --build
fi
