// The engine's decoders on arbitrary bytes (what a damaged store or a forged token would
// give them), and where a decode succeeds, the encoder's agreement with it. Byte 0 picks the
// decoder; the rest is its input. Round trips are checked where the format is canonical
// (one encoding per value): sort keys, number keys, TTL entry keys, sequence numbers, stream
// labels. The stored item form is not (a name may come twice in bytes EncodeItem never
// writes), so there decode -> encode -> decode must be stable, and the size walk and the JSON
// written from the bytes must agree with the item where the bytes are in EncodeItem's form.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/number.h"
#include "ddb/stored_item.h"
#include "engine/change_log.h"
#include "engine/storage/key_codec.h"
#include "engine/streams/streams.h"
#include "engine/ttl/ttl_index.h"
#include "protocol/attribute_value_json.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/value_invariants.h"
#include "util/base64.h"

namespace {

using ddb::AttributeType;
using ddb::AttributeValue;
using ddb::Item;

void StoredItem(std::string_view in) {
  Item item;
  const bool decoded = ddb::DecodeItem(in, &item);
  const std::optional<size_t> size = ddb::EncodedItemSize(in);
  DDB_FUZZ_CHECK(decoded == size.has_value());
  if (!decoded) return;
  ddb::protocol::JsonWriter from_encoded;
  DDB_FUZZ_CHECK(ddb::protocol::WriteEncodedItem(from_encoded, in));
  std::string again;
  ddb::EncodeItem(item, &again);
  Item item_again;
  DDB_FUZZ_CHECK(ddb::DecodeItem(again, &item_again) && item_again == item);
  // Bytes EncodeItem would not write (a name twice, which the Item keeps once) are read
  // without complaint but may size and print differently; in the form it writes they agree.
  if (again != in) return;
  DDB_FUZZ_CHECK(*size == ddb::ItemSize(item));
  ddb::protocol::JsonWriter from_item;
  ddb::protocol::WriteAttributeMap(from_item, item);
  DDB_FUZZ_CHECK(from_item.Take() == from_encoded.Take());
}

void SortKey(std::string_view in) {
  if (in.empty()) return;
  static constexpr AttributeType kTypes[] = {AttributeType::kS, AttributeType::kN,
                                             AttributeType::kB};
  const AttributeType type = kTypes[static_cast<uint8_t>(in[0]) % 3];
  in.remove_prefix(1);
  AttributeValue value;
  if (!ddb::DecodeSortKey(in, type, &value)) return;
  DDB_FUZZ_CHECK(value.type() == type);
  DDB_FUZZ_CHECK(ddb::fuzz::HoldsInvariants(value));
  std::string encoded;
  ddb::AppendSortKey(&encoded, value);
  DDB_FUZZ_CHECK(encoded == in);
}

void NumberKey(std::string_view in) {
  std::string_view rest = in;
  std::string normalised;
  if (!ddb::ConsumeNumberKey(&rest, &normalised)) return;
  DDB_FUZZ_CHECK(ddb::fuzz::IsNormalisedNumber(normalised));
  std::string encoded;
  ddb::AppendNumberKey(&encoded, normalised);
  DDB_FUZZ_CHECK(encoded == in.substr(0, in.size() - rest.size()));
}

void NumberText(std::string_view in) {
  ddb::Result<std::string> normalised = ddb::NormalizeNumber(in);
  if (!normalised.ok()) return;
  DDB_FUZZ_CHECK(ddb::fuzz::IsNormalisedNumber(*normalised));
  std::string key;
  ddb::AppendNumberKey(&key, *normalised);
  std::string_view rest = key;
  std::string back;
  DDB_FUZZ_CHECK(ddb::ConsumeNumberKey(&rest, &back) && rest.empty() && back == *normalised);
}

void Change(std::string_view in) {
  if (in.size() < 8) return;
  ddb::ChangeRecord record;
  ddb::DecodeChange(in.substr(0, 8), in.substr(8), &record);
}

void StreamRecord(std::string_view in) {
  if (in.empty()) return;
  size_t key_size = std::min<size_t>(static_cast<uint8_t>(in[0]), in.size() - 1);
  ddb::ChangeRecord record;
  ddb::WriteOrigin origin;
  ddb::DecodeStreamRecord(in.substr(1, key_size), in.substr(1 + key_size), &record, &origin);
}

void TtlEntry(std::string_view in) {
  uint32_t table_id;
  uint64_t expiry;
  std::string_view item_key;
  if (!ddb::ParseTtlEntryKey(in, &table_id, &expiry, &item_key)) return;
  DDB_FUZZ_CHECK(ddb::TtlEntryKey(table_id, expiry, item_key) == in);
}

void Base64(std::string_view in) {
  std::string bytes;
  if (!ddb::util::DecodeBase64(in, &bytes)) return;
  const std::string text = ddb::util::Base64(bytes);
  std::string bytes_again;
  DDB_FUZZ_CHECK(ddb::util::DecodeBase64(text, &bytes_again) && bytes_again == bytes);
  // What Base64 writes is canonical; the padded reading accepts at least what it does.
  DDB_FUZZ_CHECK(ddb::util::DecodeBase64(text, &bytes_again, ddb::util::Base64Check::kCanonical));
  if (ddb::util::DecodeBase64(in, &bytes_again, ddb::util::Base64Check::kCanonical)) {
    DDB_FUZZ_CHECK(text == in);
  }
}

void StreamNames(std::string_view in) {
  ddb::ShardIteratorToken token;
  ddb::DecodeShardIterator(in, &token);
  std::string table, label;
  if (ddb::ParseStreamArn(in, &table, &label)) {
    DDB_FUZZ_CHECK(!table.empty());
  }
  if (std::optional<uint64_t> ms = ddb::ParseStreamLabel(in)) {
    DDB_FUZZ_CHECK(ddb::StreamLabelAt(*ms) == in);
  }
  uint64_t sequence;
  if (ddb::ParseSequenceNumber(in, &sequence)) {
    uint64_t again;
    DDB_FUZZ_CHECK(ddb::ParseSequenceNumber(ddb::FormatSequenceNumber(sequence), &again) &&
                   again == sequence);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0:
      StoredItem(in);
      break;
    case 1:
      SortKey(in);
      break;
    case 2:
      NumberKey(in);
      break;
    case 3:
      NumberText(in);
      break;
    case 4:
      Change(in);
      break;
    case 5:
      StreamRecord(in);
      break;
    case 6:
      TtlEntry(in);
      break;
    case 7:
      Base64(in);
      break;
    case 8:
      StreamNames(in);
      break;
  }
  return 0;
}
