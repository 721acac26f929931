#include "engine/storage/memtable_skip_list.h"

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

#include "engine/storage/coding.h"

namespace rocksdb {

// The interface of RocksDB's arenas (memory/allocator.h, which Debian does not install), as
// RocksDB 7.8 declares it: an iterator asked for with an arena is placed in it, and RocksDB
// then only runs its destructor.
class Allocator {
 public:
  virtual ~Allocator() {}
  virtual char* Allocate(size_t bytes) = 0;
  virtual char* AllocateAligned(size_t bytes, size_t huge_page_size = 0,
                                Logger* logger = nullptr) = 0;
  virtual size_t BlockSize() const = 0;
};

// RocksDB's LookupKey (db/lookup_key.h, not installed either), as 7.8 lays it out: the key a
// point read seeks, length-prefixed from `start_`, its internal key from `kstart_`. Get below
// checks the layout on every call (a few instructions) and stops the process if it differs.
class LookupKey {
 public:
  Slice memtable_key() const { return Slice(start_, static_cast<size_t>(end_ - start_)); }
  Slice internal_key() const { return Slice(kstart_, static_cast<size_t>(end_ - kstart_)); }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
};

}  // namespace rocksdb

namespace ddb {
namespace {

constexpr int kMaxHeight = 12;  // 4^12 entries before searches grow past ~4 per level
constexpr unsigned kBranching = 4;
constexpr uint32_t kTrailerBytes = 8;  // an internal key: its user key, then seqno and type

// The first 8 bytes of a user key as a big-endian number, zero-padded when it is shorter:
// two keys whose numbers differ are ordered as the numbers are (a shorter key padded with
// zeros sorts before every longer one it begins), so most comparisons of a search end here.
// REQUIRES: 8 readable bytes at `user_key` (an internal key has them: its trailer).
uint64_t Prefix8(const char* user_key, size_t user_length) {
  uint64_t v = 0;
  std::memcpy(&v, user_key, sizeof(v));
  v = __builtin_bswap64(v);
  if (user_length < sizeof(v))
    v = user_length == 0 ? 0 : v & (~uint64_t{0} << (64 - 8 * user_length));
  return v;
}

// The internal key a search compares against, with its user key's Prefix8 read once.
struct SearchKey {
  explicit SearchKey(const rocksdb::Slice& k)
      : key(k),
        prefix(k.size() >= kTrailerBytes ? Prefix8(k.data(), k.size() - kTrailerBytes) : 0) {}
  rocksdb::Slice key;
  uint64_t prefix;
};

// A node: its links, level `height - 1` first and level 0 last, then the entry (RocksDB's
// length-prefixed internal key and value) right after level 0's link. A Node* points at
// level 0's link, so the entry is at a fixed offset whatever the height.
struct Node {
  using Link = std::atomic<Node*>;

  Link* LinkAt(int level) { return reinterpret_cast<Link*>(this) - level; }
  Node* Next(int level) { return LinkAt(level)->load(std::memory_order_acquire); }
  Node* NextRelaxed(int level) { return LinkAt(level)->load(std::memory_order_relaxed); }
  // Publishes: a reader that loads the link (acquire) sees the node's entry and links.
  void SetNext(int level, Node* node) { LinkAt(level)->store(node, std::memory_order_release); }
  void SetNextRelaxed(int level, Node* node) {
    LinkAt(level)->store(node, std::memory_order_relaxed);
  }
  const char* Entry() const { return reinterpret_cast<const char*>(this) + sizeof(Link); }
};

class MemtableSkipList final : public rocksdb::MemTableRep {
 public:
  MemtableSkipList(const KeyComparator& compare, rocksdb::Allocator* allocator)
      : MemTableRep(allocator), compare_(compare) {
    // The head has every level, and no entry.
    head_ = NewNode(kMaxHeight, 0, nullptr);
    for (int level = 0; level < kMaxHeight; ++level) head_->SetNextRelaxed(level, nullptr);
  }

  // The node and its entry's buffer in one allocation from the memtable's arena. Its height
  // is kept in its level-0 link until Insert links it.
  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    const int height = RandomHeight();
    Node* node = NewNode(height, len, buf);
    node->SetNextRelaxed(0, reinterpret_cast<Node*>(static_cast<uintptr_t>(height)));
    return node;
  }

  void Insert(rocksdb::KeyHandle handle) override { InsertKey(handle); }

  // False, and nothing inserted, when an entry with the same internal key is there.
  bool InsertKey(rocksdb::KeyHandle handle) override {
    Node* node = static_cast<Node*>(handle);
    const int height = static_cast<int>(reinterpret_cast<uintptr_t>(node->NextRelaxed(0)));
    const SearchKey key(compare_.decode_key(node->Entry()));
    // The last node before the key at each level. Only this thread links nodes, so its own
    // reads need no ordering.
    Node* before[kMaxHeight];
    const int top = max_height_.load(std::memory_order_relaxed);
    Node* x = head_;
    for (int level = top - 1; level >= 0; --level) {
      for (Node* next = x->NextRelaxed(level); next != nullptr && Compare(next->Entry(), key) < 0;
           next = x->NextRelaxed(level)) {
        x = next;
      }
      before[level] = x;
    }
    if (Node* next = before[0]->NextRelaxed(0);
        next != nullptr && Compare(next->Entry(), key) == 0) {
      return false;
    }
    if (height > top) {
      for (int level = top; level < height; ++level) before[level] = head_;
      // A reader that sees the new height before the links finds the head's new levels
      // empty, and goes down: still a correct search.
      max_height_.store(height, std::memory_order_relaxed);
    }
    for (int level = 0; level < height; ++level) {
      node->SetNextRelaxed(level, before[level]->NextRelaxed(level));
      before[level]->SetNext(level, node);
    }
    return true;
  }

  // A point read: the first entry at or after the key, then on while the callback asks for
  // more. RocksDB's default (MemTableRep::Get) leaks the iterator it takes for this (its own
  // reps all override it): 24 bytes of every read, found by LeakSanitizer.
  void Get(const rocksdb::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    const rocksdb::Slice memtable_key = k.memtable_key();
    const rocksdb::Slice key = k.internal_key();
    uint32_t length = 0;
    if (memtable_key.size() < key.size() ||
        DecodeLength(memtable_key.data(), &length) != key.data() || length != key.size()) {
      std::fprintf(stderr, "ddb: RocksDB's LookupKey is not laid out as in RocksDB 7.8\n");
      std::abort();
    }
    for (Node* n = FindGreaterOrEqual(key);
         n != nullptr && callback_func(callback_args, n->Entry()); n = n->Next(0)) {
    }
  }

  bool Contains(const char* entry) const override {
    const rocksdb::Slice key = compare_.decode_key(entry);
    const Node* x = FindGreaterOrEqual(key);
    return x != nullptr && Compare(x->Entry(), key) == 0;
  }

  // The arena the nodes are in is the memtable's, which counts it.
  size_t ApproximateMemoryUsage() override { return 0; }

  class Iterator final : public rocksdb::MemTableRep::Iterator {
   public:
    explicit Iterator(const MemtableSkipList* list) : list_(list) {}
    bool Valid() const override { return node_ != nullptr; }
    const char* key() const override { return node_->Entry(); }
    void Next() override { node_ = node_->Next(0); }
    void Prev() override {
      node_ = list_->FindLessThan(list_->compare_.decode_key(node_->Entry()));
    }
    void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override {
      node_ = list_->FindGreaterOrEqual(Target(internal_key, memtable_key));
    }
    // The last entry at or before the target.
    void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override {
      const rocksdb::Slice target = Target(internal_key, memtable_key);
      node_ = list_->FindGreaterOrEqual(target);
      if (node_ == nullptr) {
        SeekToLast();
      } else if (list_->Compare(node_->Entry(), target) > 0) {
        Prev();
      }
    }
    void SeekToFirst() override { node_ = list_->head_->Next(0); }
    void SeekToLast() override { node_ = list_->FindLast(); }

   private:
    // RocksDB passes the internal key, and the same key length-prefixed when it has it.
    rocksdb::Slice Target(const rocksdb::Slice& internal_key, const char* memtable_key) const {
      return memtable_key != nullptr ? list_->compare_.decode_key(memtable_key) : internal_key;
    }

    const MemtableSkipList* list_;
    Node* node_ = nullptr;
  };

  rocksdb::MemTableRep::Iterator* GetIterator(rocksdb::Arena* arena) override {
    if (arena == nullptr) return new Iterator(this);
    // Arena derives from Allocator alone, so the two pointers are the same.
    void* memory = reinterpret_cast<rocksdb::Allocator*>(arena)->AllocateAligned(sizeof(Iterator));
    return new (memory) Iterator(this);
  }

 private:
  Node* NewNode(int height, size_t entry_bytes, char** entry) {
    const size_t links = sizeof(Node::Link) * static_cast<size_t>(height);
    char* raw = nullptr;
    // The arena's unaligned allocation (MemTableRep's own Allocate), aligned here for the links.
    MemTableRep::Allocate(links + entry_bytes + alignof(Node::Link) - 1, &raw);
    const uintptr_t aligned =
        (reinterpret_cast<uintptr_t>(raw) + alignof(Node::Link) - 1) & ~(alignof(Node::Link) - 1);
    Node* node = reinterpret_cast<Node*>(aligned + links - sizeof(Node::Link));
    for (int level = 0; level < height; ++level) new (node->LinkAt(level)) Node::Link(nullptr);
    if (entry != nullptr) *entry = const_cast<char*>(node->Entry());
    return node;
  }

  // Height h with probability (1 - 1/kBranching) / kBranching^(h-1), capped at kMaxHeight.
  // Only the inserting thread draws (xorshift64).
  int RandomHeight() {
    int height = 1;
    while (height < kMaxHeight) {
      rng_ ^= rng_ << 13;
      rng_ ^= rng_ >> 7;
      rng_ ^= rng_ << 17;
      if (rng_ % kBranching != 0) break;
      ++height;
    }
    return height;
  }

  // The entry's order against an internal key. Keys of different user keys (all but the last
  // comparison of a search) are told apart by their bytes here, without the two virtual calls
  // and the decoding of RocksDB's comparator: every column family's user keys are in byte
  // order (KeyOrder in storage.cc), and an internal key is its user key and 8 bytes of
  // sequence number and type. Equal user keys (versions of one key) are RocksDB's to order.
  int Compare(const char* entry, const SearchKey& target) const {
    const rocksdb::Slice& key = target.key;
    uint32_t length = 0;
    const char* internal = DecodeLength(entry, &length);
    if (length >= kTrailerBytes && key.size() >= kTrailerBytes) {
      const uint64_t prefix = Prefix8(internal, length - kTrailerBytes);
      if (prefix != target.prefix) return prefix < target.prefix ? -1 : 1;
      const int c = CompareBytes(std::string_view(internal, length - kTrailerBytes),
                                 std::string_view(key.data(), key.size() - kTrailerBytes));
      if (c != 0) return c;
    }
    return compare_(entry, key);
  }
  int Compare(const char* entry, const rocksdb::Slice& key) const {
    return Compare(entry, SearchKey(key));
  }

  // An entry's varint32 length prefix (LEB128, at most 5 bytes).
  static const char* DecodeLength(const char* p, uint32_t* length) {
    uint32_t value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      const uint32_t byte = static_cast<uint8_t>(*p++);
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    *length = value;
    return p;
  }

  // The first node at or after the key, or null.
  Node* FindGreaterOrEqual(const rocksdb::Slice& k) const {
    const SearchKey key(k);
    Node* x = head_;
    // A node found after the key at one level is after it at every level below: not
    // compared again.
    const Node* after = nullptr;
    for (int level = max_height_.load(std::memory_order_relaxed) - 1;;) {
      Node* next = x->Next(level);
      // The link read next if the search moves on to `next`: fetched while its key compares
      // (the two are in different cache lines at the upper levels).
      if (next != nullptr) __builtin_prefetch(next->LinkAt(level));
      const int c = next == nullptr || next == after ? 1 : Compare(next->Entry(), key);
      if (c < 0) {
        x = next;
      } else if (c == 0 || level == 0) {
        return next;
      } else {
        after = next;
        --level;
      }
    }
  }

  // The last node before the key, or null when there is none.
  Node* FindLessThan(const rocksdb::Slice& k) const {
    const SearchKey key(k);
    Node* x = head_;
    const Node* after = nullptr;
    for (int level = max_height_.load(std::memory_order_relaxed) - 1;;) {
      Node* next = x->Next(level);
      if (next != nullptr && next != after && Compare(next->Entry(), key) < 0) {
        x = next;
      } else if (level == 0) {
        return x == head_ ? nullptr : x;
      } else {
        after = next;
        --level;
      }
    }
  }

  // The last node, or null when the list is empty.
  Node* FindLast() const {
    Node* x = head_;
    for (int level = max_height_.load(std::memory_order_relaxed) - 1; level >= 0; --level) {
      for (Node* next = x->Next(level); next != nullptr; next = x->Next(level)) x = next;
    }
    return x == head_ ? nullptr : x;
  }

  const KeyComparator& compare_;
  Node* head_ = nullptr;
  std::atomic<int> max_height_{1};
  uint64_t rng_ = 0x9e3779b97f4a7c15;  // any nonzero seed; heights need no secrecy
};

class MemtableSkipListFactory final : public rocksdb::MemTableRepFactory {
 public:
  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform*,
                                          rocksdb::Logger*) override {
    return new MemtableSkipList(compare, allocator);
  }
  const char* Name() const override { return "DdbMemtableSkipList"; }
  bool IsInsertConcurrentlySupported() const override { return false; }
  // InsertKey answers false for an internal key already there.
  bool CanHandleDuplicatedKey() const override { return true; }
};

}  // namespace

std::shared_ptr<rocksdb::MemTableRepFactory> NewMemtableSkipListFactory() {
  return std::make_shared<MemtableSkipListFactory>();
}

}  // namespace ddb
