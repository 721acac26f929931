// protocol::HandleRequest on an in-memory engine: any operation, any body. The first input
// byte picks the operation from the real list (the streams operations included); byte 0xff
// instead takes the operation name from the input, up to the first '\n'. The rest is the
// body (DDB_FUZZ_VERBOSE=1 prints each answer). The engine is reused, and reopened every
// kInputsPerEngine inputs so that what the inputs create (tables, items) cannot grow without bound.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_tables.h"

namespace {

constexpr std::string_view kOperations[] = {
    "DynamoDB_20120810.CreateTable",
    "DynamoDB_20120810.DescribeTable",
    "DynamoDB_20120810.PutResourcePolicy",
    "DynamoDB_20120810.GetResourcePolicy",
    "DynamoDB_20120810.DeleteResourcePolicy",
    "DynamoDB_20120810.DeleteTable",
    "DynamoDB_20120810.ListTables",
    "DynamoDB_20120810.PutItem",
    "DynamoDB_20120810.GetItem",
    "DynamoDB_20120810.DeleteItem",
    "DynamoDB_20120810.Query",
    "DynamoDB_20120810.Scan",
    "DynamoDB_20120810.BatchGetItem",
    "DynamoDB_20120810.BatchWriteItem",
    "DynamoDB_20120810.UpdateItem",
    "DynamoDB_20120810.UpdateTable",
    "DynamoDB_20120810.TransactWriteItems",
    "DynamoDB_20120810.ExecuteStatement",
    "DynamoDB_20120810.DescribeContinuousBackups",
    "DynamoDB_20120810.UpdateContinuousBackups",
    "DynamoDB_20120810.BatchExecuteStatement",
    "DynamoDB_20120810.ExecuteTransaction",
    "DynamoDB_20120810.TransactGetItems",
    "DynamoDB_20120810.UpdateTimeToLive",
    "DynamoDB_20120810.DescribeTimeToLive",
    "DynamoDB_20120810.TagResource",
    "DynamoDB_20120810.UntagResource",
    "DynamoDB_20120810.ListTagsOfResource",
    "DynamoDB_20120810.DescribeLimits",
    "DynamoDB_20120810.DescribeEndpoints",
    "DynamoDBStreams_20120810.ListStreams",
    "DynamoDBStreams_20120810.DescribeStream",
    "DynamoDBStreams_20120810.GetShardIterator",
    "DynamoDBStreams_20120810.GetRecords",
    // Issue 18's operations (ExportTableToPointInTime is left out: each one would write
    // files under the engine's local S3 directory).
    "DynamoDB_20120810.CreateBackup",
    "DynamoDB_20120810.DescribeBackup",
    "DynamoDB_20120810.ListBackups",
    "DynamoDB_20120810.DeleteBackup",
    "DynamoDB_20120810.RestoreTableFromBackup",
    "DynamoDB_20120810.RestoreTableToPointInTime",
    "DynamoDB_20120810.ImportTable",
    "DynamoDB_20120810.DescribeImport",
    "DynamoDB_20120810.ListImports",
    "DynamoDB_20120810.DescribeExport",
    "DynamoDB_20120810.ListExports",
    "DynamoDB_20120810.UpdateContributorInsights",
    "DynamoDB_20120810.DescribeContributorInsights",
    "DynamoDB_20120810.ListContributorInsights",
};
constexpr uint8_t kOperationFromInput = 0xff;
constexpr int kInputsPerEngine = 500;

// Closed by an atexit handler, registered once RocksDB's statics exist, so that it runs before
// their destructors: an engine closed from a static destructor would find them gone.
std::unique_ptr<ddb::Engine>& TheEngine() {
  static auto* engine = new std::unique_ptr<ddb::Engine>();
  return *engine;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int inputs = 0;
  std::unique_ptr<ddb::Engine>& engine = TheEngine();
  if (size == 0) return 0;
  if (!engine || ++inputs >= kInputsPerEngine) {
    const bool first = !engine;
    engine.reset();  // close before opening: in-memory stores are pooled
    engine = ddb::fuzz::OpenEngineWithTables();
    if (first) std::atexit([] { TheEngine().reset(); });
    inputs = 0;
  }
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string target;
  if (data[0] == kOperationFromInput) {
    size_t end = input.find('\n');
    target = std::string(input.substr(0, end));
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
  } else {
    target = std::string(kOperations[data[0] % std::size(kOperations)]);
  }
  ddb::fuzz::CallTarget(*engine, target, std::string(input));
  return 0;
}
