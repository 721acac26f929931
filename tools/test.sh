#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test: the layer check, the GoogleTest unit
# tests (ctest) and the wire tests (pytest, boto3 and the AWS CLI against the real server).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/check_layers.sh
tools/build.sh
(cd build && ctest --output-on-failure -j2)
DDB_SERVER="$PWD/build/ddb-server" /usr/bin/python3 -m pytest -q tests/wire
