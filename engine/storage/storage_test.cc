#include "engine/storage/storage.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/temp_dir_testing.h"

namespace ddb {
namespace {

constexpr Cf kAll[] = {Cf::kCatalog, Cf::kItems,   Cf::kChanges,
                       Cf::kMeta,    Cf::kIndexes, Cf::kStreams};

size_t CountKeys(Storage& storage) {
  size_t n = 0;
  for (Cf cf : kAll) {
    Status s = storage.ForEach(cf, "", "", [&](std::string_view, std::string_view) {
      ++n;
      return true;
    });
    EXPECT_TRUE(s.ok());
  }
  return n;
}

// In-memory stores are kept for reuse after they close (storage.cc): every open, the 1st
// or the 40th, must find an empty store, whatever the ones before it held.
TEST(StorageTest, EveryInMemoryOpenStartsEmpty) {
  for (int round = 0; round < 40; ++round) {
    auto storage = Storage::Open(StorageOptions{"", true});
    ASSERT_TRUE(storage.ok());
    ASSERT_EQ(CountKeys(**storage), 0u) << "round " << round;
    Storage::Batch batch(**storage);
    for (Cf cf : kAll) {
      for (int i = 0; i < 10; ++i) {
        batch.Put(cf, std::string(1, static_cast<char>(i * 25)) + std::to_string(round), "v");
      }
      batch.Put(cf, std::string(8, '\xff'), "last");
      batch.Put(cf, "", "empty key");
    }
    ASSERT_TRUE((*storage)->Write(batch).ok());
    ASSERT_EQ(CountKeys(**storage), 6u * 12u);
  }
}

// The stats pairs live in RocksDB merges on disk and in MemoryStats in memory; both keep the
// same figures. Each case opens a store of its mode.
class StatsTest : public ::testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<Storage> OpenStore() {
    auto opened = Storage::Open(StorageOptions{GetParam() ? "" : dir_.path(), GetParam()});
    EXPECT_TRUE(opened.ok());
    return opened.ok() ? std::move(opened.value()) : nullptr;
  }
  static std::pair<int64_t, int64_t> Stats(Storage& storage, std::string_view key) {
    auto v = storage.GetStats(key);
    EXPECT_TRUE(v.ok());
    return v.ok() ? v.value() : std::pair<int64_t, int64_t>{-1, -1};
  }
  testing::TempDir dir_;
};

// A batch sums its AddToStats deltas per key (one merge each at Write), yet every write to
// the pairs keeps its place in the batch's order.
TEST_P(StatsTest, DeltasOfABatchAddUpInOrderWithOtherStatsWrites) {
  std::unique_ptr<Storage> opened = OpenStore();
  ASSERT_TRUE(opened);
  Storage& storage = *opened;
  auto stats = [&](std::string_view key) { return Stats(storage, key); };
  {
    Storage::Batch batch(storage);
    for (int i = 0; i < 25; ++i) {
      batch.Put(Cf::kItems, "item" + std::to_string(i), "v");
      batch.AddToStats("a", 1, 10);
      batch.AddToStats("b", 2, -5);
    }
    ASSERT_TRUE(storage.Write(batch).ok());
  }
  EXPECT_EQ(stats("a"), (std::pair<int64_t, int64_t>{25, 250}));
  EXPECT_EQ(stats("b"), (std::pair<int64_t, int64_t>{50, -125}));
  {
    // A delta, then a value set: the value wins. A value set, then a delta: both count.
    Storage::Batch batch(storage);
    batch.AddToStats("a", 7, 7);
    batch.SetStats("a", 1, 100);
    batch.SetStats("b", 3, 30);
    batch.AddToStats("b", 1, 1);
    batch.AddToStats("c", 5, 5);
    batch.DeleteStats("c");
    batch.AddToStats("d", 4, 4);
    batch.Delete(Cf::kItems, "d");  // another family: the pending delta stays
    batch.SetCounter("e", 1);       // a counter of the meta family: the deltas go first
    batch.AddToStats("f", 2, 2);
    batch.DeleteStats("f");
    batch.AddToStats("f", 1, 3);
    ASSERT_TRUE(storage.Write(batch).ok());
  }
  EXPECT_EQ(stats("a"), (std::pair<int64_t, int64_t>{1, 100}));
  EXPECT_EQ(stats("b"), (std::pair<int64_t, int64_t>{4, 31}));
  EXPECT_EQ(stats("c"), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(stats("d"), (std::pair<int64_t, int64_t>{4, 4}));
  EXPECT_EQ(stats("f"), (std::pair<int64_t, int64_t>{1, 3}));
  // Past max_successive_merges, the folded figure is the same.
  for (int i = 0; i < 100; ++i) {
    Storage::Batch batch(storage);
    batch.AddToStats("a", 1, 2);
    ASSERT_TRUE(storage.Write(batch).ok());
  }
  EXPECT_EQ(stats("a"), (std::pair<int64_t, int64_t>{101, 300}));
}

// Deltas that add up to nothing (an overwrite by an item of the same size) write nothing.
TEST_P(StatsTest, DeltasThatCancelWriteNothing) {
  std::unique_ptr<Storage> opened = OpenStore();
  ASSERT_TRUE(opened);
  Storage& storage = *opened;
  {
    Storage::Batch batch(storage);
    batch.AddToStats("zero", 0, 0);
    batch.AddToStats("cancel", 3, -40);
    batch.AddToStats("cancel", -3, 40);
    batch.AddToStats("kept", 0, 5);
    ASSERT_TRUE(storage.Write(batch).ok());
  }
  for (const char* key : {"zero", "cancel"}) {
    auto raw = storage.Get(Cf::kMeta, key);
    ASSERT_TRUE(raw.ok());
    EXPECT_FALSE(raw.value().has_value()) << key;
    EXPECT_EQ(Stats(storage, key), (std::pair<int64_t, int64_t>{0, 0})) << key;
  }
  EXPECT_EQ(Stats(storage, "kept"), (std::pair<int64_t, int64_t>{0, 5}));
}

// Writers adding to one pair from several threads lose nothing, whatever the mode; a pair
// set meanwhile is a figure the adds then build on.
TEST_P(StatsTest, ConcurrentAddsAllCount) {
  std::unique_ptr<Storage> opened = OpenStore();
  ASSERT_TRUE(opened);
  Storage& storage = *opened;
  constexpr int kThreads = 4, kWrites = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&storage, t] {
      for (int i = 0; i < kWrites; ++i) {
        Storage::Batch batch(storage);
        batch.Put(Cf::kItems, "k" + std::to_string(t) + "-" + std::to_string(i), "v");
        batch.AddToStats("pair", 1, 3);
        EXPECT_TRUE(storage.Write(batch).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(Stats(storage, "pair"),
            (std::pair<int64_t, int64_t>{kThreads * kWrites, 3 * kThreads * kWrites}));
}

INSTANTIATE_TEST_SUITE_P(Modes, StatsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "InMemory" : "OnDisk";
                         });

// An in-memory store kept for reuse forgets its pairs with its keys.
TEST(StorageTest, AReusedInMemoryStoreHasNoStats) {
  for (int round = 0; round < 3; ++round) {
    auto storage = Storage::Open(StorageOptions{"", true});
    ASSERT_TRUE(storage.ok());
    auto v = (*storage)->GetStats("pair");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v.value(), (std::pair<int64_t, int64_t>{0, 0})) << "round " << round;
    Storage::Batch batch(**storage);
    batch.AddToStats("pair", 1, 1);
    ASSERT_TRUE((*storage)->Write(batch).ok());
  }
}

// Items and index entries have a bloom filter in their memtables (storage.cc; what it saves
// is measured in bench/RESULTS.md, the layer check keeps RocksDB's own counters out of
// tests): point reads of keys that are and are not there, and range reads within a partition
// or from partitions the memtable has never seen, all find exactly the keys written.
TEST(StorageTest, ReadsFindEveryKeyBesideTheMemtableFilter) {
  auto storage = Storage::Open(StorageOptions{"", true});
  ASSERT_TRUE(storage.ok());
  // 12-byte partition prefixes (table id and token) "p0..." to "p9...", two items each.
  auto key = [](int partition, int item) {
    return "p" + std::to_string(partition) + std::string(10, 'x') + "/" + std::to_string(item);
  };
  Storage::Batch batch(**storage);
  for (int p = 0; p < 10; p += 2) {
    for (int i = 0; i < 2; ++i) batch.Put(Cf::kItems, key(p, i), "v");
  }
  ASSERT_TRUE((*storage)->Write(batch).ok());

  for (int p = 0; p < 10; ++p) {
    for (int i = 0; i < 3; ++i) {
      auto got = (*storage)->Get(Cf::kItems, key(p, i));
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(got->has_value(), p % 2 == 0 && i < 2) << key(p, i);
    }
  }

  // From a partition not in the memtable (p1) to the end, and within one partition.
  std::vector<std::string> seen;
  auto collect = [&](std::string_view k, std::string_view) {
    seen.emplace_back(k);
    return true;
  };
  ASSERT_TRUE((*storage)->ForEach(Cf::kItems, key(1, 0), "", collect).ok());
  EXPECT_EQ(seen.size(), 8u);
  seen.clear();
  ASSERT_TRUE((*storage)->ForEach(Cf::kItems, key(3, 0), key(7, 0), collect, true).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{key(6, 1), key(6, 0), key(4, 1), key(4, 0)}));
  seen.clear();
  ASSERT_TRUE((*storage)->ForEach(Cf::kItems, key(8, 0), key(8, 9), collect).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{key(8, 0), key(8, 1)}));
}

// The change log is read ignoring range deletions: records a trim range-deleted must not
// come back in the next store.
TEST(StorageTest, TrimmedChangesDoNotReappearInTheNextInMemoryStore) {
  {
    auto storage = Storage::Open(StorageOptions{"", true});
    ASSERT_TRUE(storage.ok());
    Storage::Batch batch(**storage);
    for (char c = 'a'; c <= 'j'; ++c) batch.Put(Cf::kChanges, std::string(1, c), "change");
    ASSERT_TRUE((*storage)->Write(batch).ok());
    ASSERT_TRUE((*storage)->DeleteRange(Cf::kChanges, "a", "f").ok());
  }
  auto storage = Storage::Open(StorageOptions{"", true});
  ASSERT_TRUE(storage.ok());
  EXPECT_EQ(CountKeys(**storage), 0u);
}

// Every kMaxMemtableRangeDeletes range deletions flush the family in the background (so
// that reads do not fragment ever more tombstones): deletions before and after each flush,
// and keys written between them, keep their effect.
TEST(StorageTest, RangeDeletionsKeepTheirEffectAcrossTheFlushesTheyCause) {
  auto storage = Storage::Open(StorageOptions{"", true});
  ASSERT_TRUE(storage.ok());
  {
    Storage::Batch batch(**storage);
    batch.Put(Cf::kItems, "z-kept", "v");
    ASSERT_TRUE((*storage)->Write(batch).ok());
  }
  const int rounds = 4 * kMaxMemtableRangeDeletes + 3;
  for (int round = 0; round < rounds; ++round) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "r%04d/", round);
    Storage::Batch batch(**storage);
    for (int i = 0; i < 5; ++i) batch.Put(Cf::kItems, prefix + std::to_string(i), "v");
    ASSERT_TRUE((*storage)->Write(batch).ok());
    if (round + 1 < rounds) {
      std::string end = prefix;
      end.back() = '0';  // '/' + 1: just past every key of the round
      ASSERT_TRUE((*storage)->DeleteRange(Cf::kItems, prefix, end).ok());
    }
  }
  std::vector<std::string> keys;
  ASSERT_TRUE((*storage)
                  ->ForEach(Cf::kItems, "", "",
                            [&](std::string_view k, std::string_view) {
                              keys.emplace_back(k);
                              return true;
                            })
                  .ok());
  char last[16];
  std::snprintf(last, sizeof last, "r%04d/", rounds - 1);
  std::vector<std::string> want;
  for (int i = 0; i < 5; ++i) want.push_back(last + std::to_string(i));
  want.push_back("z-kept");
  EXPECT_EQ(keys, want);
}

// A store that held more than a unit test's worth is not kept; the next open is empty too.
TEST(StorageTest, ABigInMemoryStoreIsNotReused) {
  {
    auto storage = Storage::Open(StorageOptions{"", true});
    ASSERT_TRUE(storage.ok());
    std::string value(64 * 1024, 'x');
    for (int b = 0; b < 8; ++b) {
      Storage::Batch batch(**storage);
      for (int i = 0; i < 16; ++i) batch.Put(Cf::kItems, std::to_string(b * 16 + i), value);
      ASSERT_TRUE((*storage)->Write(batch).ok());
    }
  }
  auto storage = Storage::Open(StorageOptions{"", true});
  ASSERT_TRUE(storage.ok());
  EXPECT_EQ(CountKeys(**storage), 0u);
}

// The memtables are charged to the block cache, and stay within their budget (half the
// cache, at least 32 MiB) however much is written: the cache's capacity bounds both.
TEST(StorageTest, MemtablesAreChargedToTheCacheAndBounded) {
  StorageOptions options{.in_memory = true};
  options.block_cache_bytes = size_t{64} << 20;
  auto storage = Storage::Open(options);
  ASSERT_TRUE(storage.ok());
  const std::string value(4096, 'x');
  size_t peak = 0;
  for (int b = 0; b < 256; ++b) {  // 64 MiB of values, twice the budget
    Storage::Batch batch(**storage);
    for (int i = 0; i < 64; ++i) batch.Put(Cf::kItems, std::to_string(b * 64 + i), value);
    ASSERT_TRUE((*storage)->Write(batch).ok());
    peak = std::max(peak, (*storage)->GetHealth().memtable_bytes);
  }
  StorageHealth h = (*storage)->GetHealth();
  EXPECT_GE(h.cache_capacity_bytes, options.block_cache_bytes);
  EXPECT_GT(h.memtable_bytes, size_t{1} << 20);
  EXPECT_GE(h.cache_usage_bytes, h.memtable_bytes);  // the memtables' charge is in it
  // A flush starts once the budget is reached; the memtable being flushed still counts
  // until it is written, so the peak may pass the budget by about one memtable.
  EXPECT_LT(peak, size_t{32 + 64} << 20);
}

}  // namespace
}  // namespace ddb

namespace ddb {
namespace {

// SortedWriter's files are ingested as they are: every pair reads back, next to keys
// written the ordinary way, on disk and in memory.
void CheckSortedWriter(const StorageOptions& options) {
  auto storage = Storage::Open(options).value();
  Storage::Batch batch(*storage);
  batch.Put(Cf::kIndexes, "a-ordinary", "1");
  ASSERT_TRUE(storage->Write(batch).ok());
  auto writer = storage->NewSortedWriter(Cf::kIndexes);
  char key[32];
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 5000; ++i) {
      std::snprintf(key, sizeof key, "b-%d-%06d", round, i);
      ASSERT_TRUE(writer->Add(key, std::string(100, 'v')).ok());
    }
    ASSERT_TRUE(writer->Finish().ok());
  }
  int n = 0;
  std::string previous;
  ASSERT_TRUE(storage
                  ->ForEach(Cf::kIndexes, "", "",
                            [&](std::string_view k, std::string_view) {
                              EXPECT_LT(previous, std::string(k));
                              previous = std::string(k);
                              ++n;
                              return true;
                            })
                  .ok());
  EXPECT_EQ(n, 10001);
}

TEST(StorageTest, SortedWriterIngestsItsFiles) {
  CheckSortedWriter(StorageOptions{.in_memory = true});
  char tmpl[] = "/tmp/ddb-storage-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  CheckSortedWriter(StorageOptions{.path = tmpl});
  std::filesystem::remove_all(tmpl);
}

// On a tmpfs, fallocate takes memory at once: a store there must not preallocate its WAL
// (RocksDB's default, ~70 MB for each WAL file).
TEST(StorageTest, AStoreOnATmpfsDoesNotPreallocateItsWal) {
  struct statfs fs {};
  if (statfs("/dev/shm", &fs) != 0 || fs.f_type != 0x01021994) GTEST_SKIP() << "no tmpfs";
  std::string tmpl = "/dev/shm/ddb-storage-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  {
    auto storage = Storage::Open(StorageOptions{tmpl, false});
    ASSERT_TRUE(storage.ok());
    Storage::Batch batch(**storage);
    batch.Put(Cf::kItems, "k", "v");
    ASSERT_TRUE((*storage)->Write(batch).ok());
    uint64_t wal_bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(tmpl)) {
      if (entry.path().extension() != ".log") continue;
      struct stat st {};
      ASSERT_EQ(stat(entry.path().c_str(), &st), 0);
      wal_bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
    EXPECT_LT(wal_bytes, 1u << 20);
  }
  std::filesystem::remove_all(tmpl);
}

// A clean close flushes the memtables: the next open has no WAL to replay (its first answer
// costs the open alone), and what was written reads back from the files.
TEST(StorageTest, ACleanCloseLeavesNoWalToReplay) {
  std::string dir = (std::filesystem::temp_directory_path() / "ddb-storage-test-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  auto wal_bytes = [&] {
    uint64_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".log") bytes += entry.file_size();
    }
    return bytes;
  };
  const std::string value(1024, 'v');
  {
    auto storage = Storage::Open(StorageOptions{dir, false});
    ASSERT_TRUE(storage.ok());
    for (int b = 0; b < 16; ++b) {
      Storage::Batch batch(**storage);
      for (int i = 0; i < 64; ++i) batch.Put(Cf::kItems, std::to_string(b * 64 + i), value);
      batch.AddToStats("stats", 64, 64 * 1024);
      ASSERT_TRUE((*storage)->Write(batch).ok());
    }
    EXPECT_GT(wal_bytes(), 1u << 20);  // the writes are in the WAL until the close
  }
  EXPECT_LT(wal_bytes(), 4096u);
  {
    auto storage = Storage::Open(StorageOptions{dir, false});
    ASSERT_TRUE(storage.ok());
    EXPECT_EQ(CountKeys(**storage), 1024u + 1u);
    auto stats = (*storage)->GetStats("stats");
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats.value(), (std::pair<int64_t, int64_t>{1024, 1024 * 1024}));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ddb
