#include "engine/vector/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ddb/number.h"

namespace ddb {
namespace {

VectorIndexDefinition Definition(VectorDistanceFunction f, int64_t dims, bool partitioned = false) {
  VectorIndexDefinition def;
  def.index_name = "v";
  def.vector_attribute = "emb";
  def.dimensions = dims;
  def.distance_function = f;
  if (partitioned) def.search_schema.push_back({"tenant", SearchSchemaElementType::kHash});
  return def;
}

Item ItemOf(const std::vector<float>& v, const std::string& tenant = "") {
  std::vector<AttributeValue> list;
  char buf[32];
  for (float x : v) {
    std::snprintf(buf, sizeof buf, "%.9g", x);
    list.push_back(AttributeValue::N(NormalizeNumber(buf).value()));
  }
  Item item{{"emb", AttributeValue::L(list)}};
  if (!tenant.empty()) item["tenant"] = AttributeValue::S(tenant);
  return item;
}

std::vector<std::string> Keys(const std::vector<VectorIndex::Hit>& hits) {
  std::vector<std::string> keys;
  for (const auto& h : hits) keys.push_back(h.key);
  return keys;
}

double Exact(VectorDistanceFunction f, const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0, sq = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double{a[i]} * b[i];
    na += double{a[i]} * a[i];
    nb += double{b[i]} * b[i];
    sq += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  }
  switch (f) {
    case VectorDistanceFunction::kEuclidean:
      return sq;
    case VectorDistanceFunction::kCosine:
      return 1 - dot / std::sqrt(na * nb);
    case VectorDistanceFunction::kDotProduct:
      return -dot;
  }
  return 0;
}

TEST(VectorIndexTest, ExactSearchOrderCosine) {
  VectorIndex index(Definition(VectorDistanceFunction::kCosine, 2));
  index.Apply("same", ItemOf({2, 0}));      // cos 1
  index.Apply("diagonal", ItemOf({1, 1}));  // cos 0.707
  index.Apply("up", ItemOf({0, 5}));        // cos 0
  index.Apply("back", ItemOf({-3, 0}));     // cos -1
  auto hits = index.Search({1, 0}, 4, {});
  EXPECT_EQ(Keys(hits), (std::vector<std::string>{"same", "diagonal", "up", "back"}));
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_NEAR(hits[0].score, 0, 1e-6);
  EXPECT_NEAR(hits[1].score, 1 - std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(hits[2].score, 1, 1e-6);
  EXPECT_NEAR(hits[3].score, 2, 1e-6);
}

TEST(VectorIndexTest, ExactSearchOrderEuclidean) {
  VectorIndex index(Definition(VectorDistanceFunction::kEuclidean, 2));
  index.Apply("far", ItemOf({10, 0}));
  index.Apply("near", ItemOf({1, 1}));
  index.Apply("middle", ItemOf({3, 4}));
  auto hits = index.Search({0, 0}, 2, {});
  EXPECT_EQ(Keys(hits), (std::vector<std::string>{"near", "middle"}));
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_NEAR(hits[0].score, std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(hits[1].score, 5, 1e-6);
}

TEST(VectorIndexTest, ExactSearchOrderDotProduct) {
  VectorIndex index(Definition(VectorDistanceFunction::kDotProduct, 2));
  index.Apply("long", ItemOf({10, 0}));     // 10: a longer vector beats a closer one
  index.Apply("close", ItemOf({1, 0}));     // 1
  index.Apply("side", ItemOf({3, 3}));      // 3
  index.Apply("against", ItemOf({-2, 0}));  // -2
  auto hits = index.Search({1, 0}, 4, {});
  EXPECT_EQ(Keys(hits), (std::vector<std::string>{"long", "side", "close", "against"}));
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_NEAR(hits[0].score, 10, 1e-6);
  EXPECT_NEAR(hits[3].score, -2, 1e-6);
}

TEST(VectorIndexTest, UpdateAndDeleteMoveEntries) {
  VectorIndex index(Definition(VectorDistanceFunction::kEuclidean, 2, /*partitioned=*/true));
  index.Apply("a", ItemOf({0, 0}, "t1"));
  index.Apply("b", ItemOf({5, 5}, "t1"));
  index.Apply("c", ItemOf({9, 9}, "t2"));
  EXPECT_EQ(Keys(index.Search({0, 0}, 1, {})), std::vector<std::string>{"a"});
  // The update moves "a" away: "b" is now nearest.
  index.Apply("a", ItemOf({100, 100}, "t1"));
  EXPECT_EQ(Keys(index.Search({0, 0}, 3, {})), (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(index.Size(), 3u);
  // A change of partition moves the entry to the other partition.
  index.Apply("b", ItemOf({5, 5}, "t2"));
  VectorIndex::Equalities t1{{"tenant", AttributeValue::S("t1")}};
  VectorIndex::Equalities t2{{"tenant", AttributeValue::S("t2")}};
  EXPECT_EQ(Keys(index.Search({0, 0}, 3, t1)), std::vector<std::string>{"a"});
  EXPECT_EQ(Keys(index.Search({0, 0}, 3, t2)), (std::vector<std::string>{"b", "c"}));
  // Deleted, or without the vector or the partition attribute: no entry.
  index.Apply("c", std::nullopt);
  index.Apply("a", Item{{"tenant", AttributeValue::S("t1")}});
  index.Apply("b", ItemOf({5, 5}));
  EXPECT_TRUE(index.Search({0, 0}, 3, t1).empty());
  EXPECT_TRUE(index.Search({0, 0}, 3, t2).empty());
  EXPECT_EQ(index.Size(), 0u);
}

// Vectors on an 8-dimensional subspace of `dims` dimensions plus a little noise (embeddings
// have a low intrinsic dimension), norms varying between 0.5 and 2.
std::vector<std::vector<float>> Synthetic(size_t n, size_t dims, uint32_t seed) {
  std::mt19937 basis_rng(1);
  std::normal_distribution<float> g(0, 1);
  std::vector<std::vector<float>> basis(8, std::vector<float>(dims));
  for (auto& b : basis)
    for (auto& x : b) x = g(basis_rng);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> scale(0.5f, 2.0f);
  std::vector<std::vector<float>> out(n, std::vector<float>(dims));
  for (auto& v : out) {
    for (const auto& b : basis) {
      float c = g(rng);
      for (size_t i = 0; i < dims; ++i) v[i] += c * b[i];
    }
    double norm = 0;
    for (float& x : v) {
      x += 0.05f * g(rng);
      norm += double{x} * x;
    }
    const float s = scale(rng) / static_cast<float>(std::sqrt(norm));
    for (float& x : v) x *= s;
  }
  return out;
}

// Recall@10 of the graph against exact search. The graph is used from kVectorGraphThreshold
// entries on, so the set has that size.
double GraphRecall(VectorDistanceFunction f, VectorIndex* index_out = nullptr) {
  const size_t n = kVectorGraphThreshold, dims = 32, queries = 100, k = 10;
  auto data = Synthetic(n, dims, 42);
  auto qs = Synthetic(queries, dims, 7);
  VectorIndex local(Definition(f, dims));
  VectorIndex& index = index_out ? *index_out : local;
  // A fixed ef: the calibration could also keep searching exactly, when that is faster.
  index.SetEfSearch(kHnswEfSearch);
  for (size_t i = 0; i < n; ++i) index.Apply(std::to_string(i), ItemOf(data[i]));
  EXPECT_TRUE(index.WantsGraph());
  EXPECT_TRUE(index.BuildGraph(2));
  EXPECT_TRUE(index.HasGraph());
  double hits = 0;
  for (const auto& q : qs) {
    std::vector<std::pair<double, size_t>> all(n);
    for (size_t i = 0; i < n; ++i) all[i] = {Exact(f, q, data[i]), i};
    std::partial_sort(all.begin(), all.begin() + k, all.end());
    auto found = index.Search(q, k, {});
    EXPECT_EQ(found.size(), k);
    for (const auto& h : found) {
      for (size_t j = 0; j < k; ++j) hits += std::to_string(all[j].second) == h.key;
    }
    // Best first, with the exact score.
    for (size_t j = 1; j < found.size(); ++j) {
      if (f == VectorDistanceFunction::kDotProduct) {
        EXPECT_GE(found[j - 1].score, found[j].score);
      } else {
        EXPECT_LE(found[j - 1].score, found[j].score);
      }
    }
  }
  return hits / static_cast<double>(k * queries);
}

TEST(VectorIndexTest, GraphRecallCosine) {
  EXPECT_GE(GraphRecall(VectorDistanceFunction::kCosine), 0.95);
}

TEST(VectorIndexTest, GraphRecallEuclidean) {
  EXPECT_GE(GraphRecall(VectorDistanceFunction::kEuclidean), 0.95);
}

TEST(VectorIndexTest, GraphRecallDotProduct) {
  EXPECT_GE(GraphRecall(VectorDistanceFunction::kDotProduct), 0.95);
}

TEST(VectorIndexTest, GraphFollowsUpdatesAndDeletes) {
  VectorIndex index(Definition(VectorDistanceFunction::kEuclidean, 32));
  GraphRecall(VectorDistanceFunction::kEuclidean, &index);
  ASSERT_TRUE(index.HasGraph());
  const auto data = Synthetic(kVectorGraphThreshold, 32, 42);
  auto near = [&](size_t i) {
    std::vector<float> v = data[i];
    v[0] += 1e-3f;
    return v;
  };
  // A new entry beside entry 5 is found there; moved beside entry 9, it is found there and
  // no longer beside 5.
  index.Apply("new", ItemOf(near(5)));
  EXPECT_EQ(Keys(index.Search(near(5), 1, {})), std::vector<std::string>{"new"});
  index.Apply("new", ItemOf(near(9)));
  EXPECT_EQ(Keys(index.Search(near(9), 1, {})), std::vector<std::string>{"new"});
  EXPECT_EQ(Keys(index.Search(near(5), 1, {})), std::vector<std::string>{"5"});
  // Deleted, it is no longer returned; an existing entry moved beside 5 is.
  index.Apply("new", std::nullopt);
  EXPECT_EQ(Keys(index.Search(near(9), 1, {})), std::vector<std::string>{"9"});
  index.Apply("17", ItemOf(near(5)));
  EXPECT_EQ(Keys(index.Search(near(5), 1, {})), std::vector<std::string>{"17"});
  EXPECT_EQ(index.Size(), kVectorGraphThreshold);
}

}  // namespace
}  // namespace ddb
