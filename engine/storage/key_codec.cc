#include "engine/storage/key_codec.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ddb/number.h"
#include "engine/storage/coding.h"
#include "util/digest.h"

namespace ddb {

namespace {

// Appends the service's internal form of a normalised number (see the header): plain
// decimal text, never an exponent (NormalizeNumber writes 1E+125 out in full).
void AppendServiceNumberBytes(std::string* dst, std::string_view n) {
  const bool negative = !n.empty() && n.front() == '-';
  if (negative) n.remove_prefix(1);
  int64_t exponent = 0;  // value = 0.<digits> x 10^exponent
  std::string digits;
  int64_t point = -1;
  for (char c : n) {
    if (c == '.') {
      point = static_cast<int64_t>(digits.size());
    } else if (c >= '0' && c <= '9') {
      digits.push_back(static_cast<char>(c - '0'));
    }
  }
  if (point < 0) point = static_cast<int64_t>(digits.size());
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) ++first;
  while (!digits.empty() && digits.back() == 0) digits.pop_back();
  if (first >= digits.size()) {
    dst->push_back('\x80');
    return;
  }
  exponent += point - static_cast<int64_t>(first);
  digits.erase(0, first);
  // Digit pairs start at an even power of ten: an odd exponent gets a leading zero digit.
  if (exponent % 2 != 0) {
    digits.insert(digits.begin(), 0);
    ++exponent;
  }
  int64_t head = exponent / 2 - 64;
  if (negative) head = ~head;
  dst->push_back(static_cast<char>(head & 0xff));
  size_t pairs = 0;
  for (size_t i = 0; i < digits.size(); i += 2, ++pairs) {
    const int pair = digits[i] * 10 + (i + 1 < digits.size() ? digits[i + 1] : 0);
    dst->push_back(static_cast<char>(negative ? 101 - pair : pair + 1));
  }
  if (negative && pairs < 20) dst->push_back(static_cast<char>(102));
}

}  // namespace

void AppendServiceKeyBytes(std::string* dst, const AttributeValue& value) {
  if (value.type() == AttributeType::kN) {
    AppendServiceNumberBytes(dst, value.scalar());
  } else {
    dst->append(value.scalar());
  }
}

uint64_t ServiceHash(std::string_view bytes) {
  unsigned char digest[16];
  util::Md5Of2("Outliers", bytes, digest);
  uint64_t token = 0;
  for (size_t i = 0; i < 8; ++i) token = (token << 8) | digest[i];
  return token;
}

uint64_t TokenOfKey(std::string_view key) {
  uint64_t token = 0;
  for (size_t i = 4; i < 12 && i < key.size(); ++i) {
    token = (token << 8) | static_cast<uint8_t>(key[i]);
  }
  return token;
}

uint64_t Xxh3Token(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

uint64_t PartitionToken(int key_format, const AttributeValue& pk) {
  if (key_format >= kKeyFormatServiceOrder) {
    // S and B hash as they are, without a copy.
    if (pk.type() != AttributeType::kN) return ServiceHash(pk.scalar());
    std::string bytes;
    AppendServiceKeyBytes(&bytes, pk);
    return ServiceHash(bytes);
  }
  return Xxh3Token(KeyBytes(pk));
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

std::string EncodeItemKey(uint32_t table_id, int key_format, const AttributeValue& pk,
                          const AttributeValue* sk) {
  const std::string& pk_bytes = KeyBytes(pk);
  std::string key;
  key.reserve(4 + 8 + 2 + pk_bytes.size() + (sk ? sk->scalar().size() + 2 : 0));
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, PartitionToken(key_format, pk));
  PutFixed16BE(&key, static_cast<uint16_t>(pk_bytes.size()));
  key.append(pk_bytes);
  if (sk != nullptr) AppendSortKey(&key, *sk);
  return key;
}

}  // namespace ddb
