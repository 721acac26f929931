// JSON strings (RFC 8259): quoted, with '"', '\\' and the control characters escaped ("\n",
// "\r", "\t", "\b", "\f"; the others as \u00XX) and every other byte as it is (UTF-8 passes
// through). For the protocol's responses (protocol/json_writer.h), the engine's import and
// export files (which keep no JSON library) and the command line's requests.
// Hand-written: the libraries at hand (simdjson) parse JSON but do not write it.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::util {

// Appends `text` to *out as a JSON string, quotes included.
void AppendJsonString(std::string* out, std::string_view text);

// `text` as a JSON string, quotes included ("a\"b" -> "\"a\\\"b\"").
std::string JsonString(std::string_view text);

}  // namespace ddb::util
