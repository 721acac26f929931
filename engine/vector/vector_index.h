// Vector indexes in memory: one VectorIndex per vector index of a table, holding every
// indexed item's vector (float32) in a flat store searched exactly, and, once the index holds
// kVectorGraphThreshold vectors, an HNSW graph (hnswlib) searched approximately. Nothing of it
// is persisted: the definitions are in the table record (catalog.cc) and the contents are
// rebuilt from the table's items at open (docs/architecture/vector.md).
//
// Why hnswlib: it is header-only (Debian's libhnswlib-dev, no link dependency and no BLAS),
// small enough to read, supports updates and deletes in place (markDelete, addPoint on an
// existing label) and concurrent inserts, and reaches recall above 0.95 at 128 dimensions in
// well under a millisecond per search on one core. faiss (libfaiss-dev) would bring a large
// shared library, OpenMP and BLAS for indexes (IVF, PQ) that need training, which a table
// whose items come and go one by one does not suit.
//
// Thread safety: all methods may be called concurrently (a shared mutex per index: searches
// share it, writes take it alone).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/vector/scan_helpers.h"

namespace ddb {

// An index with fewer vectors than this is searched exactly (a scan of the flat store: at
// 128 dimensions about 1 ms per 10,000 vectors here); from this size on, a background
// thread builds the HNSW graph, and searches use it once it is there.
inline constexpr size_t kVectorGraphThreshold = 20000;
// HNSW parameters: links per node (M), the candidate list while inserting
// (ef_construction) and while searching (ef, at least TopK). Chosen with
// bench/vector_bench.cc for Recall@10 >= 0.95 on random and clustered 128-dimension data
// (bench/RESULTS.md).
inline constexpr size_t kHnswM = 16;
inline constexpr size_t kHnswEfConstruction = 64;
inline constexpr size_t kHnswEfSearch = 160;
// After a build, the graph is searched with the smallest ef of kHnswEfSearch * 2^i
// (i = 0..4) that reaches this Recall@10 on a sample of the index's own vectors, or dropped
// (searches stay exact, until the index doubles) when no such ef costs less than the exact
// scan, in distance computations (kHnswEfSearch itself is always accepted when it reaches the
// target). Graphs of an eighth and a quarter of the vectors are probed first, so that data
// on which the whole graph would be dropped costs no whole build.
inline constexpr double kVectorRecallTarget = 0.95;

// Limits of vector indexes. Verified (API reference): Dimensions >= 1, TopK 1..100 (the
// troubleshooting page). Guessed (the quota page was not available): the others.
inline constexpr int64_t kMaxVectorDimensions = 4096;   // guessed
inline constexpr size_t kMaxVectorIndexesPerTable = 5;  // guessed
inline constexpr size_t kMaxInlineFilters = 5;          // guessed (per index)
inline constexpr int64_t kMaxTopK = 100;

// The vector `item` holds for `def`: nullopt when the item has no such attribute. A value
// that is not a list of `dimensions` numbers each representable as a finite float32 is
// refused (kValidation). For COSINE the vector is not normalised here.
Result<std::optional<std::vector<float>>> ItemVector(const VectorIndexDefinition& def,
                                                     const Item& item);
// Every vector index of `d` against `item` (a write's new item). Errors: kValidation.
Status ValidateVectorAttributes(const TableDescription& d, const Item& item);
// A search vector (the request's AttributeValues) as float32. Errors: kValidation.
Result<std::vector<float>> SearchVectorOf(const std::vector<AttributeValue>& values,
                                          int64_t dimensions);

class VectorIndex {
 public:
  // `helpers` (may be null: serial) run parts of large exact scans; they outlive the index.
  explicit VectorIndex(VectorIndexDefinition def, ScanHelpers* helpers = nullptr);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  const VectorIndexDefinition& definition() const { return def_; }

  // The entry of item `key` becomes what `item` makes of it: its vector (and SearchSchema
  // values) when the item has a valid vector and, if the index has a HASH attribute, that
  // attribute; otherwise the item has no entry. nullopt: the item was deleted.
  void Apply(const std::string& key, const std::optional<Item>& item);

  // SearchConditionExpression's equalities: attribute name -> value.
  using Equalities = std::vector<std::pair<std::string, AttributeValue>>;
  struct Hit {
    std::string key;  // the item key (engine/storage/key_codec.h)
    double score = 0;
  };
  // The k entries nearest to `query` (dimensions() floats) among those whose SearchSchema
  // values equal `filter`, best first, with their scores as the distance function defines
  // them (COSINE 0..2 and EUCLIDEAN: lower is closer; DOT_PRODUCT: higher is closer).
  std::vector<Hit> Search(const std::vector<float>& query, size_t k, const Equalities& filter);

  size_t Size() const;
  size_t MemoryBytes() const;
  bool HasGraph() const;
  // Whether the last graph build found the exact scan cheaper (tried again at twice the size).
  bool GraphDeclined() const;
  // Whether the graph should be built now (large enough, none yet, no build under way).
  bool WantsGraph() const;
  // Builds the graph from the entries as they are, then catches up with the writes made
  // meanwhile and starts using it. Returns false when the library failed (logged by the
  // caller; searches stay exact). `threads` insert in parallel.
  bool BuildGraph(unsigned threads);
  // The graph's candidate list while searching (hnswlib's ef; at least TopK is used) for
  // graphs built from now on: 0 (the default) chooses it by calibration
  // (kVectorRecallTarget), another value is used as it is. For bench/vector_bench.cc.
  void SetEfSearch(size_t ef) { ef_search_ = ef; }
  // The ef the graph is searched with; 0 without a graph.
  size_t GraphEf() const;

 private:
  struct Graph;
  struct Slot {
    std::string key;                                           // empty: free
    std::vector<std::optional<AttributeValue>> schema_values;  // in SearchSchema order
  };
  // REQUIRES: mu_ held (any mode).
  bool Matches(uint32_t slot, const std::vector<std::pair<size_t, const AttributeValue*>>& f) const;
  double Distance(const float* a, const float* b) const;  // smaller is closer
  double ScoreOf(double distance) const;
  using Nearest = std::priority_queue<std::pair<double, uint32_t>>;  // the k smallest at most
  // Adds `slot` to `best` when it is live, matches `f` and is among the k nearest.
  void Consider(const std::vector<float>& query, size_t k,
                const std::vector<std::pair<size_t, const AttributeValue*>>& f, uint32_t slot,
                Nearest* best) const;
  std::vector<Hit> ExactSearch(const std::vector<float>& query, size_t k,
                               const std::vector<std::pair<size_t, const AttributeValue*>>& f,
                               const std::unordered_set<uint32_t>* candidates) const;
  void RemoveSlot(uint32_t slot);  // REQUIRES: mu_ held exclusively
  // The ef for `graph` (built from `data`'s `live` slots) at the recall target, and the work
  // of a search at that ef as a share of an exact scan of `scanned` vectors; nullopt: the
  // exact scan is cheaper.
  struct Calibration {
    size_t ef = 0;
    double cost_share = 0;
  };
  std::optional<Calibration> Calibrate(const Graph& graph, const std::vector<uint32_t>& live,
                                       const std::vector<float>& data, size_t scanned) const;
  // BuildGraph's steps. An empty graph for `data`'s `live` slots, with room for `capacity`:
  // COSINE and EUCLIDEAN in their kernels' spaces, DOT_PRODUCT augmented by one dimension
  // into squared L2. Throws what hnswlib throws.
  std::unique_ptr<Graph> NewGraph(const std::vector<uint32_t>& live, const std::vector<float>& data,
                                  size_t capacity) const;
  // Inserts `data`'s slots live[begin, end) into `graph` from `threads` threads; sets
  // *failed (and skips the rest) when hnswlib throws.
  void InsertSlots(Graph& graph, const std::vector<float>& data, const std::vector<uint32_t>& live,
                   size_t begin, size_t end, unsigned threads, std::atomic<bool>* failed) const;
  // Whether the whole graph would search cheaper than an exact scan, judged from probe
  // graphs of an eighth and a quarter of the vectors, inserted into `graph` (*built: how
  // many of `live` are in it). True, too, when an insert failed (*failed).
  bool GraphWorthBuilding(Graph& graph, const std::vector<uint32_t>& live,
                          const std::vector<float>& data, unsigned threads, size_t* built,
                          std::atomic<bool>* failed) const;
  // Adds the slots written during a build (dirty_) to `graph`, as they are now; false when
  // hnswlib failed. REQUIRES: mu_ held exclusively.
  bool CatchUpWithWrites(Graph& graph);

  const VectorIndexDefinition def_;
  ScanHelpers* const helpers_;
  const size_t dim_;
  std::optional<size_t> hash_position_;  // the HASH attribute's place in the SearchSchema
  mutable std::shared_mutex mu_;
  std::vector<float> data_;  // slot i at [i * dim_, (i + 1) * dim_); normalised for COSINE
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::unordered_map<std::string, uint32_t> slot_of_;  // item key -> slot
  // HASH value (tagged scalar) -> its slots, for searches of one vector index partition.
  std::unordered_map<std::string, std::unordered_set<uint32_t>> partitions_;
  std::unique_ptr<Graph> graph_;        // guarded by mu_
  bool building_ = false;               // guarded by mu_
  std::unordered_set<uint32_t> dirty_;  // slots written while building_; guarded by mu_
  std::atomic<size_t> ef_search_{0};
  size_t declined_at_ = 0;  // the size at which a graph was built and dropped; guarded by mu_
};

// Every vector index of the engine, by (table id, index name), and the thread that builds
// their graphs.
class VectorIndexes {
 public:
  VectorIndexes();
  ~VectorIndexes();  // stops and joins the builder

  std::shared_ptr<VectorIndex> Find(uint32_t table_id, const std::string& name) const;
  // A new, empty index (replacing any of that name).
  std::shared_ptr<VectorIndex> Create(uint32_t table_id, const VectorIndexDefinition& def);
  void Drop(uint32_t table_id, const std::string& name);
  void DropTable(uint32_t table_id);
  std::vector<std::pair<uint32_t, std::shared_ptr<VectorIndex>>> All() const;
  // Wakes the builder (an index may have grown past kVectorGraphThreshold).
  void Nudge();
  uint64_t graph_build_failures() const { return build_failures_; }

 private:
  void BuildLoop();
  ScanHelpers helpers_;  // declared first: destroyed after the indexes it serves
  mutable std::mutex mu_;
  std::map<std::pair<uint32_t, std::string>, std::shared_ptr<VectorIndex>> indexes_;
  std::condition_variable cv_;
  bool stop_ = false;    // guarded by mu_
  bool nudged_ = false;  // guarded by mu_
  std::atomic<uint64_t> build_failures_{0};
  std::thread builder_;
};

}  // namespace ddb
