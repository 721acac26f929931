// The memtable skip list (memtable_skip_list.h) through a store, against an ordered map:
// every read a store makes of a memtable (point reads, seeks both ways, steps back, older
// versions under a snapshot) on keys whose bytes and lengths vary the most, and reads while
// a writer inserts.
#include "engine/storage/memtable_skip_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/storage/storage.h"

namespace ddb {
namespace {

using Model = std::map<std::string, std::string>;

std::unique_ptr<Storage> OpenInMemory() {
  auto storage = Storage::Open(StorageOptions{"", true});
  EXPECT_TRUE(storage.ok());
  return std::move(*storage);
}

// Keys of 0 to 11 bytes from an alphabet with the extremes of a byte, so that keys are
// prefixes of each other, share long runs, and differ only past an 8-byte word.
std::string RandomKey(std::mt19937_64& rng) {
  static constexpr char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\x7f', '\x80', '\xfe', '\xff'};
  std::string key(rng() % 12, '\0');
  for (char& c : key) c = kAlphabet[rng() % sizeof kAlphabet];
  return key;
}

// What a ForEach over [begin, end) (end "" = no bound) visits, in its order.
std::vector<std::pair<std::string, std::string>> Visit(Storage& storage, Cf cf,
                                                       const std::string& begin,
                                                       const std::string& end, bool reverse,
                                                       const Storage::Snapshot* at = nullptr) {
  std::vector<std::pair<std::string, std::string>> seen;
  const Status s = storage.ForEach(
      cf, begin, end,
      [&](std::string_view k, std::string_view v) {
        seen.emplace_back(k, v);
        return true;
      },
      reverse, at);
  EXPECT_TRUE(s.ok());
  return seen;
}

std::vector<std::pair<std::string, std::string>> Expected(const Model& model,
                                                          const std::string& begin,
                                                          const std::string& end, bool reverse) {
  std::vector<std::pair<std::string, std::string>> want;
  for (auto it = model.lower_bound(begin); it != model.end() && (end.empty() || it->first < end);
       ++it) {
    want.emplace_back(*it);
  }
  if (reverse) std::reverse(want.begin(), want.end());
  return want;
}

// Random puts and deletes over a few hundred keys (each rewritten many times: versions of one
// key are ordered by sequence number), checked after every batch by point reads and by
// ranges both ways, and under snapshots taken along the way; halfway, the memtable is flushed.
TEST(MemtableSkipListTest, AgreesWithAnOrderedMap) {
  std::unique_ptr<Storage> storage = OpenInMemory();
  std::mt19937_64 rng(20261207);
  Model model;
  std::vector<std::pair<std::shared_ptr<const Storage::Snapshot>, Model>> snapshots;
  for (int round = 0; round < 60; ++round) {
    Storage::Batch batch(*storage);
    for (int i = 0; i < 100; ++i) {
      const std::string key = RandomKey(rng);
      if (rng() % 4 == 0) {
        batch.Delete(Cf::kCatalog, key);
        model.erase(key);
      } else {
        const std::string value = std::to_string(round) + "." + std::to_string(i);
        batch.Put(Cf::kCatalog, key, value);
        model[key] = value;
      }
    }
    ASSERT_TRUE(storage->Write(batch).ok());
    if (round % 10 == 0) snapshots.emplace_back(storage->TakeSnapshot(), model);
    // A flush walks the memtable into a file; later reads merge the two.
    if (round == 30) ASSERT_TRUE(storage->FlushAll().ok());

    for (int probe = 0; probe < 50; ++probe) {
      const std::string key = RandomKey(rng);
      Result<std::optional<std::string>> got = storage->Get(Cf::kCatalog, key);
      ASSERT_TRUE(got.ok());
      auto it = model.find(key);
      ASSERT_EQ(got->has_value(), it != model.end()) << "round " << round;
      if (it != model.end()) EXPECT_EQ(**got, it->second);
    }
    for (int range = 0; range < 10; ++range) {
      std::string begin = RandomKey(rng), end = range % 3 == 0 ? "" : RandomKey(rng);
      if (!end.empty() && end < begin) std::swap(begin, end);
      for (bool reverse : {false, true}) {
        ASSERT_EQ(Visit(*storage, Cf::kCatalog, begin, end, reverse),
                  Expected(model, begin, end, reverse))
            << "round " << round << (reverse ? " reverse" : " forward");
      }
    }
  }
  for (const auto& [snapshot, then] : snapshots) {
    for (bool reverse : {false, true}) {
      EXPECT_EQ(Visit(*storage, Cf::kCatalog, "", "", reverse, snapshot.get()),
                Expected(then, "", "", reverse));
    }
  }
}

// Readers walk and read while a writer rewrites every key with growing versions: each walk
// sees every key once, in order both ways, and no reader sees a key's version go back.
TEST(MemtableSkipListTest, ReadersWhileAWriterInserts) {
  std::unique_ptr<Storage> storage = OpenInMemory();
  constexpr int kKeys = 200;
  auto key_of = [](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "key%05d", i);
    return std::string(buf);
  };
  auto put_all = [&](int version) {
    Storage::Batch batch(*storage);
    for (int i = 0; i < kKeys; ++i) batch.Put(Cf::kCatalog, key_of(i), std::to_string(version));
    return storage->Write(batch).ok();
  };
  ASSERT_TRUE(put_all(0));
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread writer([&] {
    for (int version = 1; version <= 300; ++version) {
      if (!put_all(version)) ++failures;
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::vector<int> last(kKeys, 0);
      std::mt19937_64 rng(r);
      while (!done) {
        const bool reverse = rng() % 2 == 1;
        auto seen = Visit(*storage, Cf::kCatalog, "", "", reverse);
        if (seen.size() != kKeys) ++failures;
        for (size_t i = 0; i < seen.size(); ++i) {
          const int index = reverse ? kKeys - 1 - static_cast<int>(i) : static_cast<int>(i);
          if (seen[i].first != key_of(index)) ++failures;
        }
        const int i = static_cast<int>(rng() % kKeys);
        Result<std::optional<std::string>> got = storage->Get(Cf::kCatalog, key_of(i));
        if (!got.ok() || !got->has_value()) {
          ++failures;
          continue;
        }
        const int version = std::stoi(**got);
        if (version < last[i]) ++failures;
        last[i] = version;
      }
    });
  }
  writer.join();
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace ddb
