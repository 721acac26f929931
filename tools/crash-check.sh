#!/usr/bin/env bash
# Crash rounds before a release (issue 17), longer than the wire tests: for each durability
# mode, ROUNDS rounds of kill -9 mid-load and ROUNDS power cuts on tests/crash/lossy_fs
# (skipped without build/lossy_fs or /dev/fuse), each with 16 writers on a table with a GSI
# and an LSI, checked by tests/wire/crash_workload.py. About 10 s a round; exits 1 if any
# round failed. Its results go in bench/RESULTS.md (runs: RESULTS-history.md, "Crash checks").
# With --disk-full, ROUNDS disk-full rounds per mode instead (issue 29): the data directory on
# lossy_fs with a byte budget that 16 writers fill; writes must fail with the disk-full error
# while reads go on, resume by themselves within 5 s of the budget being raised, and lose
# nothing acknowledged across a kill -9 after (crash_workload.disk_full_round). About 8 s a
# round; needs build/lossy_fs and /dev/fuse.
#   tools/crash-check.sh [--disk-full] [ROUNDS]     # default 5
set -euo pipefail
cd "$(dirname "$0")/.."
disk_full=
if [[ ${1:-} == --disk-full ]]; then
  disk_full=1
  shift
fi
rounds=${1:-5}
server=${DDB_SERVER:-build/ddb-server}
lossy_fs=${DDB_LOSSY_FS:-build/lossy_fs}
py=/usr/bin/python3
status=0
if [[ -n $disk_full ]]; then
  if [[ ! -x "$lossy_fs" || ! -w /dev/fuse ]]; then
    echo "== disk full: no $lossy_fs or /dev/fuse" >&2
    exit 1
  fi
  for mode in fsync process; do
    echo "== disk full, --durability $mode, $rounds rounds"
    $py tests/wire/crash_workload.py --server "$server" --rounds "$rounds" --durability "$mode" \
      --lossy-fs "$lossy_fs" --disk-full || status=1
  done
  exit $status
fi
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
