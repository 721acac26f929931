#!/usr/bin/env bash
# Configures and builds everything into ./build (Release). Extra args go to cmake --build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build build -j"$(nproc)" "$@"
