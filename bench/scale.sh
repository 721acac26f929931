#!/usr/bin/env bash
# bench/scale.sh: what a request costs as the data grows (issue "Scale and the hot path").
# One ddb-server on a data directory holds a small table (20,000 items) and a big one (N
# items, ~200 B each, BatchWriteItem preload over many connections); in one run it measures
# --ops (GetItem, Query with begins_with and Limit 10, a Scan page of 100, PutItem of new
# items, UpdateItem) on each, so the big/small ratios come from the same server, alternating
# small and big --runs times; then GetItem's p99 at a fixed rate (open loop, --burst-rate)
# while the big table is quiet and while PutItems pour into it at --burst-puts a second
# (open loop, so that the CPU they take is the same for every build; flushes and
# compactions run throughout), RSS (now and at its peak), the data directory's size, and the time to a
# first answer after a clean restart and after kill -9 (5 s of PutItems before it, for the
# WAL to replay); then the bulk paths on the big table
# (bench/scale_bulk.py): a full export, an ImportTable of it into a new table and `ddb load` of
# --load-items of its items into another, each as items/s (--no-bulk skips them).
# With --gsi both tables carry one GSI (loadgen --gsis 1: ProjectionType ALL, every item
# indexed), so every write also writes an index entry.
#
#   bench/scale.sh [--items N (1000000)] [--duration S (10)] [--runs N (2)]
#                  [--connections N (16)] [--server-flags "..."] [--gsi]
#                  [--ops "get query scan put update"] [--burst-rate R (2000)]
#                  [--burst-puts R (10000)] [--load-items N (1000000)] [--no-bulk]
#                  [--settle S (600)]
#
# After the load the measurements wait (at most --settle seconds; 0: not at all) until the
# compactions the load left are done (/metrics: ddb_storage_pending_compaction_bytes and
# ddb_storage_running_compactions at 0), so that they see the store as it stays; the wait is
# reported.
#
# Prints one line per measurement and a summary; traffic goes to 127.0.0.1 only; the server
# is started and stopped by its own PID. Reports, never asserts.
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS=1000000
SMALL=20000
DURATION=10
RUNS=2
CONNECTIONS=16
SERVER_FLAGS=""
SHAPE=""
OPS="get query scan put update"
BURST_RATE=2000
BURST_PUTS=10000
LOAD_ITEMS=1000000
SETTLE=600
BULK=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --items) ITEMS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --server-flags) SERVER_FLAGS="$2"; shift 2 ;;
    --gsi) SHAPE="--gsis 1"; shift ;;
    --ops) OPS="$2"; shift 2 ;;
    --burst-rate) BURST_RATE="$2"; shift 2 ;;
    --burst-puts) BURST_PUTS="$2"; shift 2 ;;
    --load-items) LOAD_ITEMS="$2"; shift 2 ;;
    --no-bulk) BULK=""; shift ;;
    --settle) SETTLE="$2"; shift 2 ;;
    *) echo "scale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
DDB_SERVER="${DDB_SERVER:-$PWD/build/ddb-server}"
LOADGEN="${LOADGEN:-$PWD/build/bench/loadgen}"
[[ -x "$LOADGEN" ]] || LOADGEN="$PWD/build/loadgen"
[[ -x "$LOADGEN" ]] || { echo "scale.sh: build the loadgen target first" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ddb-scale.XXXXXX")"
mkdir -p "$WORK/s3"
SERVER_PID=""
PORT=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# Starts the server on the data directory; sets SERVER_PID and PORT, and TIMES to the time
# from exec to LISTENING and to the first answered GetItem (ms).
start_server() {
  local log="$WORK/server.log"
  local t0
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  "$DDB_SERVER" --data-dir "$WORK/data" --s3-dir "$WORK/s3" --host 127.0.0.1 --port 0 \
    --log-level warn $SERVER_FLAGS >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 600); do grep -q '^LISTENING' "$log" && break; sleep 0.01; done
  PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
  [[ -n "$PORT" ]] || { echo "server did not start:" >&2; cat "$log" >&2; exit 1; }
  local t1
  t1=$(date +%s%N)
  "$LOADGEN" --host 127.0.0.1 --port "$PORT" --no-create --table big --keyspace "$ITEMS" \
    --workload get --requests 1 --connections 1 >/dev/null 2>&1 || true
  local t2
  t2=$(date +%s%N)
  TIMES="$(((t1 - t0) / 1000000)) $(((t2 - t0) / 1000000))"
}

field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2; exit}'; }

run_op() {  # table keyspace workload [loadgen flags...] -> "rps p50_us p99_us"
  local line table=$1 keyspace=$2 workload=$3
  shift 3
  # shellcheck disable=SC2086
  line="$(timeout $((DURATION + 90)) "$LOADGEN" --host 127.0.0.1 --port "$PORT" --no-create \
    $SHAPE --table "$table" --keyspace "$keyspace" --workload "$workload" \
    --duration "$DURATION" --warmup 2 --connections "$CONNECTIONS" --no-progress "$@" \
    2>/dev/null | grep '^RESULT' | head -1)"
  echo "$(field rps <<<"$line") $(field p50_us <<<"$line") $(field p99_us <<<"$line")"
}

echo "# bench/scale.sh: $ITEMS items vs $SMALL, ${DURATION}s x $RUNS runs, $CONNECTIONS connections," \
  "ops: $OPS, shape: ${SHAPE:-no index}, server flags: ${SERVER_FLAGS:-none}; $(nproc) cores"
start_server
for t in small big; do
  n=$SMALL
  [[ $t == big ]] && n=$ITEMS
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  "$LOADGEN" --host 127.0.0.1 --port "$PORT" $SHAPE --table "$t" --workload none \
    --preload "$n" --connections 32 --no-progress >"$WORK/preload-$t.out" 2>&1
  t1=$(date +%s%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
  echo "preload $t: $n items in ${secs}s ($(awk -v n="$n" -v s="$secs" 'BEGIN {printf "%.0f", n / s}') items/s, BatchWriteItem)"
done

compaction_debt() {
  curl -s "http://127.0.0.1:$PORT/metrics" |
    awk '/^ddb_storage_(pending_compaction_bytes|running_compactions)/ {s += $NF} END {print s + 0}'
}
t0=$(date +%s%N)
debt="$(compaction_debt)"
for _ in $(seq $((SETTLE * 2))); do
  [[ "$debt" == 0 ]] && break
  sleep 0.5
  debt="$(compaction_debt)"
done
t1=$(date +%s%N)
settle_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
echo "settle: compactions done ${settle_s}s after the load (debt left: $debt)"

declare -A SUM_RPS SUM_P99
for op in $OPS; do
  for t in small big; do SUM_RPS[$op-$t]=0; SUM_P99[$op-$t]=0; done
  for _ in $(seq "$RUNS"); do
    for t in small big; do
      n=$SMALL
      [[ $t == big ]] && n=$ITEMS
      read -r rps p50 p99 <<<"$(run_op "$t" "$n" "$op")"
      echo "$op $t: ${rps} req/s, p50 ${p50} us, p99 ${p99} us"
      SUM_RPS[$op-$t]=$(awk -v a="${SUM_RPS[$op-$t]}" -v b="${rps:-0}" 'BEGIN {print a + b}')
      SUM_P99[$op-$t]=$(awk -v a="${SUM_P99[$op-$t]}" -v b="${p99:-0}" 'BEGIN {print a + b}')
    done
  done
done
# GetItem's p99 at a fixed rate on the big table, quiet and then under a burst of PutItems
# (new items, at a fixed rate) that keeps flushes and compactions running.
read -r _ _ quiet_p99 <<<"$(run_op big "$ITEMS" get --rate "$BURST_RATE" --connections 4)"
# shellcheck disable=SC2086
"$LOADGEN" --host 127.0.0.1 --port "$PORT" --no-create $SHAPE --table big --workload put \
  --duration $((DURATION + 6)) --warmup 1 --connections 8 --rate "$BURST_PUTS" --no-progress \
  >"$WORK/burst.out" 2>&1 &
burst_pid=$!
sleep 3
read -r _ _ burst_p99 <<<"$(run_op big "$ITEMS" get --rate "$BURST_RATE" --connections 4)"
wait "$burst_pid" || true
burst_puts=$(grep '^RESULT' "$WORK/burst.out" | head -1 | field rps)
echo "get big at $BURST_RATE req/s: p99 ${quiet_p99} us quiet, ${burst_p99} us during ${burst_puts} PutItems/s"
rss_peak_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$SERVER_PID/status")
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status")
disk=$(du -sm "$WORK/data" | cut -f1)
stop_server
start_server
read -r listen_ms first_ms <<<"$TIMES"
stop_server
start_server
# Writes for the WAL to hold at the kill (a clean stop flushes it, so the open before this
# one left none to replay).
# shellcheck disable=SC2086
"$LOADGEN" --host 127.0.0.1 --port "$PORT" --no-create $SHAPE --table big --workload put \
  --duration 5 --warmup 0 --connections 16 --no-progress >"$WORK/prekill.out" 2>&1 || true
prekill_puts=$(grep '^RESULT' "$WORK/prekill.out" | head -1 | field ok)
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
start_server
read -r k_listen_ms k_first_ms <<<"$TIMES"
bulk=""
if [[ -n "$BULK" ]]; then
  mkdir -p "$WORK/s3"
  bulk="$(/usr/bin/python3 bench/scale_bulk.py --port "$PORT" --s3-dir "$WORK/s3" --table big \
    --load-items "$LOAD_ITEMS" --cli "$(dirname "$DDB_SERVER")/ddb" | sed -n 's/^bulk: //p')"
  echo "bulk (export, ImportTable of it, ddb load): $bulk"
fi
stop_server

ratios=""
for op in $OPS; do
  ratios+=" ${op}_ratio=$(awk -v b="${SUM_RPS[$op-big]}" -v s="${SUM_RPS[$op-small]}" 'BEGIN {printf "%.2f", s ? b / s : 0}')"
  ratios+=" ${op}_p99_ratio=$(awk -v b="${SUM_P99[$op-big]}" -v s="${SUM_P99[$op-small]}" 'BEGIN {printf "%.2f", s ? b / s : 0}')"
done
echo "summary: items=$ITEMS${SHAPE:+ gsi=1} settle_s=$settle_s$ratios" \
  "burst_get_p99_us=$burst_p99 quiet_get_p99_us=$quiet_p99" \
  "rss_mb=$((rss_kb / 1024)) rss_peak_mb=$((rss_peak_kb / 1024)) disk_mb=$disk" \
  "restart_first_answer_ms=$first_ms (listening $listen_ms)" \
  "kill9_first_answer_ms=$k_first_ms (listening $k_listen_ms, after ${prekill_puts:-?} PutItems)" $bulk
