// What the commands print for people: aligned tables of items and figures, attribute values
// in short text, and bars. (--json output is the service's own JSON, written by the commands.)
// Thread safety: pure functions.
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

namespace ddb::cli {

// An AttributeValue in DynamoDB JSON as short text: S and N as they are, B base64, BOOL
// true/false, NULL null, sets and lists as [a, b], maps as {k: v}.
std::string ValueText(simdjson::dom::element value);

// Columns padded to their widest cell (in code points), two spaces apart, a header line and
// a dashed line under it (neither when every header is empty); cells longer than max_width end in
// "...".
std::string RenderTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows, size_t max_width = 48);

// The items (DynamoDB JSON maps) as a table: the key attributes first, then every other
// attribute name in the order met; an attribute an item lacks is an empty cell.
std::string RenderItems(const std::vector<simdjson::dom::element>& items,
                        const std::vector<std::string>& key_names);

// A bar of `width` cells for fraction (0..1): full blocks and an eighth-step end (U+2588..)
// when unicode, else '#'.
std::string Bar(double fraction, int width, bool unicode);

// 12345678 -> "12,345,678".
std::string Grouped(int64_t n);

// Bytes as "512 B", "1.5 KiB", "20.0 MiB".
std::string HumanBytes(double bytes);

}  // namespace ddb::cli
