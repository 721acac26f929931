#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test: the layer and file-map checks, the
# GoogleTest unit tests and the package checks (ctest: exported symbols, examples/embedded
# built from the installed package), the wire tests (pytest, boto3 and the AWS CLI against the real server) and
# the JS wire tests (AWS SDK for JavaScript v3, ElectroDB, dynamodb-toolbox, OneTable), then the
# sanitizer and fuzz smoke (tools/sanitize.sh --smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/check_layers.sh
tools/check_file_map.sh
tools/build.sh
# The image builds these by name (Dockerfile): a renamed target must not break it unseen.
# Looked up in the target list: make would take the built file build/ddb for a target "ddb".
read -r -a image_targets < <(sed -n 's/^RUN tools\/build.sh --target \([^\\]*\).*/\1/p' Dockerfile)
[[ ${#image_targets[@]} -gt 0 ]] || { echo "test.sh: no build targets found in Dockerfile" >&2; exit 1; }
known_targets=$(cmake --build build --target help)
for t in "${image_targets[@]}"; do
  grep -qx "\.\.\. $t" <<<"$known_targets" || { echo "test.sh: the Dockerfile builds '$t', which is no target" >&2; exit 1; }
done
(cd build && ctest --output-on-failure -j2)
DDB_SERVER="$PWD/build/ddb-server" /usr/bin/python3 -m pytest -q tests/wire
/usr/bin/python3 -m pytest -q tests/consistency  # the consistency checker's own tests (no server)
(cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
DDB_SERVER="$PWD/build/ddb-server" node --test tests/js/
# The sanitizer and fuzzing share of every run (docs/testing.md): fuzz smoke, ASan+UBSan unit
# tests and a wire subset. The full ASan+UBSan and TSan runs and fuzz campaigns are
# tools/sanitize.sh and tools/fuzz.sh, run before a change to the engine lands.
tools/sanitize.sh --smoke
