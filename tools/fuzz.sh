#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, docs/FUZZING.md) into build-fuzz with clang,
# ASan and UBSan, and runs each for SECONDS (default 60) on a temporary copy of its seed
# corpus. One line per target (executions, exec/s, crash artifacts), then "N passed, N failed";
# exits non-zero when a target crashed, leaked, timed out or tripped a sanitizer.
#
#   tools/fuzz.sh [--merge] [--no-build] [SECONDS] [TARGET...]
#
# --merge    add what the run found that covers something new to tests/fuzz/corpus/<target>
#            (libFuzzer -merge=1); without it the repository's corpus is never written
# --no-build use build-fuzz as it is
# TARGET     e.g. request expression (default: every tests/fuzz/*_fuzz.cc)
# FUZZ_JOBS=N runs N targets at a time (default 1: the machine is shared).
# A few seconds per target (tools/fuzz.sh 3) is a smoke test for CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

merge=0
build=1
seconds=60
targets=()
for arg in "$@"; do
  case "$arg" in
    --merge) merge=1 ;;
    --no-build) build=0 ;;
    --help | -h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) seconds=$arg ;;
    *) targets+=("$arg") ;;
  esac
done
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in tests/fuzz/*_fuzz.cc; do
    n=$(basename "$f" .cc)
    targets+=("${n%_fuzz}")
  done
fi

build_dir=$root/build-fuzz
# -O1 -g1 (line tables): the sanitizers' reports keep file and line, and the build (which CI
# makes from scratch, tools/sanitize.sh --smoke) takes much less time than at -O2 -g.
if [[ $build -eq 1 ]]; then
  if [[ ! -f $build_dir/CMakeCache.txt ]]; then
    cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DDDB_BUILD_BENCH=OFF \
      -DDDB_SANITIZE=address,undefined -DDDB_FUZZ=ON \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
  fi
  cmake --build "$build_dir" -j"${BUILD_JOBS:-1}" --target ddb_fuzz_targets >/dev/null
fi

work=$(mktemp -d /tmp/ddb-fuzz.XXXXXX)
echo "fuzz: ${seconds}s per target; corpora, logs and crash artifacts in $work"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 bin=$build_dir/${1}_fuzz
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  if [[ -d tests/fuzz/corpus/$t ]]; then cp -r "tests/fuzz/corpus/$t/." "$work/corpus/$t/"; fi
  local rc=0 extra=()
  # The request target's inputs start engine threads (a TTL backfill, say) that are still
  # running when libFuzzer checks for leaks after the input, and LeakSanitizer then reports
  # what they hold (it does not reproduce on the input alone). It is checked for leaks once,
  # at exit, when its engine is closed and every thread joined. So is the stateful target: it
  # closes its engine after every input, but an on-disk store's RocksDB threads register
  # thread_local destructors that outlive the input.
  if [[ $t == request || $t == stateful ]]; then extra+=(-detect_leaks=0); fi
  # A stateful input touches tens of thousands of coverage features; libFuzzer's entropic
  # schedule updates a frequency per feature per run, which took 77 % of the time (perf).
  if [[ $t == stateful ]]; then extra+=(-entropic=0); fi
  # -timeout: one input taking over 25 s is a hang; -rss_limit_mb: a runaway is a failure.
  "$bin" "$work/corpus/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 \
    -max_len=16384 -artifact_prefix="$work/artifacts/$t/" -print_final_stats=1 "${extra[@]}" \
    >"$work/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$t.rc"
}

running=0
for t in "${targets[@]}"; do
  if [[ ! -x $build_dir/${t}_fuzz ]]; then
    echo "fuzz: no target $t (tests/fuzz/${t}_fuzz.cc)" >&2
    exit 2
  fi
  run_one "$t" &
  running=$((running + 1))
  if [[ $running -ge ${FUZZ_JOBS:-1} ]]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

passed=0
failed=0
total=0
for t in "${targets[@]}"; do
  log=$work/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  artifacts=$(find "$work/artifacts/$t" -type f | wc -l)
  rc=$(cat "$work/$t.rc")
  status=ok
  if [[ $rc -ne 0 || $artifacts -ne 0 ]] || grep -q -e 'ERROR: AddressSanitizer' \
    -e 'ERROR: LeakSanitizer' -e 'runtime error:' -e 'ERROR: libFuzzer' "$log"; then
    status="FAILED (exit $rc; see $log)"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  total=$((total + ${execs:-0}))
  printf '%-22s %12s execs %8s exec/s %3d crashes  %s\n' "$t" "${execs:-?}" "${rate:-?}" \
    "$artifacts" "$status"
  for a in "$work/artifacts/$t"/*; do [[ -f $a ]] && echo "    artifact: $a"; done
  if [[ $merge -eq 1 && $status == ok ]]; then
    mkdir -p "tests/fuzz/corpus/$t"
    "$build_dir/${t}_fuzz" -merge=1 -max_len=16384 "tests/fuzz/corpus/$t" "$work/corpus/$t" \
      >>"$work/$t.merge.log" 2>&1
  fi
done
echo "total: $total executions"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
