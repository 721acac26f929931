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

// Sizes by AttributeValueSize's rules, kept in step with it (item_codec_test checks both
// agree): the item's own attributes cost name + value; a list or map value costs 3 bytes plus,
// per element, 1 + the element (+ its name, in a map).
class SizeVisitor {
 public:
  size_t size() const { return size_; }
  void BeginMap(uint64_t) {
    if (!open_.empty()) {
      Element();
      size_ += 3;
    }
    open_.push_back(open_.empty() ? 'I' : 'M');
  }
  void EndMap() { open_.pop_back(); }
  void Name(std::string_view name) { size_ += name.size() + (open_.back() == 'M' ? 1 : 0); }
  void Scalar(AttributeType type, std::string_view bytes) {
    Element();
    size_ += type == AttributeType::kN ? NumberSize(bytes) : bytes.size();
  }
  void Bool(bool) {
    Element();
    size_ += 1;
  }
  void Null() {
    Element();
    size_ += 1;
  }
  void BeginSet(AttributeType type, uint64_t) {
    Element();
    set_type_ = type;
  }
  void Member(std::string_view bytes) {
    size_ += set_type_ == AttributeType::kNS ? NumberSize(bytes) : bytes.size();
  }
  void EndSet() {}
  void BeginList(uint64_t) {
    Element();
    size_ += 3;
    open_.push_back('L');
  }
  void EndList() { open_.pop_back(); }

 private:
  // A value directly inside a list costs one byte more (a map entry's byte came with its name).
  void Element() {
    if (open_.back() == 'L') size_ += 1;
  }

  size_t size_ = 0;
  std::string open_;  // the containers we are in: I(tem), M(ap), L(ist)
  AttributeType set_type_ = AttributeType::kSS;
};

}  // namespace

std::optional<size_t> EncodedItemSize(std::string_view data) {
  SizeVisitor visitor;
  if (!WalkEncodedItem(data, visitor)) return std::nullopt;
  return visitor.size();
}

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
