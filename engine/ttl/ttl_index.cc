#include "engine/ttl/ttl_index.h"

#include "engine/storage/coding.h"

namespace ddb {
namespace {

constexpr std::string_view kEntryPrefix = "ttl/";
constexpr std::string_view kBuiltPrefix = "ttl_built/";
// Integer parts with more digits than this (>= 10^18 seconds) get no entry.
constexpr size_t kMaxExpiryDigits = 18;

}  // namespace

std::optional<uint64_t> TtlExpiryOfNumber(std::string_view normalised) {
  if (normalised.empty() || normalised.front() == '-') return std::nullopt;
  std::string_view integer = normalised.substr(0, normalised.find('.'));
  if (integer.empty() || integer.size() > kMaxExpiryDigits) return std::nullopt;
  uint64_t v = 0;
  for (char c : integer) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::optional<uint64_t> TtlExpiry(const Item& item, const std::string& attribute) {
  auto it = item.find(attribute);
  if (it == item.end() || it->second.type() != AttributeType::kN) return std::nullopt;
  return TtlExpiryOfNumber(it->second.scalar());
}

std::string TtlTablePrefix(uint32_t table_id) {
  std::string k(kEntryPrefix);
  PutFixed32BE(&k, table_id);
  return k;
}

std::string TtlTablePrefixEnd(uint32_t table_id) {
  // Table ids never reach 2^32 - 1 (key_codec.cc TablePrefixEnd), so this cannot wrap.
  return TtlTablePrefix(table_id + 1);
}

std::string TtlEntryKey(uint32_t table_id, uint64_t expiry, std::string_view item_key) {
  std::string k = TtlTablePrefix(table_id);
  PutFixed64BE(&k, expiry);
  k.append(item_key);
  return k;
}

bool ParseTtlEntryKey(std::string_view key, uint32_t* table_id, uint64_t* expiry,
                      std::string_view* item_key) {
  if (!key.starts_with(kEntryPrefix)) return false;
  key.remove_prefix(kEntryPrefix.size());
  uint64_t id = 0;
  if (!GetFixedBE(&key, 4, &id) || !GetFixedBE(&key, 8, expiry) || key.empty()) return false;
  *table_id = static_cast<uint32_t>(id);
  *item_key = key;
  return true;
}

std::string TtlBuiltKey(uint32_t table_id) {
  std::string k(kBuiltPrefix);
  PutFixed32BE(&k, table_id);
  return k;
}

std::optional<uint64_t> AddTtlEntryUpdates(uint32_t table_id, const std::string& attribute,
                                           std::string_view item_key,
                                           const std::optional<Item>& old_item,
                                           const std::optional<Item>& new_item,
                                           Storage::Batch* batch) {
  // (Plain integers rather than optionals: GCC 12 warns falsely about comparing those.)
  constexpr uint64_t kNo = UINT64_MAX;
  auto expiry_of = [&](const std::optional<Item>& item) {
    std::optional<uint64_t> e = item ? TtlExpiry(*item, attribute) : std::nullopt;
    return e.value_or(kNo);
  };
  const uint64_t before = expiry_of(old_item);
  const uint64_t after = expiry_of(new_item);
  if (before == after) return std::nullopt;
  if (before != kNo) batch->Delete(Cf::kMeta, TtlEntryKey(table_id, before, item_key));
  if (after == kNo) return std::nullopt;
  batch->Put(Cf::kMeta, TtlEntryKey(table_id, after, item_key), "");
  return after;
}

}  // namespace ddb
