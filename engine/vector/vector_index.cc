#include "engine/vector/vector_index.h"

// hnswlib's SSE search loops prefetch the neighbour after the last one, reading the id one past
// the end of a link list to compute its address. It stays inside the allocation in practice,
// but AddressSanitizer rightly flags the read, so address-sanitized builds use hnswlib's plain
// loops, which have no such read.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <queue>

#include "engine/vector/vector_distance.h"

namespace ddb {
namespace {

// The attribute type a SearchSchema value must have (its AttributeDefinitions entry).
std::string Tagged(const AttributeValue& v) {
  std::string s(1, static_cast<char>(v.type()));
  s += v.scalar();
  return s;
}

// A number's text as a float32, when it is one (finite, in range).
std::optional<float> AsFloat(const std::string& text) {
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(d) || std::fabs(d) > FLT_MAX) return std::nullopt;
  return static_cast<float>(d);
}

void Normalise(float* v, size_t dim) {
  double sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += static_cast<double>(v[i]) * v[i];
  if (sum <= 0) return;  // a zero vector stays zero: its cosine distance to anything is 1
  const float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (size_t i = 0; i < dim; ++i) v[i] *= inv;
}

// Messages for vectors that do not fit the index. The troubleshooting page says writes are
// refused for a wrong dimension and for a wrong type ("Invalid type for parameter", naming
// the element for a single bad member); the exact sentences are guessed in that spirit.
Error NotAVector(const VectorIndexDefinition& def, const AttributeValue& v) {
  return Error::Validation(
      "One or more parameter values were invalid: Invalid type for parameter " +
      def.vector_attribute + ", value type: " + std::string(AttributeTypeName(v.type())) +
      ", expected: a list (L) of " + std::to_string(def.dimensions) +
      " numbers (N). IndexName: " + def.index_name);
}

}  // namespace

Result<std::optional<std::vector<float>>> ItemVector(const VectorIndexDefinition& def,
                                                     const Item& item) {
  auto it = item.find(def.vector_attribute);
  if (it == item.end()) return std::optional<std::vector<float>>();
  const AttributeValue& v = it->second;
  if (v.type() != AttributeType::kL) return NotAVector(def, v);
  const auto& list = v.list();
  if (static_cast<int64_t>(list.size()) != def.dimensions) {
    return Error::Validation(
        "One or more parameter values were invalid: Vector dimension mismatch for attribute " +
        def.vector_attribute + ": expected " + std::to_string(def.dimensions) +
        " dimensions, got " + std::to_string(list.size()) + ". IndexName: " + def.index_name);
  }
  std::vector<float> out(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const AttributeValue& e = list[i];
    std::optional<float> f;
    if (e.type() == AttributeType::kN) f = AsFloat(e.scalar());
    if (!f) {
      return Error::Validation(
          "One or more parameter values were invalid: Invalid type for parameter " +
          def.vector_attribute + "[" + std::to_string(i) +
          "], value type: " + std::string(AttributeTypeName(e.type())) +
          (e.type() == AttributeType::kN ? " out of the float32 range" : "") +
          ", expected: N (a 32-bit float). IndexName: " + def.index_name);
    }
    out[i] = *f;
  }
  return std::optional<std::vector<float>>(std::move(out));
}

Status ValidateVectorAttributes(const TableDescription& d, const Item& item) {
  for (const VectorIndexDefinition& def : d.vector_indexes) {
    if (def.index_status == IndexStatus::kDeleting) continue;
    DDB_RETURN_IF_ERROR(ItemVector(def, item).status());
    // SearchSchema attributes are typed by AttributeDefinitions, as GSI keys are.
    for (const SearchSchemaElement& e : def.search_schema) {
      auto it = item.find(e.attribute_name);
      if (it == item.end()) continue;
      ScalarType want = d.AttributeTypeOf(e.attribute_name);
      AttributeType type = want == ScalarType::kS   ? AttributeType::kS
                           : want == ScalarType::kN ? AttributeType::kN
                                                    : AttributeType::kB;
      if (it->second.type() != type) {
        return Error::Validation(
            "One or more parameter values were invalid: Type mismatch for Index Key " +
            e.attribute_name + " Expected: " + std::string(AttributeTypeName(type)) + " Actual: " +
            std::string(AttributeTypeName(it->second.type())) + " IndexName: " + def.index_name);
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<float>> SearchVectorOf(const std::vector<AttributeValue>& values,
                                          int64_t dimensions) {
  // Guessed wording (the service's is not published): the search vector must have the
  // index's dimensions, each element a number that fits a float32.
  if (static_cast<int64_t>(values.size()) != dimensions) {
    return Error::Validation("SearchVector dimension mismatch: expected " +
                             std::to_string(dimensions) + " dimensions, got " +
                             std::to_string(values.size()));
  }
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    std::optional<float> f;
    if (values[i].type() == AttributeType::kN) f = AsFloat(values[i].scalar());
    if (!f) {
      return Error::Validation(
          "Invalid type for parameter SearchVector[" + std::to_string(i) + "], value type: " +
          std::string(AttributeTypeName(values[i].type())) + ", expected: N (a 32-bit float)");
    }
    out[i] = *f;
  }
  return out;
}

// --- VectorIndex ---

namespace {
// hnswlib spaces over vector_distance.h's kernels (run-time AVX2 where the CPU has it).
class KernelSpace final : public hnswlib::SpaceInterface<float> {
 public:
  enum class Kind { kSquaredL2, kOneMinusInnerProduct };
  KernelSpace(Kind kind, size_t dim) : kind_(kind), dim_(dim) {}
  size_t get_data_size() override { return dim_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override {
    return kind_ == Kind::kSquaredL2 ? &L2 : &OneMinusIp;
  }
  void* get_dist_func_param() override { return &dim_; }

 private:
  static float L2(const void* a, const void* b, const void* dim) {
    return SquaredL2(static_cast<const float*>(a), static_cast<const float*>(b),
                     *static_cast<const size_t*>(dim));
  }
  static float OneMinusIp(const void* a, const void* b, const void* dim) {
    return 1.0f - InnerProduct(static_cast<const float*>(a), static_cast<const float*>(b),
                               *static_cast<const size_t*>(dim));
  }
  Kind kind_;
  size_t dim_;
};
}  // namespace

// The graph's space. COSINE: the normalised vectors in inner-product space (1 - cos, a
// metric on the unit sphere). EUCLIDEAN: squared L2. DOT_PRODUCT: inner product is not a
// metric (a vector is not its own nearest neighbour, the triangle inequality fails) and
// HNSW's greedy search on it loses most neighbours, so the graph holds each vector x
// extended by one coordinate sqrt(phi^2 - |x|^2), phi the largest norm at build time, and
// is searched in L2 space with the query extended by 0: |q' - x'|^2 = |q|^2 + phi^2 - 2 q.x,
// so the L2 order is the inner-product order (Bachrach et al., 2014). A vector written later
// with a norm above phi gets 0 there (its graph distance is then approximate); the graph's
// candidates are always re-ranked with the exact score.
struct VectorIndex::Graph {
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw;
  size_t capacity = 0;
  size_t dim = 0;  // the graph's dimensions: dim_, or dim_ + 1 for DOT_PRODUCT
  bool augmented = false;
  double phi2 = 0;             // DOT_PRODUCT: phi squared
  size_t ef = kHnswEfSearch;   // the candidate list while searching (Calibrate)
  std::vector<float> scratch;  // guarded by the index's mu_ held exclusively

  // The graph's form of vector `v` (dim_ floats), valid until the next call.
  const float* Form(const float* v, size_t dim_in, std::vector<float>& out) const {
    if (!augmented) return v;
    out.assign(v, v + dim_in);
    double norm2 = 0;
    for (size_t i = 0; i < dim_in; ++i) norm2 += static_cast<double>(v[i]) * v[i];
    out.push_back(static_cast<float>(std::sqrt(std::max(0.0, phi2 - norm2))));
    return out.data();
  }
};

VectorIndex::VectorIndex(VectorIndexDefinition def, ScanHelpers* helpers)
    : def_(std::move(def)), helpers_(helpers), dim_(static_cast<size_t>(def_.dimensions)) {
  for (size_t i = 0; i < def_.search_schema.size(); ++i) {
    if (def_.search_schema[i].type == SearchSchemaElementType::kHash) hash_position_ = i;
  }
}

VectorIndex::~VectorIndex() = default;

void VectorIndex::RemoveSlot(uint32_t slot) {
  Slot& s = slots_[slot];
  if (hash_position_ && s.schema_values[*hash_position_]) {
    auto p = partitions_.find(Tagged(*s.schema_values[*hash_position_]));
    if (p != partitions_.end()) {
      p->second.erase(slot);
      if (p->second.empty()) partitions_.erase(p);
    }
  }
  slot_of_.erase(s.key);
  s.key.clear();
  s.schema_values.clear();
  free_.push_back(slot);
  if (graph_) {
    try {
      graph_->hnsw->markDelete(slot);
    } catch (const std::exception&) {
      // Not in the graph (it was added while a build ran): nothing to mark.
    }
  }
  if (building_) dirty_.insert(slot);
}

void VectorIndex::Apply(const std::string& key, const std::optional<Item>& item) {
  std::optional<std::vector<float>> vec;
  std::vector<std::optional<AttributeValue>> values;
  if (item) {
    auto v = ItemVector(def_, *item);
    if (v.ok()) vec = std::move(v).value();
    if (vec) {
      values.resize(def_.search_schema.size());
      for (size_t i = 0; i < def_.search_schema.size(); ++i) {
        auto it = item->find(def_.search_schema[i].attribute_name);
        if (it != item->end()) values[i] = it->second;
      }
      // An item without the vector index partition key is not in the index (the
      // troubleshooting page: it is no longer returned once the attribute is removed).
      if (hash_position_ && !values[*hash_position_]) vec.reset();
    }
  }
  std::unique_lock lock(mu_);
  auto found = slot_of_.find(key);
  if (!vec) {
    if (found != slot_of_.end()) RemoveSlot(found->second);
    return;
  }
  if (def_.distance_function == VectorDistanceFunction::kCosine) Normalise(vec->data(), dim_);
  uint32_t slot;
  if (found != slot_of_.end()) {
    slot = found->second;
    // Its partition may change: take it out and put it back below.
    Slot& s = slots_[slot];
    if (hash_position_ && s.schema_values[*hash_position_]) {
      auto p = partitions_.find(Tagged(*s.schema_values[*hash_position_]));
      if (p != partitions_.end()) {
        p->second.erase(slot);
        if (p->second.empty()) partitions_.erase(p);
      }
    }
  } else if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
    data_.resize(slots_.size() * dim_);
  }
  Slot& s = slots_[slot];
  s.key = key;
  s.schema_values = std::move(values);
  slot_of_[key] = slot;
  std::copy(vec->begin(), vec->end(), data_.begin() + static_cast<ptrdiff_t>(slot) * dim_);
  if (hash_position_) partitions_[Tagged(*s.schema_values[*hash_position_])].insert(slot);
  if (building_) dirty_.insert(slot);
  if (graph_) {
    try {
      if (slot >= graph_->capacity) {
        graph_->capacity = std::max<size_t>(graph_->capacity * 2, slot + 1);
        graph_->hnsw->resizeIndex(graph_->capacity);
      }
      graph_->hnsw->addPoint(
          graph_->Form(data_.data() + static_cast<size_t>(slot) * dim_, dim_, graph_->scratch),
          slot);
    } catch (const std::exception&) {
      // Out of memory in the library: drop the graph, searches are exact again (and a new
      // build is tried later).
      graph_.reset();
    }
  }
}

size_t VectorIndex::Size() const {
  std::shared_lock lock(mu_);
  return slot_of_.size();
}

size_t VectorIndex::GraphEf() const {
  std::shared_lock lock(mu_);
  return graph_ ? graph_->ef : 0;
}

bool VectorIndex::HasGraph() const {
  std::shared_lock lock(mu_);
  return graph_ != nullptr;
}

bool VectorIndex::GraphDeclined() const {
  std::shared_lock lock(mu_);
  return graph_ == nullptr && declined_at_ > 0;
}

bool VectorIndex::WantsGraph() const {
  std::shared_lock lock(mu_);
  return !graph_ && !building_ &&
         slot_of_.size() >= std::max(kVectorGraphThreshold, 2 * declined_at_);
}

size_t VectorIndex::MemoryBytes() const {
  std::shared_lock lock(mu_);
  size_t bytes = data_.capacity() * sizeof(float) + slots_.capacity() * sizeof(Slot);
  for (const Slot& s : slots_) {
    bytes += s.key.capacity() + s.schema_values.capacity() * sizeof(AttributeValue);
  }
  // Hash-map nodes: the key's string, the slot and two pointers, roughly.
  bytes += slot_of_.size() * (sizeof(std::string) + 32);
  if (graph_) {
    const auto& h = *graph_->hnsw;
    bytes += h.max_elements_ * h.size_data_per_element_;             // level 0: links + data
    bytes += h.max_elements_ * (sizeof(void*) + sizeof(int));        // upper-level pointers
    bytes += h.cur_element_count * (h.size_links_per_element_ / 2);  // upper levels, roughly
    bytes += h.label_lookup_.size() * (sizeof(size_t) + sizeof(unsigned) + 16);
  }
  return bytes;
}

double VectorIndex::Distance(const float* a, const float* b) const {
  if (def_.distance_function == VectorDistanceFunction::kEuclidean) return SquaredL2(a, b, dim_);
  const double dot = InnerProduct(a, b, dim_);
  return def_.distance_function == VectorDistanceFunction::kCosine ? 1.0 - dot : -dot;
}

double VectorIndex::ScoreOf(double distance) const {
  switch (def_.distance_function) {
    case VectorDistanceFunction::kEuclidean:
      return std::sqrt(std::max(0.0, distance));
    case VectorDistanceFunction::kCosine:
      return std::clamp(distance, 0.0, 2.0);
    case VectorDistanceFunction::kDotProduct:
      return -distance;
  }
  return distance;
}

bool VectorIndex::Matches(uint32_t slot,
                          const std::vector<std::pair<size_t, const AttributeValue*>>& f) const {
  const Slot& s = slots_[slot];
  for (const auto& [pos, value] : f) {
    if (!s.schema_values[pos] || !(*s.schema_values[pos] == *value)) return false;
  }
  return true;
}

void VectorIndex::Consider(const std::vector<float>& query, size_t k,
                           const std::vector<std::pair<size_t, const AttributeValue*>>& f,
                           uint32_t slot, Nearest* best) const {
  if (slots_[slot].key.empty() || !Matches(slot, f)) return;
  const double d = Distance(query.data(), data_.data() + static_cast<size_t>(slot) * dim_);
  if (best->size() < k) {
    best->emplace(d, slot);
  } else if (d < best->top().first) {
    best->pop();
    best->emplace(d, slot);
  }
}

std::vector<VectorIndex::Hit> VectorIndex::ExactSearch(
    const std::vector<float>& query, size_t k,
    const std::vector<std::pair<size_t, const AttributeValue*>>& f,
    const std::unordered_set<uint32_t>* candidates) const {
  Nearest best;
  // A scan of the whole store in parts of kSlotsPerScanPart slots or more, taken by the
  // caller and the helpers as each comes free: at 100k x 128 a scan reads 51 MB, ~3 ms for
  // one core. Small parts bound what the caller waits for when a helper's core is taken by
  // something else (it would otherwise wait for half the scan).
  constexpr size_t kSlotsPerScanPart = 8192;
  const size_t n = slots_.size();
  const size_t parts = candidates || !helpers_ || helpers_->threads() == 0
                           ? 1
                           : std::max<size_t>(1, n / kSlotsPerScanPart);
  if (candidates) {
    for (uint32_t slot : *candidates) Consider(query, k, f, slot, &best);
  } else if (parts <= 1) {
    for (uint32_t slot = 0; slot < n; ++slot) Consider(query, k, f, slot, &best);
  } else {
    std::vector<Nearest> partial(parts);
    helpers_->Run(parts, [&](size_t part) {
      const auto end = static_cast<uint32_t>(n * (part + 1) / parts);
      for (auto slot = static_cast<uint32_t>(n * part / parts); slot < end; ++slot) {
        Consider(query, k, f, slot, &partial[part]);
      }
    });
    for (Nearest& p : partial) {
      for (; !p.empty(); p.pop()) {
        if (best.size() < k) {
          best.push(p.top());
        } else if (p.top().first < best.top().first) {
          best.pop();
          best.push(p.top());
        }
      }
    }
  }
  std::vector<Hit> hits(best.size());
  for (size_t i = hits.size(); i-- > 0;) {
    hits[i] = Hit{slots_[best.top().second].key, ScoreOf(best.top().first)};
    best.pop();
  }
  return hits;
}

std::vector<VectorIndex::Hit> VectorIndex::Search(const std::vector<float>& query_in, size_t k,
                                                  const Equalities& filter) {
  std::vector<float> query = query_in;
  if (def_.distance_function == VectorDistanceFunction::kCosine) Normalise(query.data(), dim_);
  std::shared_lock lock(mu_);
  // The filter by SearchSchema position; the HASH value narrows the candidates at once.
  std::vector<std::pair<size_t, const AttributeValue*>> f;
  const std::unordered_set<uint32_t>* candidates = nullptr;
  for (const auto& [name, value] : filter) {
    for (size_t i = 0; i < def_.search_schema.size(); ++i) {
      if (def_.search_schema[i].attribute_name != name) continue;
      if (hash_position_ && i == *hash_position_) {
        auto p = partitions_.find(Tagged(value));
        if (p == partitions_.end()) return {};
        candidates = &p->second;
      } else {
        f.emplace_back(i, &value);
      }
    }
  }
  const size_t pool = candidates ? candidates->size() : slot_of_.size();
  if (!graph_ || pool < kVectorGraphThreshold) return ExactSearch(query, k, f, candidates);
  // Through the graph, asking for more neighbours while too few of them pass the filter; a
  // filter that keeps few entries ends in the exact search. The graph's candidates (at least
  // its ef) are re-ranked with the exact distance from the flat store.
  std::vector<float> graph_query_buffer;
  const float* graph_query = query.data();
  if (graph_->augmented) {
    graph_query_buffer = query;
    graph_query_buffer.push_back(0);
    graph_query = graph_query_buffer.data();
  }
  const bool filtered = candidates || !f.empty();
  for (size_t want = filtered ? k * 4 : k;; want *= 4) {
    std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
    try {
      // searchKnn explores max(ef, asked) candidates and returns the closest `asked`.
      found = graph_->hnsw->searchKnn(graph_query,
                                      std::min(std::max(want, graph_->ef), slot_of_.size()));
    } catch (const std::exception&) {
      return ExactSearch(query, k, f, candidates);
    }
    std::vector<std::pair<double, uint32_t>> ordered;
    ordered.reserve(found.size());
    for (; !found.empty(); found.pop()) {
      const auto slot = static_cast<uint32_t>(found.top().second);
      if (slot >= slots_.size() || slots_[slot].key.empty()) continue;
      if (candidates && !candidates->count(slot)) continue;
      if (!Matches(slot, f)) continue;
      ordered.emplace_back(Distance(query.data(), data_.data() + static_cast<size_t>(slot) * dim_),
                           slot);
    }
    std::sort(ordered.begin(), ordered.end());  // closest first, by the exact distance
    if (ordered.size() >= k || !filtered || want >= slot_of_.size() || want >= 64 * k) {
      if (filtered && ordered.size() < k) return ExactSearch(query, k, f, candidates);
      std::vector<Hit> hits;
      for (size_t i = 0; i < ordered.size() && hits.size() < k; ++i) {
        hits.push_back(Hit{slots_[ordered[i].second].key, ScoreOf(ordered[i].first)});
      }
      return hits;
    }
  }
}

std::unique_ptr<VectorIndex::Graph> VectorIndex::NewGraph(const std::vector<uint32_t>& live,
                                                          const std::vector<float>& data,
                                                          size_t capacity) const {
  auto graph = std::make_unique<Graph>();
  graph->dim = dim_;
  if (def_.distance_function == VectorDistanceFunction::kCosine) {
    graph->space = std::make_unique<KernelSpace>(KernelSpace::Kind::kOneMinusInnerProduct, dim_);
  } else if (def_.distance_function == VectorDistanceFunction::kEuclidean) {
    graph->space = std::make_unique<KernelSpace>(KernelSpace::Kind::kSquaredL2, dim_);
  } else {
    graph->augmented = true;
    graph->dim = dim_ + 1;
    for (uint32_t slot : live) {
      const float* v = data.data() + static_cast<size_t>(slot) * dim_;
      double norm2 = 0;
      for (size_t i = 0; i < dim_; ++i) norm2 += static_cast<double>(v[i]) * v[i];
      graph->phi2 = std::max(graph->phi2, norm2);
    }
    graph->space = std::make_unique<KernelSpace>(KernelSpace::Kind::kSquaredL2, graph->dim);
  }
  graph->hnsw = std::make_unique<hnswlib::HierarchicalNSW<float>>(
      graph->space.get(), capacity, kHnswM, kHnswEfConstruction, /*random_seed=*/100);
  graph->capacity = capacity;
  return graph;
}

void VectorIndex::InsertSlots(Graph& graph, const std::vector<float>& data,
                              const std::vector<uint32_t>& live, size_t begin, size_t end,
                              unsigned threads, std::atomic<bool>* failed) const {
  std::atomic<size_t> next{begin};
  auto work = [&] {
    try {
      std::vector<float> scratch;  // per thread
      for (size_t i = next++; i < end && !*failed; i = next++) {
        graph.hnsw->addPoint(
            graph.Form(data.data() + static_cast<size_t>(live[i]) * dim_, dim_, scratch), live[i]);
      }
    } catch (const std::exception&) {
      *failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

bool VectorIndex::GraphWorthBuilding(Graph& graph, const std::vector<uint32_t>& live,
                                     const std::vector<float>& data, unsigned threads,
                                     size_t* built, std::atomic<bool>* failed) const {
  // Probes first: graphs of an eighth and of a quarter of the vectors. A search's work at
  // the recall target grows with the graph; when even the first probe is costlier than an
  // exact scan of all the vectors, or the growth between the probes, carried over the two
  // doublings left, makes the whole graph so, the rest is not built (data without
  // neighbourhood structure, where that work grows almost as the data does).
  const size_t eighth = live.size() / 8, quarter = live.size() / 4;
  auto probe = [&](size_t size) {
    InsertSlots(graph, data, live, *built, size, threads, failed);
    *built = size;
    const std::vector<uint32_t> probed(live.begin(), live.begin() + size);
    return *failed ? std::nullopt : Calibrate(graph, probed, data, live.size());
  };
  std::optional<Calibration> first = probe(eighth);
  std::optional<Calibration> second = first ? probe(quarter) : std::nullopt;
  const bool costlier =
      !second ||
      second->cost_share *
              std::pow(std::max(1.0, second->cost_share / std::max(first->cost_share, 1e-9)), 2) >=
          1.0;
  return *failed || !costlier;
}

bool VectorIndex::CatchUpWithWrites(Graph& graph) {
  try {
    for (uint32_t slot : dirty_) {
      if (slot >= graph.capacity) {
        graph.capacity = std::max<size_t>(graph.capacity * 2, slot + 1);
        graph.hnsw->resizeIndex(graph.capacity);
      }
      if (slot < slots_.size() && !slots_[slot].key.empty()) {
        graph.hnsw->addPoint(
            graph.Form(data_.data() + static_cast<size_t>(slot) * dim_, dim_, graph.scratch), slot);
      } else {
        try {
          graph.hnsw->markDelete(slot);
        } catch (const std::exception&) {
          // never added
        }
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

bool VectorIndex::BuildGraph(unsigned threads) {
  std::vector<uint32_t> live;
  std::vector<float> copy;
  size_t capacity;
  {
    std::unique_lock lock(mu_);
    if (graph_ || building_) return true;
    building_ = true;
    dirty_.clear();
    for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
      if (!slots_[slot].key.empty()) live.push_back(slot);
    }
    copy = data_;
    capacity = std::max<size_t>(slots_.size() * 2, 1024);
  }
  // Declines the graph: searches stay exact until the index doubles (declined_at_).
  auto decline = [&] {  // REQUIRES: mu_ held exclusively
    building_ = false;
    declined_at_ = live.size();
    dirty_.clear();
    return true;
  };
  std::unique_ptr<Graph> graph;
  bool ok = true;
  try {
    graph = NewGraph(live, copy, capacity);
    std::atomic<bool> failed{false};
    size_t built = 0;
    if (!ef_search_ && !GraphWorthBuilding(*graph, live, copy, threads, &built, &failed)) {
      std::unique_lock lock(mu_);
      return decline();
    }
    InsertSlots(*graph, copy, live, built, live.size(), threads, &failed);
    ok = !failed;
  } catch (const std::exception&) {
    ok = false;
  }
  // Which ef reaches kVectorRecallTarget on this data, and whether the graph at that ef is
  // cheaper than the exact scan; a graph that is not is dropped (the exact scan is both
  // correct and faster then: the case of data without neighbourhood structure, such as
  // uniform random vectors in 128 dimensions).
  std::optional<size_t> ef;
  if (ok && ef_search_) {
    ef = ef_search_;
  } else if (ok) {
    if (auto calibrated = Calibrate(*graph, live, copy, live.size())) ef = calibrated->ef;
  }
  std::unique_lock lock(mu_);
  if (ok && !ef) return decline();
  building_ = false;
  // Catch up with the writes made during the build: their slots as they are now.
  if (!ok || !CatchUpWithWrites(*graph)) {
    dirty_.clear();
    return false;
  }
  dirty_.clear();
  graph->ef = *ef;
  graph_ = std::move(graph);
  return true;
}

std::optional<VectorIndex::Calibration> VectorIndex::Calibrate(const Graph& graph,
                                                               const std::vector<uint32_t>& live,
                                                               const std::vector<float>& data,
                                                               size_t scanned) const {
  // Sample entries as queries (themselves left out of the answers); the data's own vectors
  // stand for the queries' distribution.
  constexpr size_t kSamples = 40, kK = 10;
  const size_t samples = std::min(kSamples, live.size() / 2);
  if (samples == 0) return Calibration{kHnswEfSearch, 0};
  std::vector<uint32_t> queries;
  for (size_t i = 0; i < samples; ++i) queries.push_back(live[i * (live.size() / samples)]);
  auto vec = [&](uint32_t slot) { return data.data() + static_cast<size_t>(slot) * dim_; };
  // The exact answers.
  std::vector<std::vector<uint32_t>> truth(samples);
  for (size_t q = 0; q < samples; ++q) {
    std::priority_queue<std::pair<double, uint32_t>> best;
    for (uint32_t slot : live) {
      if (slot == queries[q]) continue;
      const double d = Distance(vec(queries[q]), vec(slot));
      if (best.size() < kK) {
        best.emplace(d, slot);
      } else if (d < best.top().first) {
        best.pop();
        best.emplace(d, slot);
      }
    }
    for (; !best.empty(); best.pop()) truth[q].push_back(best.top().second);
  }
  // Costs are counted in distance computations, not timed: timings on a loaded machine made
  // the choice flip (a graph kept at twice the exact scan's latency). The exact scan reads
  // vectors in order; a graph's reads are scattered and come with heap work, hence
  // kGraphDistanceCost per graph distance.
  constexpr double kGraphDistanceCost = 4.0;
  const double exact_cost = static_cast<double>(samples) * static_cast<double>(scanned);
  std::vector<float> query(graph.dim, 0.0f);
  for (size_t ef = kHnswEfSearch; ef <= 16 * kHnswEfSearch; ef *= 2) {
    size_t hits = 0;
    const long computed_before = graph.hnsw->metric_distance_computations.load();
    double reranked = 0;
    for (size_t q = 0; q < samples; ++q) {
      std::copy(vec(queries[q]), vec(queries[q]) + dim_, query.begin());
      auto found = graph.hnsw->searchKnn(query.data(), std::min(ef, live.size()));
      std::vector<std::pair<double, uint32_t>> ordered;
      for (; !found.empty(); found.pop()) {
        const auto slot = static_cast<uint32_t>(found.top().second);
        if (slot != queries[q]) ordered.emplace_back(Distance(vec(queries[q]), vec(slot)), slot);
      }
      reranked += static_cast<double>(ordered.size());
      std::sort(ordered.begin(), ordered.end());
      for (size_t i = 0; i < std::min(kK, ordered.size()); ++i) {
        hits += std::count(truth[q].begin(), truth[q].end(), ordered[i].second);
      }
    }
    const double graph_cost =
        kGraphDistanceCost *
            static_cast<double>(graph.hnsw->metric_distance_computations.load() - computed_before) +
        reranked;
    const bool recall_met =
        static_cast<double>(hits) >= kVectorRecallTarget * static_cast<double>(samples * kK);
    // At the base ef the graph's cost hardly grows with the index, the exact scan's does:
    // the graph is kept then even when the scan is still as fast.
    const Calibration here{ef, graph_cost / exact_cost};
    if (recall_met && ef == kHnswEfSearch) return here;
    if (graph_cost >= exact_cost) return std::nullopt;  // costlier, more so at a larger ef
    if (recall_met) return here;
  }
  return std::nullopt;
}

// --- VectorIndexes ---

namespace {
// Helpers for exact scans: one per hardware thread beyond the caller's.
unsigned ScanHelperThreads() {
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 1 ? std::min(hardware - 1, 7u) : 0;
}
}  // namespace

VectorIndexes::VectorIndexes() : helpers_(ScanHelperThreads()), builder_([this] { BuildLoop(); }) {}

VectorIndexes::~VectorIndexes() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  builder_.join();
}

std::shared_ptr<VectorIndex> VectorIndexes::Find(uint32_t table_id, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = indexes_.find({table_id, name});
  return it == indexes_.end() ? nullptr : it->second;
}

std::shared_ptr<VectorIndex> VectorIndexes::Create(uint32_t table_id,
                                                   const VectorIndexDefinition& def) {
  auto index = std::make_shared<VectorIndex>(def, &helpers_);
  std::lock_guard lock(mu_);
  indexes_[{table_id, def.index_name}] = index;
  return index;
}

void VectorIndexes::Drop(uint32_t table_id, const std::string& name) {
  std::lock_guard lock(mu_);
  indexes_.erase({table_id, name});
}

void VectorIndexes::DropTable(uint32_t table_id) {
  std::lock_guard lock(mu_);
  std::erase_if(indexes_, [&](const auto& e) { return e.first.first == table_id; });
}

std::vector<std::pair<uint32_t, std::shared_ptr<VectorIndex>>> VectorIndexes::All() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<uint32_t, std::shared_ptr<VectorIndex>>> out;
  for (const auto& [k, v] : indexes_) out.emplace_back(k.first, v);
  return out;
}

void VectorIndexes::Nudge() {
  {
    std::lock_guard lock(mu_);
    nudged_ = true;
  }
  cv_.notify_all();
}

void VectorIndexes::BuildLoop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    // Woken by Nudge, and once a second (an index that grew without a nudge).
    cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_ || nudged_; });
    if (stop_) return;
    nudged_ = false;
    std::vector<std::shared_ptr<VectorIndex>> wanted;
    for (const auto& [k, index] : indexes_) {
      if (index->WantsGraph()) wanted.push_back(index);
    }
    lock.unlock();
    for (const auto& index : wanted) {
      if (!index->BuildGraph(std::max(1u, std::thread::hardware_concurrency()))) {
        ++build_failures_;
      }
    }
    lock.lock();
  }
}

}  // namespace ddb
