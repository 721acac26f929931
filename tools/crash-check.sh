#!/usr/bin/env bash
# Crash rounds before a release (issue 17), longer than the wire tests: for each durability
# mode, ROUNDS rounds of kill -9 mid-load and ROUNDS power cuts on tests/crash/lossy_fs
# (skipped without build/lossy_fs or /dev/fuse), each with 16 writers on a table with a GSI
# and an LSI, checked by tests/wire/crash_workload.py. About 10 s a round; exits 1 if any
# round failed. Its results go in bench/RESULTS.md ("Crash checks").
#   tools/crash-check.sh [ROUNDS]     # default 5
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
server=${DDB_SERVER:-build/ddb-server}
lossy_fs=${DDB_LOSSY_FS:-build/lossy_fs}
py=/usr/bin/python3
status=0
for mode in fsync process; do
  echo "== kill -9, --durability $mode, $rounds rounds"
  $py tests/wire/crash_workload.py --server "$server" --rounds "$rounds" --durability "$mode" ||
    status=1
  if [[ -x "$lossy_fs" && -w /dev/fuse ]]; then
    echo "== power cut, --durability $mode, $rounds rounds"
    $py tests/wire/crash_workload.py --server "$server" --rounds "$rounds" --durability "$mode" \
      --lossy-fs "$lossy_fs" || status=1
  else
    echo "== power cut skipped: no $lossy_fs or /dev/fuse"
  fi
done
exit $status
