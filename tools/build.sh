#!/usr/bin/env bash
# Configures and builds everything into ./build (Release). Extra args go to cmake --build.
# Compiles through ccache when it is installed (tools/install-deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${launcher[@]}" >/dev/null
cmake --build build -j"$(nproc)" "$@"
