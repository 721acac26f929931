// vector_bench: the vector index (engine/vector/vector_index.h) in-process. For random and
// clustered data and each distance function: the rate of entering items (flat store), the
// HNSW build rate (with the index's ef calibration), the ef searches use ("exact" when the
// index dropped the graph as slower than the exact scan at the recall target), Recall@10 of
// the searches against exact search (computed here by brute force), search latency
// (p50/p99) and memory per vector. Results: bench/RESULTS.md. Flags: vector_bench --help.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/number.h"
#include "engine/vector/vector_distance.h"
#include "engine/vector/vector_index.h"

using namespace ddb;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Uniform in [-1, 1]^dims, or Gaussian noise (sigma 0.15) around `centres`. The queries
// are drawn like the data (same centres, other points): queries around centres the data
// does not have would ask for neighbours of points far from every cluster, where all
// distances are nearly equal.
std::vector<std::vector<float>> MakeCentres(size_t dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<std::vector<float>> centres(100, std::vector<float>(dims));
  for (auto& c : centres)
    for (auto& x : c) x = u(rng);
  return centres;
}

std::vector<std::vector<float>> MakeData(size_t n, size_t dims,
                                         const std::vector<std::vector<float>>* centres,
                                         uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::normal_distribution<float> noise(0, 0.15f);
  std::vector<std::vector<float>> out(n, std::vector<float>(dims));
  for (auto& v : out) {
    const std::vector<float>* c = centres ? &(*centres)[rng() % centres->size()] : nullptr;
    for (size_t i = 0; i < dims; ++i) v[i] = c ? (*c)[i] + noise(rng) : u(rng);
  }
  return out;
}

double Distance(VectorDistanceFunction f, const std::vector<float>& a,
                const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0, sq = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
    sq += (a[i] - b[i]) * (a[i] - b[i]);
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

Item ItemOf(size_t i, const std::vector<float>& v) {
  std::vector<AttributeValue> list;
  list.reserve(v.size());
  char buf[32];
  for (float x : v) {
    std::snprintf(buf, sizeof buf, "%.7g", x);
    list.push_back(AttributeValue::N(NormalizeNumber(buf).value()));
  }
  return Item{{"pk", AttributeValue::S(std::to_string(i))}, {"emb", AttributeValue::L(list)}};
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 100000, dims = 128, queries = 200, ef = 0;
  unsigned threads = 2;
  std::string only_data, only_function;
  for (int i = 1; i < argc; i += 2) {  // flag, value
    if (!std::strcmp(argv[i], "--help") || i + 1 == argc) {
      std::printf(
          "vector_bench [--n 100000] [--dims 128] [--queries 200] [--threads 2] [--ef 0]\n"
          "             [--data random|clustered] [--function COSINE|EUCLIDEAN|DOT_PRODUCT]\n"
          "--ef 0: the index calibrates ef (or keeps searching exactly); another value: that ef\n");
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
    if (!std::strcmp(argv[i], "--n")) n = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dims")) dims = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--queries")) queries = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--ef")) ef = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--data")) only_data = argv[i + 1];
    if (!std::strcmp(argv[i], "--function")) only_function = argv[i + 1];
  }
  std::printf("n=%zu dims=%zu queries=%zu threads=%u M=%zu efC=%zu ef=%zu kernels=%s\n", n, dims,
              queries, threads, kHnswM, kHnswEfConstruction, ef,
              VectorKernelsUseAvx2() ? "avx2+fma" : "portable");
  std::printf("%-9s %-11s %10s %10s %6s %8s %9s %9s %9s %10s\n", "data", "function", "enter/s",
              "build/s", "ef", "recall", "p50_us", "p99_us", "exact_us", "bytes/vec");
  // As the engine's: searches' exact scans use `threads` cores (the caller and helpers).
  ScanHelpers helpers(threads > 1 ? threads - 1 : 0);
  const auto centres = MakeCentres(dims, 1);
  for (bool clustered : {false, true}) {
    if (!only_data.empty() && only_data != (clustered ? "clustered" : "random")) continue;
    auto data = MakeData(n, dims, clustered ? &centres : nullptr, 42);
    auto qs = MakeData(queries, dims, clustered ? &centres : nullptr, 7);
    std::vector<Item> items;
    items.reserve(n);
    for (size_t i = 0; i < n; ++i) items.push_back(ItemOf(i, data[i]));
    for (auto f : {VectorDistanceFunction::kCosine, VectorDistanceFunction::kEuclidean,
                   VectorDistanceFunction::kDotProduct}) {
      if (!only_function.empty() && only_function != EnumName(f)) continue;
      VectorIndexDefinition def;
      def.index_name = "bench";
      def.vector_attribute = "emb";
      def.dimensions = static_cast<int64_t>(dims);
      def.distance_function = f;
      VectorIndex index(def, &helpers);
      index.SetEfSearch(ef);
      auto t0 = Clock::now();
      for (size_t i = 0; i < n; ++i) index.Apply(std::to_string(i), items[i]);
      auto t1 = Clock::now();
      // Exact search times, before the graph exists.
      std::vector<double> exact_us;
      for (size_t q = 0; q < std::min<size_t>(queries, 20); ++q) {
        std::vector<float> query = qs[q];
        auto a = Clock::now();
        index.Search(query, 10, {});
        exact_us.push_back(Seconds(a, Clock::now()) * 1e6);
      }
      std::sort(exact_us.begin(), exact_us.end());
      auto t2 = Clock::now();
      if (!index.BuildGraph(threads)) {
        std::printf("graph build failed\n");
        return 1;
      }
      auto t3 = Clock::now();
      double hits = 0;
      std::vector<double> us;
      for (size_t q = 0; q < queries; ++q) {
        std::vector<std::pair<double, size_t>> all(n);
        for (size_t i = 0; i < n; ++i) all[i] = {Distance(f, qs[q], data[i]), i};
        std::partial_sort(all.begin(), all.begin() + 10, all.end());
        auto a = Clock::now();
        auto found = index.Search(qs[q], 10, {});
        us.push_back(Seconds(a, Clock::now()) * 1e6);
        for (const auto& h : found) {
          size_t id = std::stoul(h.key);
          for (size_t j = 0; j < 10; ++j) hits += all[j].second == id;
        }
      }
      std::sort(us.begin(), us.end());
      const std::string used = index.HasGraph() ? std::to_string(index.GraphEf()) : "exact";
      std::printf("%-9s %-11s %10.0f %10.0f %6s %8.4f %9.0f %9.0f %9.0f %10.0f\n",
                  clustered ? "clustered" : "random", std::string(EnumName(f)).c_str(),
                  n / Seconds(t0, t1), n / Seconds(t2, t3), used.c_str(), hits / (10.0 * queries),
                  us[us.size() / 2], us[us.size() * 99 / 100], exact_us[exact_us.size() / 2],
                  static_cast<double>(index.MemoryBytes()) / n);
      std::fflush(stdout);
    }
  }
  return 0;
}
