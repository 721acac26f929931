#include "ddb/stored_item.h"
#include "engine/storage/coding.h"

namespace ddb {
namespace {

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

// Builds the Item from the codec walk (WalkEncodedItem knows the format; this only
// assembles). Containers under construction are kept on a stack of frames; the item's own
// attributes go straight into the result.
class BuildVisitor {
 public:
  explicit BuildVisitor(Item* item) : item_(item) {}

  void BeginMap(uint64_t) {
    if (started_) frames_.emplace_back(AttributeType::kM);
    started_ = true;
  }
  void EndMap() {
    if (frames_.empty()) return;  // the item itself
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    Place(AttributeValue::M(std::move(f.map)));
  }
  void Name(std::string_view name) {
    std::string& pending = frames_.empty() ? name_ : frames_.back().name;
    pending.assign(name);
  }
  void Scalar(AttributeType type, std::string_view bytes) {
    Place(type == AttributeType::kS   ? AttributeValue::S(std::string(bytes))
          : type == AttributeType::kN ? AttributeValue::N(std::string(bytes))
                                      : AttributeValue::B(std::string(bytes)));
  }
  void Bool(bool b) { Place(AttributeValue::Bool(b)); }
  void Null() { Place(AttributeValue::Null()); }
  void BeginSet(AttributeType type, uint64_t count) {
    frames_.emplace_back(type);
    frames_.back().members.reserve(count);
  }
  void Member(std::string_view bytes) { frames_.back().members.emplace_back(bytes); }
  void EndSet() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    Place(f.type == AttributeType::kSS   ? AttributeValue::SS(std::move(f.members))
          : f.type == AttributeType::kNS ? AttributeValue::NS(std::move(f.members))
                                         : AttributeValue::BS(std::move(f.members)));
  }
  void BeginList(uint64_t count) {
    frames_.emplace_back(AttributeType::kL);
    frames_.back().list.reserve(count);
  }
  void EndList() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    Place(AttributeValue::L(std::move(f.list)));
  }

 private:
  struct Frame {
    explicit Frame(AttributeType t) : type(t) {}
    AttributeType type;  // kM, kL, kSS, kNS or kBS
    std::string name;    // kM: the name of the value being read
    AttributeMap map;
    std::vector<AttributeValue> list;
    std::vector<std::string> members;
  };

  void Place(AttributeValue v) {
    if (frames_.empty()) {
      item_->emplace_hint(item_->end(), std::move(name_), std::move(v));
    } else if (Frame& f = frames_.back(); f.type == AttributeType::kM) {
      f.map.emplace_hint(f.map.end(), std::move(f.name), std::move(v));
    } else {
      f.list.push_back(std::move(v));
    }
  }

  Item* item_;
  bool started_ = false;
  std::string name_;  // of the item's attribute being read
  std::vector<Frame> frames_;
};

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
  item->clear();
  BuildVisitor builder(item);
  return WalkEncodedItem(data, builder);
}

}  // namespace ddb
