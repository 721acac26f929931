// ImportTable's record parsers on arbitrary text (a user's files are hostile input): byte 0
// picks DynamoDB JSON lines, Ion text or CSV (byte 1 is then the delimiter); the rest is one
// record. Where a record parses to an item, the writer of the same format (the export's)
// must give text that parses back to the same item.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/import_export/csv_reader.h"
#include "engine/import_export/dynamodb_json.h"
#include "engine/import_export/ion_text.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ddb::Item;
using ddb::ParseOutcome;

void DynamoDbJson(std::string_view in) {
  Item item;
  std::string error;
  if (ddb::ParseDynamoDbJsonLine(in, &item, &error) != ParseOutcome::kItem) return;
  std::string out;
  ddb::AppendDynamoDbJsonItem(&out, item);
  Item again;
  DDB_FUZZ_CHECK(ddb::ParseDynamoDbJsonLine(out, &again, &error) == ParseOutcome::kItem);
  DDB_FUZZ_CHECK(again == item);
}

void Ion(std::string_view in) {
  Item item;
  std::string error;
  if (ddb::ParseIonItem(in, &item, &error) != ParseOutcome::kItem) return;
  std::string out;
  ddb::AppendIonItem(&out, item);
  Item again;
  DDB_FUZZ_CHECK(ddb::ParseIonItem(out, &again, &error) == ParseOutcome::kItem);
  DDB_FUZZ_CHECK(again == item);
}

void Csv(char delimiter, std::string_view in) {
  std::vector<std::string> fields;
  std::string error;
  if (ddb::SplitCsvRecord(in, delimiter, &fields, &error) != ParseOutcome::kItem) return;
  // The record as its own header (names must be unique and non-empty there), then as data
  // under a fixed header with a string and a number key.
  const std::map<std::string, ddb::ScalarType> keys = {{"pk", ddb::ScalarType::kS},
                                                       {"sk", ddb::ScalarType::kN}};
  Item item;
  (void)ddb::CsvItem(fields, fields, keys, &item, &error);
  const std::vector<std::string> header = {"pk", "sk", "a", "b"};
  (void)ddb::CsvItem(header, fields, keys, &item, &error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);
  switch (data[0] % 3) {
    case 0:
      DynamoDbJson(in);
      break;
    case 1:
      Ion(in);
      break;
    case 2:
      Csv(static_cast<char>(data[1]), in);
      break;
  }
  return 0;
}
