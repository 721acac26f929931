#!/usr/bin/env bash
# Fails when an #include crosses a layer (server -> protocol -> engine):
#   engine/   no Beast/Asio, no simdjson, nothing from protocol/ or server/
#   protocol/ no RocksDB, no Beast/Asio, nothing from server/
#   server/   no RocksDB, no simdjson; of protocol/ only handler.h
#   RocksDB headers only in engine/storage.cc
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
hits=$(grep -rlnE '^\s*#\s*include\s*[<"]rocksdb/' engine --include='*.h' --include='*.cc' | grep -v '^engine/storage.cc$' || true)
if [[ -n "$hits" ]]; then echo "RocksDB included outside engine/storage.cc: $hits"; fail=1; fi
hits=$(grep -rnE '^\s*#\s*include\s*[<"]protocol/' server --include='*.h' --include='*.cc' | grep -v 'protocol/handler.h' || true)
if [[ -n "$hits" ]]; then echo "server includes protocol internals:"; echo "$hits"; fail=1; fi
[[ $fail -eq 0 ]] && echo "check_layers: ok"
exit $fail
