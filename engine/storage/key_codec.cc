#include "engine/storage/key_codec.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ddb/number.h"
#include "engine/storage/coding.h"

namespace ddb {

uint64_t PartitionToken(std::string_view pk_bytes) {
  return XXH3_64bits(pk_bytes.data(), pk_bytes.size());
}

std::string TablePrefix(uint32_t table_id) {
  std::string p;
  PutFixed32BE(&p, table_id);
  return p;
}

std::string TablePrefixEnd(uint32_t table_id) {
  // Table ids are issued from 1 upwards and never reach 2^32 - 1, so this cannot wrap.
  return TablePrefix(table_id + 1);
}

void AppendSortKey(std::string* dst, const AttributeValue& value) {
  if (value.type() == AttributeType::kN) {
    AppendNumberKey(dst, value.scalar());
  } else {
    dst->append(value.scalar());
  }
}

bool DecodeSortKey(std::string_view input, AttributeType type, AttributeValue* value) {
  switch (type) {
    case AttributeType::kS:
      *value = AttributeValue::S(std::string(input));
      return true;
    case AttributeType::kB:
      *value = AttributeValue::B(std::string(input));
      return true;
    case AttributeType::kN: {
      std::string n;
      if (!ConsumeNumberKey(&input, &n) || !input.empty()) return false;
      *value = AttributeValue::N(std::move(n));
      return true;
    }
    default:
      return false;
  }
}

std::string EncodeItemKey(uint32_t table_id, const AttributeValue& pk, const AttributeValue* sk) {
  const std::string& pk_bytes = KeyBytes(pk);
  std::string key;
  key.reserve(4 + 8 + 2 + pk_bytes.size() + (sk ? sk->scalar().size() + 2 : 0));
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, PartitionToken(pk_bytes));
  PutFixed16BE(&key, static_cast<uint16_t>(pk_bytes.size()));
  key.append(pk_bytes);
  if (sk != nullptr) AppendSortKey(&key, *sk);
  return key;
}

}  // namespace ddb
