// SortedChunk (sorted_chunk.h): pairs added in any order come out in key order, whatever
// their lengths and first bytes (the integer prefix compare must agree with bytewise order).
#include "engine/storage/sorted_chunk.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace ddb {
namespace {

TEST(SortedChunk, WritesInKeyOrder) {
  auto storage = Storage::Open(StorageOptions{.in_memory = true}).value();
  std::mt19937 rng(7);
  std::map<std::string, std::string> want;
  SortedChunk chunk;
  for (int i = 0; i < 3000; ++i) {
    // Short and long keys, shared prefixes, zero bytes, several leading ids.
    std::string key(rng() % 20, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 3 == 0 ? 0 : rng() % 4);
    if (want.count(key)) continue;
    const std::string value = "v" + std::to_string(i);
    want[key] = value;
    chunk.Add(key, value);
  }
  auto writer = storage->NewSortedWriter(Cf::kIndexes);
  ASSERT_TRUE(chunk.WriteTo(writer.get()).ok());  // SstFileWriter refuses keys out of order
  ASSERT_TRUE(chunk.empty());
  ASSERT_TRUE(writer->Finish().ok());
  std::map<std::string, std::string> got;
  ASSERT_TRUE(storage
                  ->ForEach(Cf::kIndexes, "", "",
                            [&](std::string_view k, std::string_view v) {
                              got[std::string(k)] = std::string(v);
                              return true;
                            })
                  .ok());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace ddb
