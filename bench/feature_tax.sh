#!/usr/bin/env bash
# bench/feature_tax.sh: what a change costs (or saves) the request path, measured before and
# after it on this machine, so that a feature's tax is seen when it lands. Run it before a
# change to the engine, protocol or server is resolved.
#
# The base is ddb-server built at --base REV (default HEAD~1) in a git worktree under
# $TMPDIR/ddb-tax/ (kept and reused: the second run against the same revision builds nothing;
# ccache makes the first cheap), or a ddb-server given with --base-server. The new one is
# build/ddb-server (built if missing). For each of them:
#  1. instructions per request under callgrind (bench/profile_callgrind.sh, in memory):
#     deterministic, so a busy machine still gives a true figure, but user space only;
#  2. throughput side by side (bench/compare.sh --servers "ddb ddb-base"), the two servers
#     started afresh and taking turns for --runs runs: req/s and server CPU per request,
#     which include the kernel's share.
# Then one table: per op, instructions/request, req/s and CPU µs/request of base and new, and
# new/base. Results are reported, never asserted.
#
#   bench/feature_tax.sh [--base REV | --base-server PATH] [--ops "get put update put-gsi1"]
#                        [--preload N] [--requests N] [--runs N] [--duration S]
#                        [--no-callgrind] [--no-throughput]
#
# Ops are loadgen workloads, optionally with a -gsi1/-gsi2 suffix (compare.sh). Defaults:
# --preload 100000, --requests 10000 (callgrind), --runs 3, --duration 6.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BASE_REV="HEAD~1"
BASE_SERVER=""
OPS="get put update put-gsi1"
PRELOAD=100000
REQUESTS=10000
RUNS=3
DURATION=6
CALLGRIND=1
THROUGHPUT=1

while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) BASE_REV="$2"; shift 2 ;;
    --base-server) BASE_SERVER="$2"; shift 2 ;;
    --ops) OPS="$2"; shift 2 ;;
    --preload) PRELOAD="$2"; shift 2 ;;
    --requests) REQUESTS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --no-callgrind) CALLGRIND=""; shift ;;
    --no-throughput) THROUGHPUT=""; shift ;;
    -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "feature_tax.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

NEW_SERVER="${DDB_SERVER:-$ROOT/build/ddb-server}"
LOADGEN="${LOADGEN:-$ROOT/build/loadgen}"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -x "$NEW_SERVER" || ! -x "$LOADGEN" ]]; then
  cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build "$ROOT/build" -j"$(nproc)" --target ddb-server loadgen >&2
fi

# The base build: a worktree of BASE_REV (detached), Release, ddb-server only.
if [[ -z "$BASE_SERVER" ]]; then
  sha="$(git -C "$ROOT" rev-parse --verify "$BASE_REV^{commit}")"
  tree="${TMPDIR:-/tmp}/ddb-tax/$sha"
  if [[ ! -d "$tree/.git" && ! -f "$tree/.git" ]]; then
    mkdir -p "$(dirname "$tree")"
    git -C "$ROOT" worktree add --detach "$tree" "$sha" >&2
  fi
  echo "feature_tax.sh: building ddb-server at $BASE_REV ($sha) in $tree/build" >&2
  cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build "$tree/build" -j"$(nproc)" --target ddb-server >&2
  BASE_SERVER="$tree/build/ddb-server"
  BASE_LABEL="$BASE_REV ($(git -C "$ROOT" rev-parse --short "$sha"))"
else
  BASE_LABEL="$BASE_SERVER"
fi
[[ -x "$BASE_SERVER" ]] || { echo "feature_tax.sh: no base server at $BASE_SERVER" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ddb-feature-tax.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
: >"$WORK/instructions.txt"
: >"$WORK/raw.txt"

# instructions <server> <label>: "op label instructions_per_request" lines.
instructions() {
  DDB_SERVER="$1" LOADGEN="$LOADGEN" "$BENCH_DIR/profile_callgrind.sh" --ops "$OPS" \
    --preload "$PRELOAD" --requests "$REQUESTS" --out "$WORK/callgrind-$2" --top 1 |
    sed -n "s/^== \([^:]*\): .* (\([0-9]*\) per request)$/\1 $2 \2/p" >>"$WORK/instructions.txt"
}

if [[ -n "$CALLGRIND" ]]; then
  echo "feature_tax.sh: callgrind, $REQUESTS requests per op after $PRELOAD items" >&2
  instructions "$BASE_SERVER" base
  instructions "$NEW_SERVER" new
fi

if [[ -n "$THROUGHPUT" ]]; then
  echo "feature_tax.sh: throughput, $RUNS run(s) of ${DURATION}s per op" >&2
  DDB_SERVER="$NEW_SERVER" DDB_BASE_SERVER="$BASE_SERVER" LOADGEN="$LOADGEN" \
    "$BENCH_DIR/compare.sh" --servers "ddb ddb-base" --ops "$OPS" --preload "$PRELOAD" \
    --runs "$RUNS" --duration "$DURATION" --warmup 1 --raw "$WORK/raw.txt" >"$WORK/compare.txt"
fi

echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "base: $BASE_LABEL"
echo "new:  $NEW_SERVER (checkout $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ', with uncommitted changes'))"
echo
# Medians of the runs' req/s and CPU per request, per server and op (compare.sh's RESULT lines;
# a GSI case's op is named like PutItem-gsi1, matched to the loadgen op by its position).
awk -v ops="$OPS" '
  function field(line, name,   n, i, f, kv) {
    n = split(line, f, " ")
    for (i = 1; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return ""
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.3f", a / b) }
  function show(v, fmt) { return v == "" ? "-" : sprintf(fmt, v) }
  FILENAME ~ /instructions/ { instr[$1, $2] = $3; next }
  /^RESULT/ {
    s = field($0, "label"); op = field($0, "op")
    if (!(op in seen_op)) { seen_op[op] = 1; names[++nn] = op }
    rps[s, op] = rps[s, op] " " field($0, "rps")
    cpu[s, op] = cpu[s, op] " " field($0, "server_cpu_us_per_req")
  }
  END {
    printf "%-12s %12s %12s %9s %10s %10s %9s %9s %9s %9s\n", "op", "instr base", "instr new",
      "new/base", "req/s base", "req/s new", "new/base", "cpu base", "cpu new", "new/base"
    n = split(ops, o, " ")
    for (i = 1; i <= n; i++) {
      op = o[i]; name = names[i]
      ib = instr[op, "base"]; in_ = instr[op, "new"]
      rb = median(rps["ddb-base", name]); rn = median(rps["ddb", name])
      cb = median(cpu["ddb-base", name]); cn = median(cpu["ddb", name])
      printf "%-12s %12s %12s %9s %10s %10s %9s %9s %9s %9s\n", op, show(ib, "%d"), show(in_, "%d"),
        ratio(in_, ib), show(rb, "%.0f"), show(rn, "%.0f"), ratio(rn, rb), show(cb, "%.1f"),
        show(cn, "%.1f"), ratio(cn, cb)
    }
  }' "$WORK/instructions.txt" "$WORK/raw.txt" 2>/dev/null ||
  true
echo
echo "instr: callgrind's user-space instructions per request ($REQUESTS requests after $PRELOAD"
echo "items, in memory); req/s and cpu (server µs per request, user+system): medians of $RUNS"
echo "compare.sh run(s) of ${DURATION}s, the two servers taking turns. new/base < 1 in instr or"
echo "cpu (> 1 in req/s) means the change made requests cheaper."
