#!/usr/bin/env bash
# bench/compare.sh: ddb-server, the floor (bench/floor_server: HTTP alone) and dynalite side by
# side, with the same client (bench/loadgen), data set and connections. Starts each server on
# 127.0.0.1 (a free port), one at a time, preloads it, runs each operation for a bounded time,
# stops it, and prints req/s, latency percentiles, server CPU per request (/proc/<pid>/stat)
# and the ratios ddb/floor and ddb/dynalite. Results are reported, never asserted.
#
# With --runs N (default 3) every server is started and preloaded afresh N times, the servers
# taking turns (run 1: ddb floor dynalite, run 2: ...), so that a change in the machine's
# background load hits all of them alike; the table shows the median of the N runs of each case
# and --csv writes one row per server/op (medians) for bench/plot_results.py.
#
#   bench/compare.sh [--duration S] [--warmup S] [--connections N] [--preload N] [--runs N]
#                    [--item-size B] [--threads N] [--client-threads N]
#                    [--ops "get put query update"]
#                    [--servers "ddb floor floor-beast dynalite ddb-base ddb-verify"]
#                    [--keys uniform|zipf] [--gsi] [--sign] [--csv FILE] [--raw FILE]
#
# Ops are loadgen workloads: get put update query scan batchwrite transact. An op with a
# suffix -gsi1 or -gsi2 (put-gsi1, update-gsi2, ...) runs that workload on a table with one or
# two GSIs (loadgen --gsis N: ProjectionType ALL, items carry the index keys, a quarter of the
# updates move the index entries); --gsi is short for --ops "put put-gsi1 put-gsi2 update
# update-gsi1 update-gsi2" and adds a summary of the GSI cost (ddb with N GSIs / ddb without,
# ddb/dynalite per case). Each shape has its own table (bench, bench_gsi1, bench_gsi2) in the
# same server; every table an op needs is preloaded after the server starts, before the first
# op, so all cases of a run see the same data. --raw FILE keeps every run's RESULT line (with
# run= and load1=, the 1-minute load average before the case).
# Server floor-beast is floor_server --http beast, the textbook Beast session (http::async_read,
# http::response and its serializer) that issue 34's targets are stated against; with it in
# --servers the table adds the ratio ddb/floor-beast.
# Server ddb-base is another ddb-server build, $DDB_BASE_SERVER (bench/feature_tax.sh sets it
# to the build before a change); with it in --servers the table adds the ratio ddb/base.
# Server ddb-verify is ddb-server --auth verify (signatures checked against a key in its
# environment); with it in --servers, or with --sign, loadgen signs every request for real
# (for every server, so that the client's cost is the same), and the table adds the ratio
# ddb-verify/ddb.
# Environment: DDB_SERVER (default build/ddb-server), LOADGEN (default build/loadgen),
# FLOOR_SERVER (default build/floor_server), BUILD_DIR (default build). Missing programs are
# built in BUILD_DIR; dynalite is installed into bench/node_modules with npm if missing.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/server_lib.sh
. "$BENCH_DIR/server_lib.sh"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
DDB_SERVER="${DDB_SERVER:-$BUILD_DIR/ddb-server}"
LOADGEN="${LOADGEN:-$BUILD_DIR/loadgen}"
FLOOR_SERVER="${FLOOR_SERVER:-$BUILD_DIR/floor_server}"

DURATION=10
WARMUP=2
CONNECTIONS=16
PRELOAD=100000
ITEM_SIZE=200
THREADS="$(nproc)"
CLIENT_THREADS=1
OPS="get put query update"
RUNS=3
CSV=""
RAW=""
SERVERS="ddb floor dynalite"
KEYS=uniform
SIGN=""

usage() {
  sed -n '2,39p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit "${1:-0}"
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --preload) PRELOAD="$2"; shift 2 ;;
    --item-size) ITEM_SIZE="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --client-threads) CLIENT_THREADS="$2"; shift 2 ;;
    --ops) OPS="$2"; shift 2 ;;
    --servers) SERVERS="$2"; shift 2 ;;
    --keys) KEYS="$2"; shift 2 ;;
    --gsi) OPS="put put-gsi1 put-gsi2 update update-gsi1 update-gsi2"; shift ;;
    --runs) RUNS="$2"; shift 2 ;;
    --csv) CSV="$2"; shift 2 ;;
    --raw) RAW="$2"; shift 2 ;;
    --sign) SIGN=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; usage 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ddb-compare.XXXXXX")"
SERVER_PID=""
CLIENT_PID=""
STARTS=0

# run_client <output> <seconds> <loadgen args...>: in the background and waited for, so that a
# signal to this script is handled at once rather than after the run.
run_client() {
  local out="$1" limit="$2"
  shift 2
  timeout "$limit" "$LOADGEN" "$@" >"$out" &
  CLIENT_PID=$!
  local rc=0
  wait "$CLIENT_PID" || rc=$?
  CLIENT_PID=""
  return "$rc"
}

cleanup() {
  if [[ -n "$CLIENT_PID" ]]; then kill -TERM "$CLIENT_PID" 2>/dev/null || true; fi
  stop_server 5
  # Keep what was measured even when the script stops early.
  if [[ -n "$RAW" && -s "$WORK/results.txt" ]]; then cp "$WORK/results.txt" "$RAW"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Programs -------------------------------------------------------------------------------

missing=()
[[ -x "$LOADGEN" ]] || missing+=(loadgen)
[[ " $SERVERS " == *" ddb "* && ! -x "$DDB_SERVER" ]] && missing+=(ddb-server)
[[ " $SERVERS " == *" floor"* && ! -x "$FLOOR_SERVER" ]] && missing+=(floor_server)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "compare.sh: building ${missing[*]} in $BUILD_DIR" >&2
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${missing[@]}"
fi

DYNALITE_CLI="$BENCH_DIR/node_modules/dynalite/cli.js"
if [[ " $SERVERS " == *" dynalite "* && ! -f "$DYNALITE_CLI" ]]; then
  if command -v npm >/dev/null; then
    echo "compare.sh: installing dynalite into $BENCH_DIR/node_modules" >&2
    npm install --prefix "$BENCH_DIR" --no-audit --no-fund >&2
  fi
  if [[ ! -f "$DYNALITE_CLI" ]]; then
    echo "compare.sh: dynalite unavailable (needs node and npm); skipping it" >&2
    SERVERS="${SERVERS//dynalite/}"
  fi
fi

# --- Servers --------------------------------------------------------------------------------


# start_server <name>: sets SERVER_PID and PORT.
start_server() {
  # A new log per start: wait_for must not see an earlier run's LISTENING line (the shell
  # truncates a reused file only once the child runs, after wait_for may have read it).
  local log="$WORK/$1-$((++STARTS)).log"
  rm -f "$log"
  case "$1" in
    ddb | ddb-base)
      local binary="$DDB_SERVER"
      [[ "$1" == ddb ]] || binary="${DDB_BASE_SERVER:?compare.sh: ddb-base needs DDB_BASE_SERVER}"
      "$binary" --in-memory --host 127.0.0.1 --port 0 --threads "$THREADS" \
        --log-level warn >"$log" 2>&1 &
      SERVER_PID=$!
      wait_for "$log" '^LISTENING [0-9]+' 10
      PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
      ;;
    ddb-verify)
      AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=benchsecret "$DDB_SERVER" --in-memory \
        --host 127.0.0.1 --port 0 --threads "$THREADS" --log-level warn --auth verify \
        >"$log" 2>&1 &
      SERVER_PID=$!
      wait_for "$log" '^LISTENING [0-9]+' 10
      PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
      ;;
    floor)
      "$FLOOR_SERVER" --host 127.0.0.1 --port 0 --threads "$THREADS" >"$log" 2>&1 &
      SERVER_PID=$!
      wait_for "$log" '^LISTENING [0-9]+' 10
      PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
      ;;
    floor-beast)
      "$FLOOR_SERVER" --host 127.0.0.1 --port 0 --threads "$THREADS" --http beast >"$log" 2>&1 &
      SERVER_PID=$!
      wait_for "$log" '^LISTENING [0-9]+' 10
      PORT="$(awk '/^LISTENING/ {print $2; exit}' "$log")"
      ;;
    dynalite)
      PORT="$(free_port)"
      # In memory (no --path). node itself, not a wrapper, so that SERVER_PID is the server.
      node "$DYNALITE_CLI" --host 127.0.0.1 --port "$PORT" >"$log" 2>&1 &
      SERVER_PID=$!
      wait_for "$log" 'listening at' 15
      ;;
  esac
}

# --- Runs -----------------------------------------------------------------------------------

common=(--host 127.0.0.1 --connections "$CONNECTIONS" --threads "$CLIENT_THREADS"
        --item-size "$ITEM_SIZE" --keys "$KEYS")
[[ " $SERVERS " == *" ddb-verify "* ]] && SIGN=1
[[ -z "$SIGN" ]] || common+=(--sign AKIDBENCH:benchsecret)
RESULTS="$WORK/results.txt"
: >"$RESULTS"
run_timeout=$(awk -v d="$DURATION" -v w="$WARMUP" 'BEGIN { printf "%d", d + w + 60 }')
load1() { cut -d' ' -f1 /proc/loadavg; }
load_first="$(cut -d' ' -f1-3 /proc/loadavg)"

# An op is a loadgen workload with an optional -gsi<N> suffix (the table shape).
op_workload() { echo "${1%-gsi[0-9]}"; }
op_gsis() { if [[ "$1" =~ -gsi([0-9])$ ]]; then echo "${BASH_REMATCH[1]}"; else echo 0; fi; }
shape_table() { if [[ "$1" == 0 ]]; then echo bench; else echo "bench_gsi$1"; fi; }
SHAPES=""
for op in $OPS; do
  g="$(op_gsis "$op")"
  if [[ "$g" -gt 2 ]]; then echo "compare.sh: $op: at most 2 GSIs" >&2; exit 2; fi
  [[ " $SHAPES " == *" $g "* ]] || SHAPES="$SHAPES $g"
done

for run in $(seq "$RUNS"); do
  for server in $SERVERS; do
    echo "== run $run/$RUNS $server: starting (load average $(load1))" >&2
    start_server "$server"
    for g in $SHAPES; do
      table="$(shape_table "$g")"
      echo "== $server: pid $SERVER_PID port $PORT; preloading $PRELOAD items into $table" \
        "($g GSIs)" >&2
      run_client "$WORK/$server-preload-$g.out" 900 "${common[@]}" --port "$PORT" \
        --workload none --preload "$PRELOAD" --label "$server" --table "$table" --gsis "$g" ||
        echo "compare.sh: preloading $table on $server failed" >&2
      grep '^preload' "$WORK/$server-preload-$g.out" | sed "s/^/   $server /" >&2 || true
    done
    for op in $OPS; do
      g="$(op_gsis "$op")"
      load_before="$(load1)"
      echo "== run $run/$RUNS $server: $op for ${DURATION}s (load average $load_before)" >&2
      run_client "$WORK/$server-$op.out" "$run_timeout" "${common[@]}" --port "$PORT" \
        --no-create --keyspace "$PRELOAD" --workload "$(op_workload "$op")" \
        --table "$(shape_table "$g")" --gsis "$g" --duration "$DURATION" \
        --warmup "$WARMUP" --server-pid "$SERVER_PID" --label "$server" ||
        echo "compare.sh: loadgen $op against $server failed" >&2
      # The op of a GSI case is named after its shape (op=PutItem-gsi1), so that the medians
      # and the table keep it apart from the same op without GSIs.
      suffix=""
      [[ "$g" == 0 ]] || suffix="-gsi$g"
      grep '^RESULT' "$WORK/$server-$op.out" | grep -v ' op=all ' |
        sed -e "s/ op=\([A-Za-z]*\)/ op=\1$suffix/" -e "s/\$/ run=$run load1=$load_before/" \
          >>"$RESULTS" || true
    done
    stop_server 5
  done
done

# --- Report ---------------------------------------------------------------------------------

# Medians over the runs: one line per server/op, in the RESULT format (plus runs=, rps_runs=
# with every run's req/s, and load1= as the median load average before the case).
MEDIANS="$WORK/medians.txt"
awk '
  function field(name,   i, kv) {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  function median(key,   n, i, j, t, a) {
    n = split(vals[key], a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return ""
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  BEGIN { nf = split("ok errors rps p50_us p90_us p99_us max_us server_cpu_us_per_req client_cpu_us_per_req load1", names, " ") }
  {
    k = field("label") SUBSEP field("op")
    if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    runs[k]++
    for (f = 1; f <= nf; f++) { v = field(names[f]); if (v != "") vals[k, names[f]] = vals[k, names[f]] " " v }
    rpsl[k] = rpsl[k] (rpsl[k] == "" ? "" : ";") sprintf("%.0f", field("rps"))
  }
  END {
    for (i = 1; i <= nk; i++) {
      k = order[i]; split(k, p, SUBSEP)
      line = "RESULT label=" p[1] " op=" p[2] " runs=" runs[k]
      for (f = 1; f <= nf; f++) { m = median(k SUBSEP names[f]); if (m != "") line = line " " names[f] "=" m }
      print line " rps_runs=" rpsl[k]
    }
  }' "$RESULTS" >"$MEDIANS"

if [[ -n "$RAW" ]]; then cp "$RESULTS" "$RAW"; fi
if [[ -n "$CSV" ]]; then
  awk -v machine="$(nproc) CPUs $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" '
    function field(name,   i, kv) {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
      return ""
    }
    BEGIN { print "server,op,runs,rps,p50_ms,p90_ms,p99_ms,max_ms,server_cpu_us_per_req,client_cpu_us_per_req,errors,load1,rps_runs" }
    {
      ms = "p50_us p90_us p99_us max_us"; split(ms, m, " ")
      printf "%s,%s,%s,%.1f", field("label"), field("op"), field("runs"), field("rps")
      for (i = 1; i <= 4; i++) printf ",%.3f", (field("ok") + 0 > 0 ? field(m[i]) / 1000 : 0)
      printf ",%s,%s,%s,%s,%s\n", field("server_cpu_us_per_req"), field("client_cpu_us_per_req"),
        field("errors"), field("load1"), field("rps_runs")
    }' "$MEDIANS" >"$CSV"
  echo "compare.sh: wrote $CSV" >&2
fi

cpu_model="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "machine: $(nproc) CPUs, ${cpu_model:-unknown CPU}, Linux $(uname -r); load average" \
  "$load_first at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "ddb: $DDB_SERVER (checkout $commit)"
[[ " $SERVERS " != *" ddb-base "* ]] || echo "ddb-base: $DDB_BASE_SERVER"
echo "run: median of $RUNS run(s), ${DURATION}s per case after ${WARMUP}s warmup," \
  "$CONNECTIONS connections, $CLIENT_THREADS client thread(s), server threads $THREADS" \
  "(dynalite: 1, Node.js), $PRELOAD items of ~$ITEM_SIZE B preloaded, $KEYS keys"
echo

awk -v servers="$SERVERS" '
  function field(name,   i, kv) {
    for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  function ratio(a, b) { return (b == "" || a == "" || b + 0 == 0) ? "-" : sprintf(a / b < 0.1 ? "%.2gx" : "%.2fx", a / b) }
  {
    s = field("label"); op = field("op")
    if (!(op in seen)) { seen[op] = 1; order[++nops] = op }
    rps[s, op] = field("rps"); p50[s, op] = field("p50_us") / 1000
    p90[s, op] = field("p90_us") / 1000; p99[s, op] = field("p99_us") / 1000
    mx[s, op] = field("max_us") / 1000; cpu[s, op] = field("server_cpu_us_per_req")
    ccpu[s, op] = field("client_cpu_us_per_req"); ld[s, op] = field("load1")
    err[s, op] = field("errors"); have[s, op] = 1; ok[s, op] = field("ok")
  }
  END {
    n = split(servers, sv, " ")
    printf "%-16s %-13s", "op", "metric"
    for (i = 1; i <= n; i++) printf " %11s", sv[i]
    printf " %11s %13s", "ddb/floor", "ddb/dynalite"
    beast = index(" " servers " ", " floor-beast ") > 0
    if (beast) printf " %12s", "ddb/f-beast"
    based = index(" " servers " ", " ddb-base ") > 0
    if (based) printf " %11s", "ddb/base"
    verify = index(" " servers " ", " ddb-verify ") > 0
    if (verify) printf " %11s", "verify/ddb"
    printf "\n"
    nm = split("req/s p50_ms p90_ms p99_ms max_ms cpu_us/req client_us/req errors load1", metrics, " ")
    for (o = 1; o <= nops; o++) {
      op = order[o]
      for (m = 1; m <= nm; m++) {
        metric = metrics[m]
        printf "%-16s %-13s", (m == 1 ? op : ""), metric
        for (i = 1; i <= n; i++) {
          s = sv[i]; v = ""
          if ((s, op) in have) {
            if (metric == "req/s") v = rps[s, op]
            else if (metric == "p50_ms") v = p50[s, op]
            else if (metric == "p90_ms") v = p90[s, op]
            else if (metric == "p99_ms") v = p99[s, op]
            else if (metric == "max_ms") v = mx[s, op]
            else if (metric == "cpu_us/req") v = cpu[s, op]
            else if (metric == "client_us/req") v = ccpu[s, op]
            else if (metric == "load1") v = ld[s, op]
            else v = err[s, op]
          }
          # Nothing succeeded (e.g. the server lacks the operation): no latency, no rate.
          if (ok[s, op] == 0 && metric !~ /errors|cpu_us|client_us|load1/) v = ""
          val[s] = v
          if (v == "") printf " %11s", "-"
          else if (metric == "errors") printf " %11d", v
          else if (metric == "req/s") printf " %11.0f", v
          else if (metric ~ /cpu_us|client_us|load1/) printf " %11.1f", v
          else printf " %11.3f", v
        }
        if (metric == "errors" || metric == "load1") printf "\n"
        else {
          printf " %11s %13s", ratio(val["ddb"], val["floor"]), ratio(val["ddb"], val["dynalite"])
          if (beast) printf " %12s", ratio(val["ddb"], val["floor-beast"])
          if (based) printf " %11s", ratio(val["ddb"], val["ddb-base"])
          if (verify) printf " %11s", ratio(val["ddb-verify"], val["ddb"])
          printf "\n"
        }
      }
    }
  }' "$MEDIANS"

# GSI cost: each op that ran on tables with GSIs, against the same op without them (the floor
# is left out: it answers {} whatever the table).
if grep -q ' op=[A-Za-z]*-gsi[0-9]' "$MEDIANS"; then
  echo
  echo "GSI cost (medians): the same load on a table with 1 or 2 GSIs (ProjectionType ALL) and"
  echo "without; 'N GSI/none' is ddb (or dynalite) with N GSIs / the same server without GSIs"
  awk -v servers="$SERVERS" '
    function field(name,   i, kv) {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
      return ""
    }
    function ratio(a, b) { return (b == "" || a == "" || b + 0 == 0) ? "-" : sprintf(a / b < 0.1 ? "%.2gx" : "%.2fx", a / b) }
    function fmt(metric, v) {
      if (v == "") return sprintf(" %10s", "-")
      if (metric == "req/s") return sprintf(" %10.0f", v)
      if (metric == "p99_ms") return sprintf(" %10.3f", v)
      return sprintf(" %10.1f", v)
    }
    {
      s = field("label"); op = field("op"); g = 0; base = op
      if (match(op, /-gsi[0-9]$/)) { g = substr(op, RSTART + 4, 1); base = substr(op, 1, RSTART - 1) }
      if (!(base in seen)) { seen[base] = 1; order[++nb] = base }
      if (g > 0) hasgsi[base] = 1
      if (field("ok") + 0 == 0) next
      v[s, base, g, "req/s"] = field("rps")
      v[s, base, g, "p99_ms"] = field("p99_us") / 1000
      v[s, base, g, "cpu_us/req"] = field("server_cpu_us_per_req")
    }
    END {
      printf "%-12s %-13s %-11s %10s %10s %10s %11s %11s\n", "op", "server", "metric", "no GSI",
        "1 GSI", "2 GSIs", "1 GSI/none", "2 GSIs/none"
      n = split(servers, sv, " ")
      nm = split("req/s p99_ms cpu_us/req", metrics, " ")
      for (b = 1; b <= nb; b++) {
        base = order[b]
        if (!(base in hasgsi)) continue
        first = 1
        for (i = 1; i <= n; i++) {
          s = sv[i]
          if (s ~ /^floor/) continue
          for (m = 1; m <= nm; m++) {
            metric = metrics[m]
            printf "%-12s %-13s %-11s", (first ? base : ""), (m == 1 ? s : ""), metric
            first = 0
            for (g = 0; g <= 2; g++) printf "%s", fmt(metric, v[s, base, g, metric])
            printf " %11s %11s\n", ratio(v[s, base, 1, metric], v[s, base, 0, metric]),
              ratio(v[s, base, 2, metric], v[s, base, 0, metric])
          }
        }
        if (index(" " servers " ", " ddb ") && index(" " servers " ", " dynalite ")) {
          printf "%-12s %-13s %-11s", "", "ddb/dynalite", "req/s"
          for (g = 0; g <= 2; g++)
            printf " %10s", ratio(v["ddb", base, g, "req/s"], v["dynalite", base, g, "req/s"])
          printf "\n"
        }
      }
    }' "$MEDIANS"
fi

echo
echo "Medians of $RUNS run(s) per case. req/s counts successful responses; latencies are of"
echo "successful responses; cpu_us/req is the server's user+system CPU time over the measured"
echo "phase divided by its responses; client_us/req is loadgen's own (if it nears 1e6 / req/s,"
echo "the client is the bottleneck); load1 is the 1-minute load average before the case (this"
echo "benchmark's own processes included: background load adds to ~2-3)."
