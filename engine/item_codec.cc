#include "engine/item_codec.h"

#include "engine/coding.h"

namespace ddb {
namespace {

// Values deeper than this cannot have been written (the service caps nesting at 32).
constexpr int kMaxDecodeDepth = 64;

void EncodeValue(const AttributeValue& v, std::string* dst) {
  dst->push_back(static_cast<char>(v.type()));
  switch (v.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      PutLengthPrefixed(dst, v.scalar());
      break;
    case AttributeType::kBool:
      dst->push_back(v.boolean() ? 1 : 0);
      break;
    case AttributeType::kNull:
      break;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      PutVarint64(dst, v.set().size());
      for (const auto& m : v.set()) PutLengthPrefixed(dst, m);
      break;
    case AttributeType::kL:
      PutVarint64(dst, v.list().size());
      for (const auto& e : v.list()) EncodeValue(e, dst);
      break;
    case AttributeType::kM:
      PutVarint64(dst, v.map().size());
      for (const auto& [name, e] : v.map()) {
        PutLengthPrefixed(dst, name);
        EncodeValue(e, dst);
      }
      break;
  }
}

bool DecodeMap(std::string_view* in, int depth, AttributeMap* out);

bool DecodeValue(std::string_view* in, int depth, AttributeValue* out) {
  if (in->empty() || depth > kMaxDecodeDepth) return false;
  auto tag = static_cast<AttributeType>(static_cast<uint8_t>(in->front()));
  in->remove_prefix(1);
  std::string_view s;
  uint64_t count;
  switch (tag) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      if (!GetLengthPrefixed(in, &s)) return false;
      *out = tag == AttributeType::kS   ? AttributeValue::S(std::string(s))
             : tag == AttributeType::kN ? AttributeValue::N(std::string(s))
                                        : AttributeValue::B(std::string(s));
      return true;
    case AttributeType::kBool:
      if (in->empty()) return false;
      *out = AttributeValue::Bool(in->front() != 0);
      in->remove_prefix(1);
      return true;
    case AttributeType::kNull:
      *out = AttributeValue::Null();
      return true;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      if (!GetVarint64(in, &count) || count > in->size()) return false;
      std::vector<std::string> members;
      members.reserve(count);
      for (uint64_t i = 0; i < count; ++i) {
        if (!GetLengthPrefixed(in, &s)) return false;
        members.emplace_back(s);
      }
      *out = tag == AttributeType::kSS   ? AttributeValue::SS(std::move(members))
             : tag == AttributeType::kNS ? AttributeValue::NS(std::move(members))
                                         : AttributeValue::BS(std::move(members));
      return true;
    }
    case AttributeType::kL: {
      if (!GetVarint64(in, &count) || count > in->size()) return false;
      std::vector<AttributeValue> list(count);
      for (auto& e : list) {
        if (!DecodeValue(in, depth + 1, &e)) return false;
      }
      *out = AttributeValue::L(std::move(list));
      return true;
    }
    case AttributeType::kM: {
      AttributeMap map;
      if (!DecodeMap(in, depth + 1, &map)) return false;
      *out = AttributeValue::M(std::move(map));
      return true;
    }
  }
  return false;
}

bool DecodeMap(std::string_view* in, int depth, AttributeMap* out) {
  uint64_t count;
  if (!GetVarint64(in, &count) || count > in->size()) return false;
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view name;
    if (!GetLengthPrefixed(in, &name)) return false;
    AttributeValue v;
    if (!DecodeValue(in, depth, &v)) return false;
    out->emplace_hint(out->end(), std::string(name), std::move(v));
  }
  return true;
}

}  // namespace

void EncodeItem(const Item& item, std::string* dst) {
  dst->push_back(static_cast<char>(kItemFormatVersion));
  PutVarint64(dst, item.size());
  for (const auto& [name, v] : item) {
    PutLengthPrefixed(dst, name);
    EncodeValue(v, dst);
  }
}

bool DecodeItem(std::string_view data, Item* item) {
  if (data.empty() || static_cast<uint8_t>(data.front()) != kItemFormatVersion) return false;
  data.remove_prefix(1);
  item->clear();
  return DecodeMap(&data, 0, item) && data.empty();
}

}  // namespace ddb
