#!/usr/bin/env bash
# Fails when an #include crosses a layer (server -> replication -> protocol -> engine):
#   include/ddb/  the public embedding API: only the standard library and itself
#   engine/   no Beast/Asio, no simdjson, nothing from protocol/ or server/
#   protocol/ no RocksDB, no Beast/Asio, nothing from server/; of the engine only the public
#             headers (include/ddb/), except that unit tests may use engine/*_testing.h
#   replication/ global tables across a server's Regions: no RocksDB, no simdjson, no
#             Beast/Asio; of the engine only include/ddb/; of protocol/ only handler.h
#   triggers/ event source mappings: no RocksDB, no simdjson; Beast/Asio for invoking; of the
#             engine only include/ddb/; of protocol/ only handler.h and lambda.h
#   server/   no RocksDB, no simdjson; of the engine only include/ddb/; of protocol/ only
#             handler.h and lambda.h; replication/, triggers/
#   cli/      the command line: like server/ (no RocksDB; of the engine only include/ddb/; of
#             protocol/ only handler.h), and nothing from server/
#   RocksDB headers only in engine/storage/storage.cc and memtable_skip_list.cc
#   util/     below every layer (compiled into the engine library): only the standard library,
#             OpenSSL and util/ itself (and GoogleTest in its unit tests); every layer may
#             include it
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() {  # dir, regex, what
  local hits
  hits=$(grep -rnE "^\s*#\s*include\s*[<\"]($2)" "$1" --include='*.h' --include='*.cc' || true)
  if [[ -n "$hits" ]]; then
    echo "layer violation in $1/ ($3):"; echo "$hits"; fail=1
  fi
}
check engine 'boost/beast|boost/asio|simdjson|protocol/|server/' 'engine must not see HTTP, JSON or upper layers'
check protocol 'rocksdb/|boost/beast|boost/asio|server/' 'protocol must not see RocksDB, HTTP or the server'
check server 'rocksdb/|simdjson' 'server sees only protocol/handler.h'
check replication 'rocksdb/|simdjson|boost/beast|boost/asio|server/' 'replication sees only include/ddb and protocol/handler.h'
check protocol 'replication/' 'protocol must not see replication'
check triggers 'rocksdb/|simdjson|server/|replication/' 'triggers see only include/ddb, protocol/handler.h and protocol/lambda.h'
check protocol 'triggers/' 'protocol must not see triggers'
check cli 'rocksdb/|server/' 'cli sees only include/ddb and protocol/handler.h'
hits=$(grep -rnE '^\s*#\s*include\s*"' include | grep -vE '#\s*include\s*"ddb/' || true)
if [[ -n "$hits" ]]; then echo "public headers include non-public ones:"; echo "$hits"; fail=1; fi
hits=$(grep -rnE '^\s*#\s*include\s*[<"](rocksdb|boost|simdjson|xxhash)' include || true)
if [[ -n "$hits" ]]; then echo "public headers include third-party headers:"; echo "$hits"; fail=1; fi
hits=$(grep -rnE '^\s*#\s*include\s*"engine/' protocol replication triggers server cli --include='*.h' --include='*.cc' |
       grep -vE '^protocol/[a-z_]+_test\.cc:[0-9]+:#include "engine/[a-z_]+_testing\.h"' || true)
if [[ -n "$hits" ]]; then echo "engine internals included above the engine (use include/ddb/):"; echo "$hits"; fail=1; fi
hits=$(grep -rlnE '^\s*#\s*include\s*[<"]rocksdb/' engine --include='*.h' --include='*.cc' | grep -vE '^engine/storage/(storage|memtable_skip_list)\.cc$' || true)
if [[ -n "$hits" ]]; then echo "RocksDB included outside engine/storage/storage.cc and memtable_skip_list.cc: $hits"; fail=1; fi
hits=$(grep -rnE '^\s*#\s*include\s*[<"]protocol/' replication triggers server cli --include='*.h' --include='*.cc' | grep -v 'protocol/handler.h' |
       grep -vE '^(triggers|server)/[a-z_/]+\.(h|cc):[0-9]+:#include "protocol/lambda\.h"' || true)
if [[ -n "$hits" ]]; then echo "server or cli includes protocol internals:"; echo "$hits"; fail=1; fi
hits=$(grep -rnE '^\s*#\s*include' util --include='*.h' --include='*.cc' |
       grep -vE '#\s*include\s*(<[a-z_0-9]+>|<openssl/[a-z_0-9]+\.h>|<emmintrin\.h>|"util/[a-z_0-9]+\.h")' |
       grep -vE '^util/[a-z_0-9]+_test\.cc:[0-9]+:#include <gtest/gtest\.h>' || true)
if [[ -n "$hits" ]]; then echo "util/ includes more than the standard library, OpenSSL and util/:"; echo "$hits"; fail=1; fi
[[ $fail -eq 0 ]] && echo "check_layers: ok"
exit $fail
