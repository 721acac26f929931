#!/usr/bin/env bash
# Fails unless libddb.so exports the embedding API and nothing but ddb:: symbols: no RocksDB,
# Boost, simdjson, xxHash or standard-library symbol leaks out of it.
set -euo pipefail
lib=${1:?usage: check_exports.sh path/to/libddb.so}
exported=$(nm -D --defined-only -C "$lib" | cut -d' ' -f3-)
count=$(grep -c . <<<"$exported" || true)
foreign=$(grep -vE '^(ddb::|typeinfo for ddb::|typeinfo name for ddb::|vtable for ddb::)' \
          <<<"$exported" | grep -v '^DDB_0$' || true)
fail=0
if [[ -n "$foreign" ]]; then
  echo "libddb.so exports symbols outside ddb::"; head -20 <<<"$foreign"; fail=1
fi
for want in 'ddb::Engine::Open(' 'ddb::Engine::PutItem(' 'ddb::Engine::Query(' 'ddb::DecodeItem(' \
            'ddb::AttributeValue::S(' 'ddb::ValidationErrors('; do
  if ! grep -qF "$want" <<<"$exported"; then echo "libddb.so does not export $want"; fail=1; fi
done
internal=$(grep -E '^ddb::(EngineImpl|Storage|Catalog|GsiApplier|PartitionModel)' <<<"$exported" || true)
if [[ -n "$internal" ]]; then
  echo "libddb.so exports engine internals:"; head -10 <<<"$internal"; fail=1
fi
[[ $fail -eq 0 ]] && echo "check_exports: ok ($count symbols, all ddb::)"
exit $fail
