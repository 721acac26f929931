#!/usr/bin/env bash
# Throughput of acknowledged writes under --durability fsync against one fsync per write,
# with --durability process for reference (issue 17). A server on a data directory on this
# machine's disk (default under /var/tmp; DIR to choose), a table without indexes, and
# bench/loadgen in closed loop:
#   fsync   1 connection  PutItem        one fsync per write: the baseline
#   fsync  16 connections PutItem        16 writers sharing fsyncs (RocksDB group commit)
#   fsync   1 connection  BatchWriteItem 25 items per request, one fsync per request
#   fsync  16 connections BatchWriteItem both
#   process (no fsync) for the same four, for reference
# Prints the machine, one line per run (item writes/s, requests/s, p50/p99) and the ratios
# to the baseline. Each run: a fresh server and data directory, 1 s warmup, DURATION s.
#   bench/durability.sh [DURATION] [DIR]     # default 10 s, /var/tmp
#   DDB_BENCH_SERVER_FLAGS="--threads 16" bench/durability.sh   # more server flags
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/server_lib.sh
duration=${1:-10}
base=${2:-/var/tmp}
server=${DDB_SERVER:-build/ddb-server}
loadgen=${DDB_LOADGEN:-build/loadgen}
work=$(mktemp -d "$base/ddb-durability-bench.XXXXXX")
SERVER_PID=""
trap 'stop_server; rm -rf "$work"' EXIT

echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))," \
  "$(free -g | awk '/Mem:/{print $2}') GB RAM; data dir on $(df -P "$base" | awk 'NR==2{print $1}')" \
  "($(findmnt -no FSTYPE -T "$base")); load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "server flags: --engine-threads 64 ${DDB_BENCH_SERVER_FLAGS:-}"
printf '%-8s %5s %-11s %12s %12s %9s %9s\n' mode conns workload "item writes/s" requests/s p50_ms p99_ms

declare -A items
run() {
  local mode=$1 conns=$2 workload=$3
  local dir="$work/$mode-$conns-$workload" port log out
  port=$(free_port)
  log="$work/server-$mode-$conns-$workload.log"
  # 64 engine slots: every writer's call may wait on an fsync at once (the default, 8 on
  # this machine, would cap the writers sharing one at 8).
  # shellcheck disable=SC2086 # DDB_BENCH_SERVER_FLAGS: words on purpose
  "$server" --port "$port" --data-dir "$dir" --durability "$mode" --engine-threads 64 \
    ${DDB_BENCH_SERVER_FLAGS:-} >"$log" 2>&1 &
  SERVER_PID=$!
  wait_for "$log" "^LISTENING" 20
  out=$("$loadgen" --port "$port" --connections "$conns" --workload "$workload" \
    --duration "$duration" --warmup 1 --item-size 200 --no-progress --seed 1 \
    --label "$mode-$conns-$workload" 2>&1)
  stop_server
  rm -rf "$dir"
  local line rps p50 p99 per
  line=$(grep '^RESULT' <<<"$out" | tail -1)
  rps=$(grep -o 'rps=[0-9.]*' <<<"$line" | cut -d= -f2)
  p50=$(grep -o 'p50_us=[0-9.]*' <<<"$line" | cut -d= -f2 | awk '{printf "%.2f", $1/1000}')
  p99=$(grep -o 'p99_us=[0-9.]*' <<<"$line" | cut -d= -f2 | awk '{printf "%.2f", $1/1000}')
  per=1
  [[ $workload == batchwrite ]] && per=25
  items[$mode-$conns-$workload]=$(awk -v r="$rps" -v p="$per" 'BEGIN{printf "%.0f", r*p}')
  printf '%-8s %5s %-11s %12s %12s %9s %9s\n' "$mode" "$conns" "$workload" \
    "${items[$mode-$conns-$workload]}" "$rps" "$p50" "$p99"
}

for mode in fsync process; do
  for workload in put batchwrite; do
    for conns in 1 16; do
      run "$mode" "$conns" "$workload"
    done
  done
done
b=${items[fsync-1-put]}
echo "item writes/s relative to one fsync per write (fsync, 1 connection, PutItem: $b/s):"
for k in fsync-16-put fsync-1-batchwrite fsync-16-batchwrite process-1-put process-16-put \
  process-16-batchwrite; do
  awk -v k="$k" -v v="${items[$k]}" -v b="$b" 'BEGIN{printf "  %-22s %7.1fx\n", k, v/b}'
done
