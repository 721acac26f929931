// Amazon Ion text, the ION format of ImportTable and of exports: one top-level struct per
// item, `$ion_1_0 {Item:{pk:"a",n:1.5,b:{{AAE=}},tags:$dynamodb_SS::["x","y"]}}`. DynamoDB's
// mapping (S3DataImport.Format, S3DataExport.Output): S string, N decimal (ints and floats are
// read as numbers too), B blob, BOOL bool, NULL null (any typed null), L list, M struct,
// SS/NS/BS lists annotated $dynamodb_SS / $dynamodb_NS / $dynamodb_BS.
// The subset of Ion text that mapping needs, hand-written: Debian ships no Ion library for
// C/C++ (ion-c is not packaged), and the engine keeps no parser dependency. Timestamps,
// clobs, s-expressions and symbol tables are not items' types and are refused.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "ddb/attribute_value.h"
#include "engine/import_export/dynamodb_json.h"  // ParseOutcome

namespace ddb {

// Parses one record (a line, or lines joined while the outcome was kIncomplete): version
// markers are skipped (a line with only one gives kNothing), then one `{Item:{...}}`.
ParseOutcome ParseIonItem(std::string_view text, Item* item, std::string* error);

// Appends `$ion_1_0 {Item:{...}}` (no newline), as exports write every line.
void AppendIonItem(std::string* out, const Item& item);
// Appends an item as an Ion struct `{...}` (the images of an incremental export's records).
void AppendIonMap(std::string* out, const Item& item);

}  // namespace ddb
