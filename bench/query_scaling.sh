#!/usr/bin/env bash
# bench/query_scaling.sh: Query latency as the table grows. For each size, starts a fresh
# ddb-server on 127.0.0.1 (in memory unless --disk), preloads that many ~200-byte items with
# BatchWriteItem over many connections, then runs the Query workload (begins_with, Limit 10,
# uniform partition keys over the whole table) --runs times and prints the medians.
#
#   bench/query_scaling.sh [--sizes "10000 100000 1000000"] [--duration S] [--runs N]
#                          [--connections N] [--preload-connections N] [--disk]
#                          [--preload-timeout S]
#
# A size whose preload does not finish within --preload-timeout (default 300 s) is reported as
# such and the larger sizes are skipped. Environment: DDB_SERVER, LOADGEN (as compare.sh).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
DDB_SERVER="${DDB_SERVER:-$ROOT/build/ddb-server}"
LOADGEN="${LOADGEN:-$ROOT/build/loadgen}"

SIZES="10000 100000 1000000"
DURATION=10
RUNS=3
CONNECTIONS=16
PRELOAD_CONNECTIONS=32
PRELOAD_TIMEOUT=300
DISK=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) SIZES="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --preload-connections) PRELOAD_CONNECTIONS="$2"; shift 2 ;;
    --preload-timeout) PRELOAD_TIMEOUT="$2"; shift 2 ;;
    --disk) DISK=1; shift ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "query_scaling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ddb-qscale.XXXXXX")"
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

printf "%-9s %10s %10s %9s %9s %9s %9s %7s %s\n" items preload_s items/s req/s p50_ms p90_ms \
  p99_ms load1 "req/s of each run"
for size in $SIZES; do
  log="$WORK/server-$size.log"
  mode=(--in-memory)
  [[ $DISK -eq 1 ]] && mode=(--data-dir "$WORK/data-$size")
  "$DDB_SERVER" "${mode[@]}" --host 127.0.0.1 --port 0 --log-level warn >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do grep -q '^LISTENING' "$log" && break; sleep 0.05; done
  port="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
  [[ -n "$port" ]] || { echo "server did not start:" >&2; cat "$log" >&2; exit 1; }

  if ! timeout "$PRELOAD_TIMEOUT" "$LOADGEN" --host 127.0.0.1 --port "$port" --workload none \
      --preload "$size" --connections "$PRELOAD_CONNECTIONS" >"$WORK/preload-$size.out" 2>/dev/null; then
    printf "%-9s preload did not finish within %s s; larger sizes skipped\n" "$size" "$PRELOAD_TIMEOUT"
    stop_server
    break
  fi
  preload_line="$(grep '^preload:' "$WORK/preload-$size.out")"
  preload_s="$(awk '{print $5}' <<<"$preload_line")"
  : >"$WORK/q-$size.txt"
  for _ in $(seq "$RUNS"); do
    load1="$(cut -d' ' -f1 /proc/loadavg)"
    timeout $((DURATION + 70)) "$LOADGEN" --host 127.0.0.1 --port "$port" --no-create \
      --keyspace "$size" --workload query --duration "$DURATION" --warmup 2 \
      --connections "$CONNECTIONS" --server-pid "$SERVER_PID" --label "q$size" 2>/dev/null |
      grep '^RESULT' | grep ' op=Query ' | sed "s/\$/ load1=$load1/" >>"$WORK/q-$size.txt"
  done
  stop_server
  awk -v size="$size" -v ps="$preload_s" '
    function field(name,   i, kv) {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
      return ""
    }
    function med(s,   n, a, i, j, t) {
      n = split(s, a, " ")
      for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { r = r " " field("rps"); p50 = p50 " " field("p50_us"); p90 = p90 " " field("p90_us")
      p99 = p99 " " field("p99_us"); ld = ld " " field("load1"); all = all sprintf("%.0f ", field("rps")) }
    END {
      printf "%-9s %10.1f %10.0f %9.0f %9.3f %9.3f %9.3f %7.2f %s\n", size, ps, size / ps, med(r),
        med(p50) / 1000, med(p90) / 1000, med(p99) / 1000, med(ld), all
    }' "$WORK/q-$size.txt"
done
echo "(medians of $RUNS runs of ${DURATION}s, $CONNECTIONS connections, Query begins_with Limit 10;"
echo " load1: 1-minute load average before each run, this benchmark's processes included)"
