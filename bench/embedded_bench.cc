// embedded_bench: the engine API in-process against raw RocksDB, plus micro-benchmarks of the
// key codec, item codec, number normalisation and the JSON protocol layer (Google Benchmark).
//
//   build/embedded_bench                                   # everything, ~1-2 min
//   build/embedded_bench --benchmark_filter='Engine|Raw'   # the overhead ratio only
//   build/embedded_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// Data: items shaped like bench/loadgen's (pk "p<i/10>", sk "s<i%10, 6 digits>", n = 0, data =
// filler) of about 200 bytes by DynamoDB's size rule. The engine runs on a temporary --data-dir
// with its WAL on; raw RocksDB is a separate instance in another temporary directory with
// default options and the WAL on, and is given the very key and value bytes the engine stores
// (EncodeItemKey / EncodeItem), so the ratio Engine/Raw is the engine's overhead.
// The protocol benchmarks run protocol::HandleRequest on an in-memory engine: JSON parse,
// validation, engine call and response serialisation, without HTTP.
// Results are reported, never asserted. Temporary directories are removed at exit.
#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/engine.h"
#include "ddb/number.h"
#include "ddb/stored_item.h"
#include "ddb/types.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/store_format.h"
#include "protocol/attribute_value_json.h"
#include "protocol/handler.h"
#include "protocol/json_reader.h"
#include "protocol/json_writer.h"

namespace {

constexpr int kItemsPerPk = 10;
constexpr int64_t kPreload = 100000;  // items preloaded for the Get benchmarks
constexpr int64_t kPutKeys = 200000;  // distinct keys the Put benchmarks cycle through
constexpr size_t kItemSize = 200;
constexpr uint32_t kTableId = 1;  // the first table an empty engine creates

void Die(const std::string& what) {
  std::fprintf(stderr, "embedded_bench: %s\n", what.c_str());
  std::exit(1);
}

std::string Filler(size_t n) {
  std::string s(n, 'x');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i * 7 % 26);
  return s;
}

std::string Pk(int64_t i, const char* prefix = "p") {
  return prefix + std::to_string(i / kItemsPerPk);
}
std::string Sk(int64_t i) {
  char text[16];
  std::snprintf(text, sizeof(text), "s%06" PRId64, i % kItemsPerPk);
  return text;
}

// {pk, sk, n: 0, data: filler} of about kItemSize bytes (names + values, DynamoDB's rule).
ddb::Item MakeItem(const std::string& pk, const std::string& sk) {
  static const std::string filler = Filler(kItemSize);
  const size_t overhead = 2 + pk.size() + 2 + sk.size() + 1 + 1 + 4;
  ddb::Item item;
  item["pk"] = ddb::AttributeValue::S(pk);
  item["sk"] = ddb::AttributeValue::S(sk);
  item["n"] = ddb::AttributeValue::N("0");
  item["data"] = ddb::AttributeValue::S(filler.substr(0, kItemSize - overhead));
  return item;
}
ddb::Item MakeKey(const std::string& pk, const std::string& sk) {
  ddb::Item key;
  key["pk"] = ddb::AttributeValue::S(pk);
  key["sk"] = ddb::AttributeValue::S(sk);
  return key;
}

std::string TempDir(const char* tag) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / (std::string("ddb-embedded-") + tag + "-XXXXXX"))
          .string();
  if (mkdtemp(pattern.data()) == nullptr) Die("mkdtemp failed");
  return pattern;
}

ddb::CreateTableRequest BenchTable() {
  ddb::CreateTableRequest req;
  req.table_name = "bench";
  req.attribute_definitions = {{"pk", ddb::ScalarType::kS}, {"sk", ddb::ScalarType::kS}};
  req.key_schema = {{"pk", ddb::KeyType::kHash}, {"sk", ddb::KeyType::kRange}};
  req.billing_mode = ddb::BillingMode::kPayPerRequest;
  return req;
}

// One engine (on disk with WAL, or in memory) with table "bench" preloaded with kPreload
// items. Created on first use, destroyed (and its directory removed) at exit.
class EngineFixture {
 public:
  explicit EngineFixture(bool in_memory) {
    ddb::EngineOptions options;
    options.in_memory = in_memory;
    if (!in_memory) dir_ = options.data_dir = TempDir("engine");
    auto engine = ddb::Engine::Open(options);
    if (!engine.ok()) Die("Engine::Open: " + engine.error().message());
    engine_ = std::move(engine).value();
    auto created = engine_->CreateTable(ddb::RequestContext(), BenchTable());
    if (!created.ok()) Die("CreateTable: " + created.error().message());
    // Preload in batches of 25, as the wire preload does.
    for (int64_t i = 0; i < kPreload; i += 25) {
      ddb::BatchWriteItemRequest batch;
      batch.request_items.push_back({"bench", {}});
      for (int64_t j = i; j < std::min(kPreload, i + 25); ++j) {
        batch.request_items[0].value.push_back({true, MakeItem(Pk(j), Sk(j))});
      }
      auto r = engine_->BatchWriteItem(batch);
      if (!r.ok()) Die("BatchWriteItem: " + r.error().message());
      if (!r->unprocessed_items.empty()) Die("BatchWriteItem left unprocessed items");
    }
  }
  ~EngineFixture() {
    engine_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  ddb::Engine& engine() { return *engine_; }

 private:
  std::string dir_;
  std::unique_ptr<ddb::Engine> engine_;
};

EngineFixture& DiskEngine() {
  static EngineFixture f(/*in_memory=*/false);
  return f;
}
EngineFixture& MemoryEngine() {
  static EngineFixture f(/*in_memory=*/true);
  return f;
}

// A RocksDB with default options (+ create_if_missing), WAL on, holding the same bytes.
class RawFixture {
 public:
  RawFixture() : dir_(TempDir("raw")) {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, dir_, &raw);
    if (!s.ok()) Die("rocksdb::DB::Open: " + s.ToString());
    db_.reset(raw);
    for (int64_t i = 0; i < kPreload; ++i) {
      auto [key, value] = Encoded(Pk(i), Sk(i));
      s = db_->Put(rocksdb::WriteOptions(), key, value);
      if (!s.ok()) Die("rocksdb Put: " + s.ToString());
    }
  }
  ~RawFixture() {
    if (db_) db_->Close().PermitUncheckedError();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  rocksdb::DB& db() { return *db_; }

  // The RocksDB key and value the engine writes for item (pk, sk).
  static std::pair<std::string, std::string> Encoded(const std::string& pk, const std::string& sk) {
    ddb::Item item = MakeItem(pk, sk);
    std::string value;
    ddb::EncodeItem(item, &value);
    return {ddb::EncodeItemKey(kTableId, ddb::kTableKeyFormat, item.at("pk"), &item.at("sk")),
            std::move(value)};
  }

 private:
  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
};

RawFixture& Raw() {
  static RawFixture f;
  return f;
}

// Random preloaded item numbers, the same sequence for every Get benchmark.
const std::vector<int64_t>& GetSequence() {
  static const std::vector<int64_t> seq = [] {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int64_t> dist(0, kPreload - 1);
    std::vector<int64_t> v(1 << 16);
    for (auto& x : v) x = dist(rng);
    return v;
  }();
  return seq;
}

// --- Engine API vs raw RocksDB -------------------------------------------------------------

// Requests are built before timing (as an embedded caller would hold them); keys are new
// until the kPutKeys cycle wraps, then overwrites (the same for raw).
void BM_Engine_PutItem(benchmark::State& state) {
  ddb::Engine& engine = DiskEngine().engine();
  static const std::vector<ddb::PutItemRequest> reqs = [] {
    std::vector<ddb::PutItemRequest> v(kPutKeys);
    for (int64_t i = 0; i < kPutKeys; ++i) {
      v[i].table_name = "bench";
      v[i].item = MakeItem(Pk(i, "n"), Sk(i));
    }
    return v;
  }();
  size_t i = 0;
  for (auto _ : state) {
    auto r = engine.PutItem(reqs[i]);
    if (!r.ok()) state.SkipWithError(r.error().message().c_str());
    if (++i == reqs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Raw_Put(benchmark::State& state) {
  rocksdb::DB& db = Raw().db();
  static const std::vector<std::pair<std::string, std::string>> kvs = [] {
    std::vector<std::pair<std::string, std::string>> v;
    v.reserve(kPutKeys);
    for (int64_t i = 0; i < kPutKeys; ++i) v.push_back(RawFixture::Encoded(Pk(i, "n"), Sk(i)));
    return v;
  }();
  rocksdb::WriteOptions wo;  // WAL on, no fsync: as the engine
  size_t i = 0;
  for (auto _ : state) {
    rocksdb::Status s = db.Put(wo, kvs[i].first, kvs[i].second);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    if (++i == kvs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Engine_GetItem(benchmark::State& state) {
  ddb::Engine& engine = DiskEngine().engine();
  const auto& seq = GetSequence();
  static const std::vector<ddb::GetItemRequest> reqs = [] {
    std::vector<ddb::GetItemRequest> v(GetSequence().size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i].table_name = "bench";
      v[i].key = MakeKey(Pk(GetSequence()[i]), Sk(GetSequence()[i]));
    }
    return v;
  }();
  size_t i = 0;
  for (auto _ : state) {
    auto r = engine.GetItem(reqs[i]);
    if (!r.ok() || !r->item) state.SkipWithError("GetItem failed or found nothing");
    benchmark::DoNotOptimize(r);
    if (++i == seq.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Engine_GetItem)->MinTime(2.0);

const std::vector<std::string>& RawGetKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> v;
    for (int64_t x : GetSequence()) v.push_back(RawFixture::Encoded(Pk(x), Sk(x)).first);
    return v;
  }();
  return keys;
}

void BM_Raw_Get(benchmark::State& state) {
  rocksdb::DB& db = Raw().db();
  const auto& keys = RawGetKeys();
  std::string value;
  size_t i = 0;
  for (auto _ : state) {
    rocksdb::Status s = db.Get(rocksdb::ReadOptions(), keys[i], &value);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(value);
    if (++i == keys.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Raw_Get)->MinTime(2.0);

// Raw Get plus decoding the value into an Item: the least an engine GetItem must do.
void BM_Raw_GetDecode(benchmark::State& state) {
  rocksdb::DB& db = Raw().db();
  const auto& keys = RawGetKeys();
  std::string value;
  size_t i = 0;
  for (auto _ : state) {
    rocksdb::Status s = db.Get(rocksdb::ReadOptions(), keys[i], &value);
    ddb::Item item;
    if (!s.ok() || !ddb::DecodeItem(value, &item)) state.SkipWithError("get/decode failed");
    benchmark::DoNotOptimize(item);
    if (++i == keys.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Raw_GetDecode)->MinTime(2.0);

// Puts after Gets: the Gets see both stores as the preload left them (all in the memtable,
// 100k items), not after ~10^6 overwrites that are still waiting for compaction.
BENCHMARK(BM_Engine_PutItem)->MinTime(2.0);
BENCHMARK(BM_Raw_Put)->MinTime(2.0);

// --- Codecs --------------------------------------------------------------------------------

// Arg: the key format (1 XXH3, 2 the service's MD5-based hash).
void BM_EncodeItemKey(benchmark::State& state) {
  const ddb::Item key = MakeKey("p12345", "s000007");
  const ddb::AttributeValue& pk = key.at("pk");
  const ddb::AttributeValue& sk = key.at("sk");
  const int format = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::string k = ddb::EncodeItemKey(kTableId, format, pk, &sk);
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_EncodeItemKey)->Arg(ddb::kKeyFormatXxh3)->Arg(ddb::kKeyFormatServiceOrder);

void BM_EncodeItem(benchmark::State& state) {
  const ddb::Item item = MakeItem("p12345", "s000007");
  for (auto _ : state) {
    std::string out;
    ddb::EncodeItem(item, &out);
    benchmark::DoNotOptimize(out);
  }
  std::string sample;
  ddb::EncodeItem(item, &sample);
  state.counters["bytes"] = static_cast<double>(sample.size());
  state.counters["item_size"] = static_cast<double>(ddb::ItemSize(item));
}
BENCHMARK(BM_EncodeItem);

void BM_DecodeItem(benchmark::State& state) {
  std::string encoded;
  ddb::EncodeItem(MakeItem("p12345", "s000007"), &encoded);
  for (auto _ : state) {
    ddb::Item item;
    if (!ddb::DecodeItem(encoded, &item)) state.SkipWithError("DecodeItem failed");
    benchmark::DoNotOptimize(item);
  }
}
BENCHMARK(BM_DecodeItem);

void BM_NormalizeNumber(benchmark::State& state) {
  static const char* const kNumbers[] = {
      "0",        "42", "-17", "3.14159", "1e3", "-0.000123400", "12345678901234567890.123456789",
      "9.99E+125"};
  size_t i = 0;
  for (auto _ : state) {
    auto r = ddb::NormalizeNumber(kNumbers[i]);
    benchmark::DoNotOptimize(r);
    if (++i == std::size(kNumbers)) i = 0;
  }
}
BENCHMARK(BM_NormalizeNumber);

void BM_NormalizeNumber_Small(benchmark::State& state) {
  for (auto _ : state) {
    auto r = ddb::NormalizeNumber("42");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_NormalizeNumber_Small);

// --- JSON and the protocol layer -----------------------------------------------------------

std::string JsonKey(const std::string& pk, const std::string& sk) {
  return R"({"pk":{"S":")" + pk + R"("},"sk":{"S":")" + sk + R"("}})";
}
std::string JsonItem(const std::string& pk, const std::string& sk) {
  static const std::string filler = Filler(kItemSize);
  const size_t overhead = 2 + pk.size() + 2 + sk.size() + 1 + 1 + 4;
  return R"({"pk":{"S":")" + pk + R"("},"sk":{"S":")" + sk + R"("},"n":{"N":"0"},"data":{"S":")" +
         filler.substr(0, kItemSize - overhead) + R"("}})";
}
std::string PutItemBody(int64_t i) {
  return R"({"TableName":"bench","Item":)" + JsonItem(Pk(i, "j"), Sk(i)) + "}";
}
std::string BatchWriteBody(int64_t first) {
  std::string b = R"({"RequestItems":{"bench":[)";
  for (int64_t i = first; i < first + 25; ++i) {
    if (i != first) b += ",";
    b += R"({"PutRequest":{"Item":)" + JsonItem(Pk(i, "b"), Sk(i)) + "}}";
  }
  return b + "]}}";
}

// Only the JSON side: parse a PutItem body and convert its Item (no engine).
void BM_Json_ParsePutItem(benchmark::State& state) {
  std::string body = PutItemBody(7);
  for (auto _ : state) {
    auto obj = ddb::protocol::ParseBody(body);
    if (!obj.ok()) {
      state.SkipWithError("ParseBody failed");
      break;
    }
    auto item = ddb::protocol::ParseAttributeMap((*obj)["Item"].value());
    if (!item.ok()) state.SkipWithError("ParseAttributeMap failed");
    benchmark::DoNotOptimize(item);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(body.size()));
}
BENCHMARK(BM_Json_ParsePutItem);

// Only the JSON side: write a GetItem response ({"Item": {...}}) for a ~200-byte item.
void BM_Json_WriteItem(benchmark::State& state) {
  const ddb::Item item = MakeItem("p12345", "s000007");
  for (auto _ : state) {
    ddb::protocol::JsonWriter w;
    w.BeginObject();
    w.Key("Item");
    ddb::protocol::WriteAttributeMap(w, item);
    w.EndObject();
    std::string out = w.Take();
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Json_WriteItem);

constexpr std::string_view kTarget = "DynamoDB_20120810.";

// End to end through protocol::HandleRequest (in-memory engine): what a request costs
// without HTTP. Bodies are rebuilt per key set outside timing; HandleRequest only reserves.
void RunProtocol(benchmark::State& state, const std::string& op, std::vector<std::string> bodies) {
  ddb::Engine& engine = MemoryEngine().engine();
  const ddb::RequestContext ctx;
  const std::string target = std::string(kTarget) + op;
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    ddb::protocol::WireResponse r = ddb::protocol::HandleRequest(engine, ctx, target, bodies[i]);
    if (r.status != 200) {
      state.SkipWithError(r.body.c_str());
      break;
    }
    bytes += r.body.size();
    if (++i == bodies.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  if (state.iterations() > 0) {
    state.counters["resp_bytes"] = static_cast<double>(bytes) / state.iterations();
  }
}

void BM_Protocol_PutItem(benchmark::State& state) {
  std::vector<std::string> bodies;
  for (int64_t i = 0; i < 4096; ++i) bodies.push_back(PutItemBody(i));
  RunProtocol(state, "PutItem", std::move(bodies));
}
BENCHMARK(BM_Protocol_PutItem);

void BM_Protocol_GetItem(benchmark::State& state) {
  std::vector<std::string> bodies;
  for (int64_t x : GetSequence()) {
    bodies.push_back(R"({"TableName":"bench","Key":)" + JsonKey(Pk(x), Sk(x)) + "}");
    if (bodies.size() == 4096) break;
  }
  RunProtocol(state, "GetItem", std::move(bodies));
}
BENCHMARK(BM_Protocol_GetItem);

void BM_Protocol_Query10(benchmark::State& state) {
  std::vector<std::string> bodies;
  for (int64_t x : GetSequence()) {
    bodies.push_back(
        R"j({"TableName":"bench","KeyConditionExpression":"pk = :p AND begins_with(sk, :s)",)j"
        R"("ExpressionAttributeValues":{":p":{"S":")" +
        Pk(x) + R"("},":s":{"S":"s"}},"Limit":10})");
    if (bodies.size() == 4096) break;
  }
  RunProtocol(state, "Query", std::move(bodies));
}
BENCHMARK(BM_Protocol_Query10);

void BM_Protocol_UpdateItemAdd(benchmark::State& state) {
  std::vector<std::string> bodies;
  for (int64_t x : GetSequence()) {
    bodies.push_back(R"({"TableName":"bench","Key":)" + JsonKey(Pk(x), Sk(x)) +
                     R"(,"UpdateExpression":"ADD #n :one","ExpressionAttributeNames":{"#n":"n"},)"
                     R"("ExpressionAttributeValues":{":one":{"N":"1"}}})");
    if (bodies.size() == 4096) break;
  }
  RunProtocol(state, "UpdateItem", std::move(bodies));
}
BENCHMARK(BM_Protocol_UpdateItemAdd);

void BM_Protocol_BatchWriteItem25(benchmark::State& state) {
  std::vector<std::string> bodies;
  for (int64_t i = 0; i < 256; ++i) bodies.push_back(BatchWriteBody(i * 25));
  RunProtocol(state, "BatchWriteItem", std::move(bodies));
  state.counters["items/s"] =
      benchmark::Counter(25.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Protocol_BatchWriteItem25);

// The same requests through the engine API on the same in-memory engine: the difference to
// BM_Protocol_* is the protocol layer's cost (JSON in and out, validation, conversion).
void BM_EngineMem_PutItem(benchmark::State& state) {
  ddb::Engine& engine = MemoryEngine().engine();
  std::vector<ddb::PutItemRequest> reqs(4096);
  for (int64_t i = 0; i < 4096; ++i) {
    reqs[i].table_name = "bench";
    reqs[i].item = MakeItem(Pk(i, "j"), Sk(i));
  }
  size_t i = 0;
  for (auto _ : state) {
    auto r = engine.PutItem(reqs[i]);
    if (!r.ok()) state.SkipWithError(r.error().message().c_str());
    if (++i == reqs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineMem_PutItem);

void BM_EngineMem_GetItem(benchmark::State& state) {
  ddb::Engine& engine = MemoryEngine().engine();
  std::vector<ddb::GetItemRequest> reqs(4096);
  for (size_t i = 0; i < reqs.size(); ++i) {
    reqs[i].table_name = "bench";
    reqs[i].key = MakeKey(Pk(GetSequence()[i]), Sk(GetSequence()[i]));
  }
  size_t i = 0;
  for (auto _ : state) {
    auto r = engine.GetItem(reqs[i]);
    if (!r.ok() || !r->item) state.SkipWithError("GetItem failed or found nothing");
    benchmark::DoNotOptimize(r);
    if (++i == reqs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineMem_GetItem);

void BM_EngineMem_BatchWriteItem25(benchmark::State& state) {
  ddb::Engine& engine = MemoryEngine().engine();
  std::vector<ddb::BatchWriteItemRequest> reqs(256);
  for (int64_t b = 0; b < 256; ++b) {
    reqs[b].request_items.push_back({"bench", {}});
    for (int64_t i = b * 25; i < b * 25 + 25; ++i) {
      reqs[b].request_items[0].value.push_back({true, MakeItem(Pk(i, "b"), Sk(i))});
    }
  }
  size_t i = 0;
  for (auto _ : state) {
    auto r = engine.BatchWriteItem(reqs[i]);
    if (!r.ok()) state.SkipWithError(r.error().message().c_str());
    if (++i == reqs.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineMem_BatchWriteItem25);

// What a unit-test fixture pays per test: open an in-memory engine, create a table, close.
void BM_EngineMem_OpenClose(benchmark::State& state) {
  ddb::EngineOptions options;
  options.in_memory = true;
  for (auto _ : state) {
    auto engine = ddb::Engine::Open(options);
    if (!engine.ok()) state.SkipWithError(engine.error().message().c_str());
    benchmark::DoNotOptimize(engine);
  }
}
BENCHMARK(BM_EngineMem_OpenClose)->Unit(benchmark::kMicrosecond);

void BM_EngineMem_OpenCreateTableClose(benchmark::State& state) {
  ddb::EngineOptions options;
  options.in_memory = true;
  ddb::CreateTableRequest create;
  create.table_name = "fixture";
  create.attribute_definitions = {{"pk", ddb::ScalarType::kS}};
  create.key_schema = {{"pk", ddb::KeyType::kHash}};
  create.billing_mode = ddb::BillingMode::kPayPerRequest;
  for (auto _ : state) {
    auto engine = ddb::Engine::Open(options);
    if (!engine.ok()) state.SkipWithError(engine.error().message().c_str());
    auto table = (*engine)->CreateTable({}, create);
    if (!table.ok()) state.SkipWithError(table.error().message().c_str());
  }
}
BENCHMARK(BM_EngineMem_OpenCreateTableClose)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
