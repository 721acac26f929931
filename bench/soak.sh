#!/usr/bin/env bash
# bench/soak.sh: a long, steady single-table workload like our users' against one server,
# reported step by step (one line a minute by default) to show drift: throughput, latency, CPU
# per request, memory, the GSI change-log backlog and lag, and Time to Live deletions.
# Results are reported, never asserted.
#
# The table ("soak", pk S + sk S, PAY_PER_REQUEST) has two GSIs, one LSI (ProjectionType ALL),
# a stream (NEW_AND_OLD_IMAGES) and Time to Live on "expires" (see bench/loadgen_tables.h). It
# is created and preloaded once (preloaded items expire in ~10 years); then bench/loadgen runs
# the L2 mix (40 % GetItem, 30 % Query, of which --gsi-query-fraction go to gsi1, 20 % PutItem
# of new items, 10 % UpdateItem, a quarter of them moving the index entries) closed loop for
# one step at a time, --steps in a row with --no-create. A fraction of the new items expires
# within --expire-after seconds. During each step /metrics is sampled every --sample-every
# seconds and /proc/<pid>/status at the step's end.
#
#   bench/soak.sh [--minutes M] [--seconds-per-step S] [--server ddb|dynalite] [--data-dir DIR]
#                 [--preload N] [--connections N] [--threads N] [--item-size B]
#                 [--expiring-fraction F] [--expire-after S] [--gsi-query-fraction F]
#                 [--sample-every S] [--csv FILE] [--keep DIR] [--no-stream]
#
# --no-stream leaves the stream out of the table: stream records are kept 24 hours, as the
# service keeps them, so under constant writes they are most of what grows in memory.
# --minutes M (default 10, fractions allowed) is divided into steps of --seconds-per-step
# (default 60): `--minutes 1 --seconds-per-step 10` is a one-minute smoke run of six lines.
# --data-dir DIR runs ddb on disk in DIR (must be empty or missing; it is kept afterwards);
# the default is --in-memory. --server dynalite runs the same load against dynalite (in
# memory; it has no /metrics and no UpdateTimeToLive: those columns print n/a). --csv FILE
# writes one row per step; --keep DIR keeps every step's loadgen output, the /metrics samples
# and the server log.
#
# Columns: step end time (s), req/s (successful responses), p50/p99 ms, server CPU us per
# request (/proc/<pid>/stat, measured by loadgen), server RSS MB (VmRSS), table items
# (ddb_table_items), the change-log backlog at the step's end and its maximum in the step
# (ddb_gsi_pending_changes), GSI lag s at the end and its maximum (ddb_gsi_lag_seconds),
# items deleted by TTL in the step (ddb_ttl_deleted_items_total; n/a when the server does not
# export it), errors, and the data directory's size on disk.
#
# Environment: DDB_SERVER (default build/ddb-server), LOADGEN (default build/loadgen),
# BUILD_DIR (default build). Only 127.0.0.1 is used; the server is stopped by its PID on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/server_lib.sh
. "$BENCH_DIR/server_lib.sh"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
DDB_SERVER="${DDB_SERVER:-$BUILD_DIR/ddb-server}"
LOADGEN="${LOADGEN:-$BUILD_DIR/loadgen}"

MINUTES=10
STEP=60
SERVER=ddb
DATA_DIR=""
PRELOAD=100000
CONNECTIONS=16
THREADS="$(nproc)"
ITEM_SIZE=200
EXPIRING=0.25
STREAM=1
EXPIRE_AFTER=120
GSI_QUERIES=0.5
SAMPLE_EVERY=5
CSV=""
KEEP=""
TABLE=soak
TTL_ATTR=expires

usage() {
  sed -n '2,37p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit "${1:-0}"
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --seconds-per-step) STEP="$2"; shift 2 ;;
    --server) SERVER="$2"; shift 2 ;;
    --data-dir) DATA_DIR="$2"; shift 2 ;;
    --preload) PRELOAD="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --item-size) ITEM_SIZE="$2"; shift 2 ;;
    --expiring-fraction) EXPIRING="$2"; shift 2 ;;
    --no-stream) STREAM=0; shift ;;
    --expire-after) EXPIRE_AFTER="$2"; shift 2 ;;
    --gsi-query-fraction) GSI_QUERIES="$2"; shift 2 ;;
    --sample-every) SAMPLE_EVERY="$2"; shift 2 ;;
    --csv) CSV="$2"; shift 2 ;;
    --keep) KEEP="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; usage 2 ;;
  esac
done

case "$SERVER" in ddb|dynalite) ;; *) echo "soak.sh: --server ddb or dynalite" >&2; exit 2 ;; esac
STEPS="$(awk -v m="$MINUTES" -v s="$STEP" 'BEGIN { n = m * 60 / s; k = int(n); if (k < n) k++; print (k < 1 ? 1 : k) }')"
if [[ -n "$DATA_DIR" ]]; then
  [[ "$SERVER" == ddb ]] || { echo "soak.sh: --data-dir is for ddb" >&2; exit 2; }
  if [[ -d "$DATA_DIR" && -n "$(ls -A "$DATA_DIR")" ]]; then
    echo "soak.sh: --data-dir $DATA_DIR is not empty (runs start from an empty store)" >&2
    exit 2
  fi
  mkdir -p "$DATA_DIR"
  DATA_DIR="$(cd "$DATA_DIR" && pwd)"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ddb-soak.XXXXXX")"
SERVER_PID=""
CLIENT_PID=""

cleanup() {
  if [[ -n "$CLIENT_PID" ]]; then kill -TERM "$CLIENT_PID" 2>/dev/null || true; fi
  stop_server
  if [[ -n "$KEEP" ]]; then mkdir -p "$KEEP" && cp -r "$WORK"/. "$KEEP"/ || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Programs -------------------------------------------------------------------------------

missing=()
[[ -x "$LOADGEN" ]] || missing+=(loadgen)
[[ "$SERVER" == ddb && ! -x "$DDB_SERVER" ]] && missing+=(ddb-server)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "soak.sh: building ${missing[*]} in $BUILD_DIR" >&2
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${missing[@]}"
fi
DYNALITE_CLI="$BENCH_DIR/node_modules/dynalite/cli.js"
if [[ "$SERVER" == dynalite && ! -f "$DYNALITE_CLI" ]]; then
  echo "soak.sh: installing dynalite into $BENCH_DIR/node_modules" >&2
  npm install --prefix "$BENCH_DIR" --no-audit --no-fund >&2
fi

# --- Server ---------------------------------------------------------------------------------


LOG="$WORK/server.log"
if [[ "$SERVER" == ddb ]]; then
  storage=(--in-memory)
  [[ -z "$DATA_DIR" ]] || storage=(--data-dir "$DATA_DIR")
  "$DDB_SERVER" "${storage[@]}" --host 127.0.0.1 --port 0 --threads "$THREADS" \
    --log-level warn >"$LOG" 2>&1 &
  SERVER_PID=$!
  wait_for "$LOG" '^LISTENING [0-9]+' 20
  PORT="$(awk '/^LISTENING/ {print $2; exit}' "$LOG")"
else
  PORT="$(free_port)"
  node "$DYNALITE_CLI" --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
  SERVER_PID=$!
  wait_for "$LOG" 'listening at' 15
fi

# --- Sampling -------------------------------------------------------------------------------

# One /metrics sample: "pending lag ttl_deleted_total items", each "n/a" when absent. Gauges
# and counters are summed over their label sets (the lag: the maximum).
sample_metrics() {
  local text=""
  [[ "$SERVER" == ddb ]] && text="$(curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" || true)"
  awk -v table="$TABLE" '
    /^#/ { next }
    {
      name = $1; sub(/\{.*/, "", name); v = $NF + 0
      if (name == "ddb_gsi_pending_changes") { pending += v; hp = 1 }
      else if (name == "ddb_gsi_lag_seconds") { if (!hl || v > lag) lag = v; hl = 1 }
      else if (name == "ddb_ttl_deleted_items_total") { ttl += v; ht = 1 }
      else if (name == "ddb_table_items" && $1 == "ddb_table_items{table=\"" table "\"}") { items = v; hi = 1 }
    }
    END {
      printf "%s %s %s %s\n", hp ? pending : "n/a", hl ? lag : "n/a", ht ? ttl : "n/a", hi ? items : "n/a"
    }' <<<"$text"
}
rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$SERVER_PID/status" 2>/dev/null || echo n/a; }
disk_mb() { if [[ -n "$DATA_DIR" ]]; then du -sm "$DATA_DIR" 2>/dev/null | cut -f1; else echo -; fi; }

# --- Table and preload ----------------------------------------------------------------------

shape=(--table "$TABLE" --gsis 2 --lsi --ttl "$TTL_ATTR")
[[ "$STREAM" == 1 ]] && shape+=(--stream)
common=(--host 127.0.0.1 --port "$PORT" --connections "$CONNECTIONS" --item-size "$ITEM_SIZE"
        --no-progress)
cpu_model="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, Linux $(uname -r); load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the start"
if [[ "$SERVER" == ddb ]]; then
  echo "server: ddb $DDB_SERVER (checkout $commit), ${DATA_DIR:-in memory}, $THREADS threads," \
    "pid $SERVER_PID, 127.0.0.1:$PORT"
else
  echo "server: dynalite (in memory, Node.js), pid $SERVER_PID, 127.0.0.1:$PORT"
fi
echo "table: $TABLE, 2 GSIs + 1 LSI (ProjectionType ALL), $([[ "$STREAM" == 1 ]] && echo "stream NEW_AND_OLD_IMAGES" || echo "no stream"), TTL on" \
  "$TTL_ATTR; $PRELOAD items of ~$ITEM_SIZE B preloaded"
echo "load: L2 mix (40 % get, 30 % query (${GSI_QUERIES} of them on gsi1), 20 % put, 10 %" \
  "update), closed loop, $CONNECTIONS connections, $STEPS step(s) of ${STEP}s; $EXPIRING of" \
  "the new items expire within ${EXPIRE_AFTER}s"

echo "soak.sh: creating the table and preloading $PRELOAD items" >&2
preload_start=$SECONDS
timeout 1800 "$LOADGEN" "${common[@]}" "${shape[@]}" --expiring-fraction 0 \
  --preload "$PRELOAD" --workload none >"$WORK/preload.out" 2>&1 || {
  echo "soak.sh: creating or preloading the table failed:" >&2
  cat "$WORK/preload.out" >&2
  exit 1
}
grep -E '^(preload|loadgen: (Time|UpdateTime))' "$WORK/preload.out" | sed 's/^/  /'
echo "  (table created and preloaded in $((SECONDS - preload_start)) s)"

# --- Steps ----------------------------------------------------------------------------------

read -r _ _ ttl_before _ <<<"$(sample_metrics)"
STEPS_FILE="$WORK/steps.txt"
: >"$STEPS_FILE"
printf "\n%6s %8s %8s %8s %10s %8s %9s %8s %8s %7s %7s %8s %7s %8s\n" "t_s" "req/s" "p50_ms" \
  "p99_ms" "cpu_us/req" "rss_MB" "items" "backlog" "bl_max" "lag_s" "lag_max" "ttl_del" \
  "errors" "disk_MB"
ticks_per_sample="$(awk -v s="$SAMPLE_EVERY" 'BEGIN { t = int(s / 0.5); print (t < 1 ? 1 : t) }')"
started=$SECONDS
for step in $(seq "$STEPS"); do
  out="$WORK/step-$step.out"
  samples="$WORK/metrics-$step.txt"
  : >"$samples"
  timeout $((${STEP%.*} + 120)) "$LOADGEN" "${common[@]}" "${shape[@]}" \
    --expiring-fraction "$EXPIRING" --expire-after "$EXPIRE_AFTER" \
    --gsi-query-fraction "$GSI_QUERIES" --no-create --keyspace "$PRELOAD" --workload l2 \
    --duration "$STEP" --warmup 0 --server-pid "$SERVER_PID" --label "step$step" \
    >"$out" 2>&1 &
  CLIENT_PID=$!
  tick=0
  while kill -0 "$CLIENT_PID" 2>/dev/null; do
    sleep 0.5
    if ((++tick % ticks_per_sample == 0)); then sample_metrics >>"$samples"; fi
  done
  rc=0
  wait "$CLIENT_PID" || rc=$?
  CLIENT_PID=""
  ((rc == 0)) || echo "soak.sh: loadgen step $step exited with status $rc" >&2
  sample_metrics >>"$samples"
  rss="$(rss_mb)"
  disk="$(disk_mb)"
  elapsed=$((SECONDS - started))
  # One step line: from loadgen's op=all RESULT line and the samples (the last one is the end).
  line="$(awk -v t="$elapsed" -v rss="$rss" -v disk="$disk" -v ttl_before="$ttl_before" '
    function field(name,   i, kv) {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
      return ""
    }
    FILENAME == ARGV[1] {
      if ($1 == "RESULT" && field("op") == "all") {
        rps = field("rps"); p50 = field("p50_us") / 1000; p99 = field("p99_us") / 1000
        cpu = field("server_cpu_us_per_req"); err = field("errors"); have = 1
      }
      next
    }
    {
      pend = $1; lag = $2; ttl = $3; items = $4
      if (pend != "n/a" && (blmax == "" || pend + 0 > blmax + 0)) blmax = pend
      if (lag != "n/a" && (lagmax == "" || lag + 0 > lagmax + 0)) lagmax = lag
    }
    END {
      if (!have) { rps = 0; p50 = 0; p99 = 0; cpu = ""; err = "n/a" }
      del = (ttl == "n/a" || ttl_before == "n/a") ? "n/a" : ttl - ttl_before
      printf "t=%d rps=%s p50_ms=%.3f p99_ms=%.3f cpu=%s rss=%s items=%s backlog=%s bl_max=%s lag=%s lag_max=%s ttl_del=%s errors=%s disk=%s ttl_total=%s\n",
        t, rps, p50, p99, (cpu == "" ? "n/a" : cpu), rss, items, pend, (blmax == "" ? "n/a" : blmax),
        lag, (lagmax == "" ? "n/a" : lagmax), del, err, disk, ttl
    }' "$out" "$samples")"
  echo "$line" >>"$STEPS_FILE"
  ttl_before="$(sed 's/.*ttl_total=//' <<<"$line")"
  awk '
    function field(name,   i, kv) {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
      return ""
    }
    # A number in printf format w.f (f: "d" or a precision such as ".1f"), or n/a.
    function num(v, w, f) { return v == "n/a" || v == "" ? sprintf("%" w "s", "n/a") : sprintf("%" w f, v) }
    {
      printf "%6d %8.0f %8.3f %8.3f %s %s %s %s %s %s %s %s %7s %8s\n", field("t"),
        field("rps"), field("p50_ms"), field("p99_ms"), num(field("cpu"), 10, ".1f"),
        num(field("rss"), 8, ".1f"), num(field("items"), 9, "d"), num(field("backlog"), 8, "d"),
        num(field("bl_max"), 8, "d"), num(field("lag"), 7, ".3f"), num(field("lag_max"), 7, ".3f"),
        num(field("ttl_del"), 8, "d"), field("errors"), field("disk")
    }' <<<"$line"
done

# --- Summary --------------------------------------------------------------------------------

if [[ -n "$CSV" ]]; then
  awk 'BEGIN { print "t_s,rps,p50_ms,p99_ms,server_cpu_us_per_req,rss_mb,items,backlog,backlog_max,lag_s,lag_max_s,ttl_deleted,errors,disk_mb" }
    {
      n = split("t rps p50_ms p99_ms cpu rss items backlog bl_max lag lag_max ttl_del errors disk", names, " ")
      for (i = 1; i <= n; i++) {
        v = ""
        for (j = 1; j <= NF; j++) { split($j, kv, "="); if (kv[1] == names[i]) v = kv[2] }
        printf "%s%s", (i > 1 ? "," : ""), v
      }
      printf "\n"
    }' "$STEPS_FILE" >"$CSV"
  echo "soak.sh: wrote $CSV" >&2
fi

echo
awk -v steps="$STEPS" '
  function field(name,   i, kv) {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  function ratio(a, b) { return (a == "n/a" || b == "n/a" || b + 0 == 0) ? "n/a" : sprintf("%.2fx", a / b) }
  {
    n++
    if (n == 1) { rps1 = field("rps"); p991 = field("p99_ms"); rss1 = field("rss"); cpu1 = field("cpu") }
    rpsn = field("rps"); p99n = field("p99_ms"); rssn = field("rss"); cpun = field("cpu")
    b = field("bl_max"); if (b != "n/a" && (blmax == "" || b + 0 > blmax + 0)) blmax = b
    l = field("lag_max"); if (l != "n/a" && (lagmax == "" || l + 0 > lagmax + 0)) lagmax = l
    d = field("ttl_del"); if (d != "n/a") { ttl += d; hasttl = 1 }
    e = field("errors"); if (e != "n/a") errors += e
  }
  END {
    print "summary (" n " step(s); last step vs first):"
    printf "  throughput     %s req/s -> %s req/s (%s)\n", rps1, rpsn, ratio(rpsn, rps1)
    printf "  p99 latency    %.3f ms -> %.3f ms (%s)\n", p991, p99n, ratio(p99n, p991)
    printf "  server CPU     %s -> %s us/request (%s)\n", cpu1, cpun, ratio(cpun, cpu1)
    printf "  server RSS     %s MB -> %s MB (%s)\n", rss1, rssn, ratio(rssn, rss1)
    if (blmax == "" && lagmax == "") print "  backlog        n/a (no ddb_gsi_pending_changes, ddb_gsi_lag_seconds)"
    else printf "  backlog        max %s pending changes; max GSI lag %s s\n",
      (blmax == "" ? "n/a" : blmax), (lagmax == "" ? "n/a" : lagmax)
    printf "  TTL deletions  %s in all\n", (hasttl ? ttl : "n/a (no ddb_ttl_deleted_items_total)")
    printf "  errors         %d in all\n", errors
    if (n == 1) print "  (one step only: the ratios compare it with itself)"
  }' "$STEPS_FILE"
# Errors by type over all steps (from loadgen's "  error <op>: <type> x <n>" lines).
cat "$WORK"/step-*.out | awk '/^  error / { n = $NF; $NF = ""; sub(/^ *error /, ""); sub(/ x $/, ""); sum[$0] += n }
  END { for (k in sum) { if (!shown++) print "errors by type:"; printf "  %s x %d\n", k, sum[k] } }'
