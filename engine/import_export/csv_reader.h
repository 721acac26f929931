// CSV records for ImportTable's CSV format: one item per record, fields split by the
// delimiter (CsvOptions.Delimiter, default ','), RFC 4180 quoting ("a ""b""", line breaks
// inside quotes). The header (CsvOptions.HeaderList, else each object's first record) names
// the attributes; the table's and its GSIs' key attributes get their defined types (N
// normalised, B base64) and every other column is a string, as the service documents
// ("all columns other than the hash range and keys of your base table and secondary indexes
// are imported as DynamoDB strings"). An empty cell gives no attribute.
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/types.h"
#include "engine/import_export/dynamodb_json.h"  // ParseOutcome

namespace ddb {

// Splits one record into fields. kIncomplete when a quoted field runs past the end (the
// record continues on the next line), kNothing for an empty line.
ParseOutcome SplitCsvRecord(std::string_view record, char delimiter,
                            std::vector<std::string>* fields, std::string* error);

// Builds the item of one record. `key_types` holds the key attributes' types.
ParseOutcome CsvItem(const std::vector<std::string>& header, const std::vector<std::string>& fields,
                     const std::map<std::string, ScalarType>& key_types, Item* item,
                     std::string* error);

}  // namespace ddb
