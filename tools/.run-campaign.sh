#!/usr/bin/env bash
# The stateful fuzz campaign (tests/fuzz/stateful_fuzz.cc, docs/FUZZING.md): the target built
# with clang and coverage instrumentation but no sanitizers (build-campaign; about 10x the
# speed of the ASan build, which tools/fuzz.sh runs), run for SECONDS with JOBS processes on
# one corpus directory, then every input found checked once more under ASan+UBSan
# (tools/fuzz.sh's build-fuzz) so that a memory error the fast build would miss is not.
#
#   tools/stateful-campaign.sh [SECONDS (default 3600)] [JOBS (default 1)] [CORPUS_DIR]
#
# CORPUS_DIR (default /tmp/ddb-stateful-campaign) is kept between runs, so campaigns add up;
# it starts from tests/fuzz/corpus/stateful and tests/fuzz/campaign/stateful-corpus.tar.xz.
# Crash inputs go to CORPUS_DIR/../artifacts.
# In-memory inputs share one engine (DDB_FUZZ_REUSE_ENGINE=1, docs/FUZZING.md).
# Prints the executions, exec/s and crashes of each job; exits non-zero on any crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
jobs=${2:-1}
corpus=${3:-/tmp/ddb-stateful-campaign/corpus}
artifacts=$(dirname "$corpus")/artifacts
mkdir -p "$corpus" "$artifacts"
# Artifacts of earlier runs stay; only this run's are counted as its findings.
started=$(mktemp)
trap 'rm -f "$started"' EXIT
cp -n tests/fuzz/corpus/stateful/* "$corpus/" 2>/dev/null || true
# The corpus earlier campaigns grew, kept in the repo minimized (tools/stateful-corpus-pack.sh):
# a fresh machine starts where the last one stopped, not from the seeds.
archive=tests/fuzz/campaign/stateful-corpus.tar.xz
[[ -f $archive ]] && tar -xJf "$archive" -C "$corpus" --skip-old-files

build=build-campaign
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B $build -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DDDB_FUZZ=ON -DDDB_BUILD_BENCH=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
cmake --build $build -j"${BUILD_JOBS:-2}" --target stateful_fuzz >/dev/null

# The on-disk inputs' stores go to a tmpfs when there is one: the code paths are the same,
# and fsync under another job's disk load stalled them past the timeout (42 s in fsync).
scratch=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && scratch=/dev/shm
# -entropic=0: see tools/fuzz.sh. -timeout: one input over 25 s is a hang.
logs=()
pids=()
for j in $(seq 1 "$jobs"); do
  log=$(dirname "$corpus")/job$j.log
  logs+=("$log")
  # timeout(1): libFuzzer's -timeout handler runs in a SIGALRM handler that allocates, and
  # when the alarm lands inside malloc it deadlocks on the allocator's lock (seen 2026-12-05:
  # a unit slowed past 25 s by the machine's load, the job then asleep for good). The job
  # is killed a few minutes past its time instead, and counted from its last status line.
  TMPDIR="$scratch" DDB_FUZZ_REUSE_ENGINE=1 timeout --signal=KILL $((seconds + 300)) \
    $build/stateful_fuzz "$corpus" -entropic=0 -max_total_time="$seconds" -timeout=25 \
    -rss_limit_mb=3072 -max_len=16384 -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
total=0
for log in "${logs[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # A killed job printed no final stats: its last status line's count.
  [[ -n $execs ]] || execs=$(grep -ao '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  echo "$(basename "$log"): ${execs:-?} executions, ${rate:-?} exec/s"
  total=$((total + ${execs:-0}))
done
echo "total: $total executions; corpus $(ls "$corpus" | wc -l) inputs; findings $(find "$artifacts" -type f -newer "$started" | wc -l)"

# Every corpus input once more under ASan+UBSan.
if [[ ${SKIP_ASAN_REPLAY:-0} != 1 ]]; then
  tools/fuzz.sh 1 stateful >/dev/null  # builds build-fuzz if needed
  # Leaks at exit, as tools/fuzz.sh checks this target: libFuzzer's per-input check counts
  # the thread_local destructor records of threads an input started (docs/FUZZING.md).
  ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 build-fuzz/stateful_fuzz -runs=0 -detect_leaks=0 \
    "$corpus" \
    >"$(dirname "$corpus")/asan-replay.log" 2>&1 || { echo "ASan replay failed: see $(dirname "$corpus")/asan-replay.log"; rc=1; }
  echo "ASan replay of the corpus: $([[ $rc -eq 0 ]] && echo clean || echo FAILED)"
fi
[[ $rc -eq 0 && -z $(find "$artifacts" -type f -newer "$started") ]]
