// Stream iterators and pagination tokens, through HandleRequest on a table with a stream and
// items (fuzz_tables.h). Byte 0 picks what the rest of the input becomes:
//   0  GetRecords' ShardIterator, as given
//   1  a ShardIterator the engine would accept (its checksum right) with the input's
//      position, issue time and table id: what lies behind the checksum
//   2  GetShardIterator's members, one a line: ShardIteratorType, SequenceNumber, ShardId,
//      StreamArn (absent ones: the real shard and stream)
//   3  ExclusiveStartKey (JSON) of a Query or Scan of the table or an index (byte 1 picks)
//   4  ExecuteStatement's NextToken, as given
//   5  the key (JSON) inside a NextToken that is otherwise right (base64, the statement's
//      digest)
// The engine is opened once: these requests only read. DDB_FUZZ_VERBOSE=1 prints each answer.
#include <simdjson.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>

#include "engine/streams/streams.h"
#include "protocol/json_writer.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_tables.h"
#include "util/base64.h"

namespace {

using ddb::fuzz::Call;

std::string Quoted(std::string_view s) {
  ddb::protocol::JsonWriter w;
  w.String(s);
  return w.Take();
}

std::string StringMember(const std::string& json, std::string_view pointer) {
  simdjson::dom::parser parser;
  std::string_view value;
  if (parser.parse(json).at_pointer(pointer).get(value) != simdjson::SUCCESS) {
    std::fprintf(stderr, "fuzz setup: no %.*s in %s\n", static_cast<int>(pointer.size()),
                 pointer.data(), json.c_str());
    std::abort();
  }
  return std::string(value);
}

struct Fixture {
  std::unique_ptr<ddb::Engine> engine = ddb::fuzz::OpenEngineWithTables();
  std::string stream_arn;
  std::string shard_id;
  ddb::ShardIteratorToken token;  // of a real iterator
  std::string statement_digest;   // of kPagedStatement's NextToken

  static constexpr std::string_view kPagedStatement = "SELECT * FROM tbl";

  Fixture() {
    std::string described = Call(*engine, "DescribeTable", R"({"TableName":"tbl"})").body;
    stream_arn = StringMember(described, "/Table/LatestStreamArn");
    std::string stream =
        Streams("DescribeStream", "{\"StreamArn\":" + Quoted(stream_arn) + "}").body;
    shard_id = StringMember(stream, "/StreamDescription/Shards/0/ShardId");
    std::string iterator =
        StringMember(Streams("GetShardIterator", "{\"StreamArn\":" + Quoted(stream_arn) +
                                                     ",\"ShardId\":" + Quoted(shard_id) +
                                                     ",\"ShardIteratorType\":\"TRIM_HORIZON\"}")
                         .body,
                     "/ShardIterator");
    DDB_FUZZ_CHECK(ddb::DecodeShardIterator(iterator, &token));
    std::string page = Call(*engine, "ExecuteStatement",
                            "{\"Statement\":" + Quoted(kPagedStatement) + ",\"Limit\":1}")
                           .body;
    std::string token_json;
    DDB_FUZZ_CHECK(ddb::util::DecodeBase64(StringMember(page, "/NextToken"), &token_json));
    statement_digest = StringMember(token_json, "/s");
  }

  ddb::protocol::WireResponse Streams(std::string_view operation, std::string body) {
    return ddb::fuzz::CallTarget(*engine, "DynamoDBStreams_20120810." + std::string(operation),
                                 std::move(body));
  }
};

uint64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t TakeUint(std::string_view* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes && !in->empty(); ++i) {
    v = (v << 8) | static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
  }
  return v;
}

std::string TakeLine(std::string_view* in) {
  size_t end = in->find('\n');
  std::string line(in->substr(0, end));
  in->remove_prefix(end == std::string_view::npos ? in->size() : end + 1);
  return line;
}

void GetRecords(Fixture& f, const std::string& iterator, uint64_t limit) {
  std::string body = "{\"ShardIterator\":" + Quoted(iterator);
  if (limit != 0) body += ",\"Limit\":" + std::to_string(limit);
  f.Streams("GetRecords", body + "}");
}

void ForgedIterator(Fixture& f, std::string_view in) {
  ddb::ShardIteratorToken token = f.token;
  token.position = TakeUint(&in, 8);
  uint64_t age = TakeUint(&in, 4);
  token.issued_ms = NowMs() - age + 60 * 1000;  // up to a minute ahead, or ~50 days back
  if (uint64_t table_id = TakeUint(&in, 1)) token.table_id = static_cast<uint32_t>(table_id);
  if (!in.empty()) token.label = TakeLine(&in);
  GetRecords(f, ddb::EncodeShardIterator(ddb::RequestContext{}, token), TakeUint(&in, 2));
}

void GetShardIterator(Fixture& f, std::string_view in) {
  std::string type = TakeLine(&in);
  std::string sequence = TakeLine(&in);
  std::string shard = in.empty() ? f.shard_id : TakeLine(&in);
  std::string arn = in.empty() ? f.stream_arn : TakeLine(&in);
  std::string body = "{\"StreamArn\":" + Quoted(arn) + ",\"ShardId\":" + Quoted(shard) +
                     ",\"ShardIteratorType\":" + Quoted(type);
  if (!sequence.empty()) body += ",\"SequenceNumber\":" + Quoted(sequence);
  ddb::protocol::WireResponse r = f.Streams("GetShardIterator", body + "}");
  if (r.status == 200) {
    simdjson::dom::parser parser;
    std::string_view iterator;
    if (parser.parse(r.body)["ShardIterator"].get(iterator) == simdjson::SUCCESS) {
      GetRecords(f, std::string(iterator), 0);
    }
  }
}

void StartKey(Fixture& f, std::string_view in) {
  static constexpr std::string_view kReads[][2] = {
      {"Query", R"("TableName":"tbl","KeyConditionExpression":"pk = :p",)"
                R"("ExpressionAttributeValues":{":p":{"S":"a"}})"},
      {"Query", R"("TableName":"tbl","IndexName":"lsi","KeyConditionExpression":"pk = :p",)"
                R"("ExpressionAttributeValues":{":p":{"S":"a"}})"},
      {"Query", R"("TableName":"tbl","IndexName":"gsi","KeyConditionExpression":"g = :g",)"
                R"("ExpressionAttributeValues":{":g":{"S":"y"}})"},
      {"Scan", R"("TableName":"tbl")"},
      {"Scan", R"("TableName":"tbl","IndexName":"gsi")"},
      {"Scan", R"("TableName":"bin","Segment":1,"TotalSegments":3)"},
  };
  const auto& read = kReads[TakeUint(&in, 1) % std::size(kReads)];
  Call(*f.engine, read[0],
       "{" + std::string(read[1]) + ",\"ExclusiveStartKey\":" + std::string(in) + "}");
}

void NextToken(Fixture& f, const std::string& token) {
  Call(*f.engine, "ExecuteStatement",
       "{\"Statement\":" + Quoted(Fixture::kPagedStatement) + ",\"NextToken\":" + Quoted(token) +
           "}");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Destroyed by an atexit handler, registered once RocksDB's statics exist, so that it runs
  // before their destructors: an engine closed from a static destructor would find them gone.
  static Fixture* fixture = [] {
    auto* f = new Fixture();
    std::atexit([] { delete fixture; });
    return f;
  }();
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      GetRecords(*fixture, std::string(in), 0);
      break;
    case 1:
      ForgedIterator(*fixture, in);
      break;
    case 2:
      GetShardIterator(*fixture, in);
      break;
    case 3:
      StartKey(*fixture, in);
      break;
    case 4:
      NextToken(*fixture, std::string(in));
      break;
    case 5: {
      NextToken(*fixture, ddb::util::Base64("{\"s\":" + Quoted(fixture->statement_digest) +
                                            ",\"k\":" + std::string(in) + "}"));
      break;
    }
  }
  return 0;
}
