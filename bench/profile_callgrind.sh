#!/usr/bin/env bash
# bench/profile_callgrind.sh: profiles ddb-server under GetItem and PutItem load with valgrind's
# callgrind (for machines where perf has no hardware counters). Starts ddb-server (in memory)
# under callgrind on 127.0.0.1, preloads --preload items (not profiled), then for each workload
# zeroes the counters, sends --requests requests with bench/loadgen and dumps a profile; prints
# the top entries by inclusive and by self cost and leaves the callgrind.out.* files in --out.
#
#   bench/profile_callgrind.sh [--preload N] [--requests N] [--connections N]
#                              [--ops "get put"] [--out DIR] [--top N]
#
# Ops are loadgen workloads, optionally with a -gsi1 or -gsi2 suffix (put-gsi1: PutItem on a
# table with one GSI, as in compare.sh).
#
# Callgrind counts instructions (Ir) in user space only: the kernel's share (sockets, epoll,
# futex) is not in it, and the server runs ~50x slower, so keep --requests small.
# Environment: DDB_SERVER, LOADGEN (as compare.sh).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
DDB_SERVER="${DDB_SERVER:-$ROOT/build/ddb-server}"
LOADGEN="${LOADGEN:-$ROOT/build/loadgen}"
PRELOAD=20000
REQUESTS=20000
CONNECTIONS=16
OPS="get put"
OUT="${TMPDIR:-/tmp}/ddb-callgrind"
TOP=25

while [[ $# -gt 0 ]]; do
  case "$1" in
    --preload) PRELOAD="$2"; shift 2 ;;
    --requests) REQUESTS="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --ops) OPS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --top) TOP="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile_callgrind.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out.*
log="$OUT/server.log"
valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out.%p" \
  "$DDB_SERVER" --in-memory --host 127.0.0.1 --port 0 --log-level warn >"$log" 2>&1 &
PID=$!
cleanup() {
  if kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$PID" 2>/dev/null || true
  fi
  wait "$PID" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 600); do grep -q '^LISTENING' "$log" && break; sleep 0.1; done
PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
[[ -n "$PORT" ]] || { echo "ddb-server did not start under valgrind:" >&2; cat "$log" >&2; exit 1; }

common=(--host 127.0.0.1 --port "$PORT" --connections "$CONNECTIONS" --item-size 200)
# An op with the suffix -gsi1 or -gsi2 runs on a table with that many GSIs (as in compare.sh);
# every table the ops need is preloaded first, unprofiled.
op_gsis() { if [[ "$1" =~ -gsi([0-9])$ ]]; then echo "${BASH_REMATCH[1]}"; else echo 0; fi; }
shape_table() { if [[ "$1" == 0 ]]; then echo bench; else echo "bench_gsi$1"; fi; }
shapes=""
for op in $OPS; do
  g="$(op_gsis "$op")"
  [[ " $shapes " == *" $g "* ]] || shapes="$shapes $g"
done
for g in $shapes; do
  timeout 600 "$LOADGEN" "${common[@]}" --workload none --preload "$PRELOAD" \
    --table "$(shape_table "$g")" --gsis "$g" >"$OUT/preload-$g.out" 2>&1
done
for op in $OPS; do
  g="$(op_gsis "$op")"
  callgrind_control --zero "$PID" >/dev/null
  timeout 900 "$LOADGEN" "${common[@]}" --no-create --keyspace "$PRELOAD" \
    --workload "${op%-gsi[0-9]}" --table "$(shape_table "$g")" --gsis "$g" \
    --requests "$REQUESTS" --warmup 0 >"$OUT/$op.out" 2>&1
  grep '^RESULT' "$OUT/$op.out" | grep -v ' op=all ' || true
  callgrind_control --dump="$op" "$PID" >/dev/null
done
cleanup
trap - EXIT

for op in $OPS; do
  file="$(grep -lE "^desc: Trigger: (Client Request: )?(dump )?$op\$" "$OUT"/callgrind.out.* | head -1)"
  [[ -n "$file" ]] || { echo "no dump for $op" >&2; continue; }
  total="$(awk '/^(summary|totals):/ {print $2; exit}' "$file")"
  echo "== $op: $file; $total instructions for $REQUESTS requests" \
    "($((total / REQUESTS)) per request)"
  echo "-- inclusive"
  callgrind_annotate --inclusive=yes --threshold=100 "$file" 2>/dev/null |
    grep -E '^ *[0-9,]+ ' | head -n "$TOP" || true  # head closes the pipe early (SIGPIPE)
  echo "-- self"
  callgrind_annotate --threshold=100 "$file" 2>/dev/null | grep -E '^ *[0-9,]+ ' | head -n "$TOP" || true
done
