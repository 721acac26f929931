#!/usr/bin/env bash
# Installs the build in BUILD_DIR to a temporary prefix, builds examples/embedded from that
# installed package as an outside project would (find_package(ddb)), and runs its tests
# against libddb.so and libddb.a.
set -euo pipefail
build=${1:?usage: build_example.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/examples/embedded" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j"$(nproc)" >/dev/null
"$work/build/orders_test"
"$work/build/orders_test_static"
echo "build_example: ok"
