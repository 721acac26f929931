#!/usr/bin/env bash
# Consistency check (issue 29), as Jepsen checks a database: CLIENTS clients run
# tests/consistency/workload.py against build/ddb-server (transactions of list appends with
# ClientRequestTokens, transactional and single reads, compare-and-set registers) for SECONDS
# while a nemesis kill -9s the server every S seconds and restarts it on the same data
# directory and port; then tests/consistency/checker.py reads the history and names every
# anomaly (G0, G1a, G1b, G1c, G-single, G2, lost, stale or duplicated appends, registers
# that are not linearizable). Builds nothing; traffic only to 127.0.0.1; stops by itself.
# Prints the figures and the anomalies; exits 1 on any anomaly. docs/CONSISTENCY.md.
#   tools/consistency-check.sh [SECONDS] [CLIENTS] [--kill-every S] [--durability fsync|process]
#                              [--in-memory] [--seed N]        # default 180 s, 16 clients, 30 s
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=180
clients=16
[[ $# -gt 0 && $1 != --* ]] && { seconds=$1; shift; }
[[ $# -gt 0 && $1 != --* ]] && { clients=$1; shift; }
kill_every=30
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --kill-every) kill_every=$2; shift 2 ;;
    --in-memory) kill_every=0; extra+=(--in-memory); shift ;;
    *) extra+=("$1"); shift ;;
  esac
done
py=/usr/bin/python3
out=$(mktemp -d "${TMPDIR:-/tmp}/ddb-consistency-XXXXXX")
echo "== workload: $seconds s, $clients clients, kill -9 every ${kill_every} s (0: never); history in $out"
$py tests/consistency/workload.py --history "$out/history.jsonl" --seconds "$seconds" \
  --clients "$clients" --kill-every "$kill_every" --data-dir "$out/data" \
  --server-log "$out/server.log" "${extra[@]}" | tee "$out/workload.json"
echo "== checker"
status=0
$py tests/consistency/checker.py "$out/history.jsonl" || status=$?
if [[ $status -eq 0 ]]; then
  rm -rf "$out"
else
  echo "history and server log kept in $out"
fi
exit $status
