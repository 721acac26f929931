#!/usr/bin/env bash
# Sanitizer runs: the unit tests and the wire tests under ASan+UBSan, and the concurrency
# tests (unit: transactions, GSI applier, streams, engine slots, spare threads, partition
# model; wire: concurrency, stress, engine threads, GSI steady state, transactions, streams)
# under TSan. Any report fails the run: UBSan aborts (-fno-sanitize-recover), ASan and TSan
# exit non-zero, and a server that does not exit 0 fails its wire test.
#   tools/sanitize.sh            # asan then tsan, everything (about 25 minutes on 2 cores)
#   tools/sanitize.sh asan       # ASan+UBSan: unit tests and all wire tests
#   tools/sanitize.sh tsan       # TSan: the concurrency tests
#   tools/sanitize.sh --smoke    # what CI runs (tools/test.sh): the fuzz smoke (tools/fuzz.sh 3),
#                                # then from the same clang ASan+UBSan build (build-fuzz) the unit
#                                # tests and a wire subset
# Builds into build-asan / build-tsan (gcc, -O1 -g, asserts on); --smoke into build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh

modes=()
smoke=0
for arg in "$@"; do
  case "$arg" in
    asan | tsan) modes+=("$arg") ;;
    --smoke) smoke=1 ;;
    *) echo "usage: tools/sanitize.sh [asan] [tsan] [--smoke]" >&2; exit 2 ;;
  esac
done
[[ ${#modes[@]} -eq 0 ]] && modes=(asan tsan)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

build() {  # build DIR SANITIZERS
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DDDB_SANITIZE="$2" -DDDB_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build "$1" -j"$(nproc)"
}

concurrency_unit='ScanHelpers|Transactions|GsiModes|GsiApplier|InlineAndApplier|Streams|EngineSlots|SpareThreads|PartitionModel|HttpServer|TtlEngine|Concurrent|GlobalTables|Replicator'
concurrency_wire=(tests/wire/test_concurrency.py tests/wire/test_concurrency_stress.py
                  tests/wire/test_engine_threads.py tests/wire/test_gsi_steady_state.py
                  tests/wire/test_streams.py)  # and test_transactions.py, apart (below)
# The CI subset: the request path end to end (items, expressions, queries, batches,
# transactions, PartiQL, streams, indexes, formats) in a few minutes.
smoke_wire=(tests/wire/test_items.py tests/wire/test_update_expression.py
            tests/wire/test_condition_expression.py tests/wire/test_query.py
            tests/wire/test_batch.py tests/wire/test_transactions.py tests/wire/test_partiql.py
            tests/wire/test_streams.py tests/wire/test_indexes.py
            tests/wire/test_format_fixtures.py tests/wire/test_protocol.py
            tests/wire/test_event_source_mappings.py)

if [[ $smoke -eq 1 ]]; then
  # One clang build serves the fuzz targets and the instrumented tests and server.
  BUILD_JOBS=$(nproc) tools/fuzz.sh 3
  cmake --build build-fuzz -j"$(nproc)"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  (cd build-fuzz && ctest --output-on-failure -j2 -E '^package')
  DDB_SERVER="$PWD/build-fuzz/ddb-server" /usr/bin/python3 -m pytest -q "${smoke_wire[@]}"
  exit 0
fi

for mode in "${modes[@]}"; do
  if [[ $mode == asan ]]; then
    build build-asan address,undefined
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # The package checks build examples/embedded against the installed, uninstrumented way.
    (cd build-asan && ctest --output-on-failure -j2 -E '^package')
    DDB_SERVER="$PWD/build-asan/ddb-server" /usr/bin/python3 -m pytest -q tests/wire
    unset ASAN_OPTIONS UBSAN_OPTIONS
  else
    build build-tsan thread
    # The suppressions cover only races TSan cannot see ordered inside uninstrumented RocksDB.
    tsan=halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/tools/tsan.supp
    # A 100-action transaction holds up to 100 stripe locks (taken in address order, so no
    # deadlock), and a run of replicated changes up to 512, past the 64 that TSan's deadlock
    # detector tracks (it fails a CHECK): those runs go without the detector, the rest keep it.
    many_locks='^TransactionsTest\.ActionCountLimits$|^ReplicatorTest\.|^GlobalTablesTest\.'
    export TSAN_OPTIONS=$tsan
    (cd build-tsan && ctest --output-on-failure -j2 -R "$concurrency_unit" -E "$many_locks")
    (cd build-tsan && TSAN_OPTIONS=$tsan:detect_deadlocks=0 ctest --output-on-failure -R "$many_locks")
    DDB_SERVER="$PWD/build-tsan/ddb-server" /usr/bin/python3 -m pytest -q "${concurrency_wire[@]}"
    TSAN_OPTIONS=$tsan:detect_deadlocks=0 DDB_SERVER="$PWD/build-tsan/ddb-server" \
      /usr/bin/python3 -m pytest -q tests/wire/test_transactions.py
    unset TSAN_OPTIONS
  fi
done
