#!/usr/bin/env bash
# Keeps a stateful campaign's corpus in the repo: merges CORPUS_DIR (default
# /tmp/ddb-stateful-campaign/corpus) and the archive already kept into the smallest set of
# inputs with the same coverage (libFuzzer -merge=1, with build-campaign's stateful_fuzz) and
# writes it to tests/fuzz/campaign/stateful-corpus.tar.xz, which tools/stateful-campaign.sh
# unpacks before a run. CI does not read it (its fuzz smoke starts from tests/fuzz/corpus).
#
#   tools/stateful-corpus-pack.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/ddb-stateful-campaign/corpus}
archive=tests/fuzz/campaign/stateful-corpus.tar.xz
[[ -x build-campaign/stateful_fuzz ]] || { echo "build it first: tools/stateful-campaign.sh" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/merged" "$work/kept"
[[ -f $archive ]] && tar -xJf "$archive" -C "$work/kept"
scratch=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && scratch=/dev/shm
TMPDIR="$scratch" DDB_FUZZ_REUSE_ENGINE=1 build-campaign/stateful_fuzz -merge=1 \
  -entropic=0 -timeout=25 -rss_limit_mb=3072 -max_len=16384 -detect_leaks=0 \
  "$work/merged" "$work/kept" "$corpus" >"$work/merge.log" 2>&1 ||
  { tail -20 "$work/merge.log" >&2; exit 1; }
mkdir -p "$(dirname "$archive")"
tar -cJf "$archive" -C "$work/merged" .
echo "$archive: $(ls "$work/merged" | wc -l) inputs, $(du -k "$archive" | cut -f1) KB"
