#!/usr/bin/env bash
# The main job: install dependencies, build, and start ddb-server on port 8000 with its
# data in ./data. Extra arguments are passed to ddb-server (e.g. --in-memory).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --build
tools/build.sh --target ddb-server
exec build/ddb-server --port 8000 --data-dir ./data "$@"
