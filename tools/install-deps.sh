#!/usr/bin/env bash
# Installs what ddb needs to build, run and test on Debian 12, with apt-get.
# Idempotent and quiet when everything is present. Used by the README commands, .ci/run
# and the Dockerfile's build stage, so they cannot drift apart.
#   tools/install-deps.sh          build + runtime + test dependencies
#   tools/install-deps.sh --build  only what building the server needs (Docker build stage)
set -euo pipefail

build_pkgs=(cmake g++ make pkg-config librocksdb-dev libboost-dev libsimdjson-dev
            libxxhash-dev zlib1g-dev libzstd-dev libssl-dev libgtest-dev libhnswlib-dev
            libnghttp2-dev libjemalloc-dev)
# clang, libclang-rt-14-dev: the fuzz targets and the sanitizer smoke; fuse3, libfuse3-dev: the
# power-cut test's file system; ccache: the extra builds those need; chromium: the web
# console's browser test (tests/js/console.test.mjs, driven by playwright-core).
test_pkgs=(python3 python3-boto3 python3-pytest awscli fuse3 libfuse3-dev clang libclang-rt-14-dev
           ccache chromium)
# The JS wire tests need node >= 20 and npm: Debian 12's nodejs is 18, so only install
# Debian's when there is no node at all (tests/js/package.json states the engine).

pkgs=("${build_pkgs[@]}")
if [[ "${1:-}" != "--build" ]]; then
  pkgs+=("${test_pkgs[@]}")
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ "${1:-}" != "--build" ]] && ! command -v node >/dev/null; then
  missing+=(nodejs npm)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
