#!/usr/bin/env bash
# Builds the image from the Dockerfile with podman and proves it a drop-in for DynamoDB
# Local's image: health check, AWS CLI round trip, DynamoDB Local's flags inside the image,
# the docker-compose example, time to first answer and to stop, start-up on a large store.
# Too slow for every CI run (a few minutes, plus the image build): run it before changing
# the image, and put its figures in bench/RESULTS.md.
#   tools/container-check.sh                 # build, check, 1 GB start-up figures
#   tools/container-check.sh --large-mb 0    # skip the large store
#   tools/container-check.sh --no-build      # check localhost/ddb:check as it is
# Needs root (podman with runc and debootstrap, as this machine has them); installs them with
# apt-get when missing. No registry is needed: the base image is made with debootstrap.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(podman runc debootstrap podman-compose awscli python3-boto3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "container-check: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
exec /usr/bin/python3 tools/container_check.py "$@"
