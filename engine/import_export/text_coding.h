// Text codecs the import and export formats share: base64 (B values in DynamoDB JSON, blobs
// in Ion), JSON string escaping, ISO-8601 times (export manifests), MD5 (S3 ETags and the
// manifests' checksums). The engine keeps no JSON library (docs/ARCHITECTURE.md, Layers), so
// these are small and hand-written (MD5 from OpenSSL's libcrypto, already in the stack).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ddb {

// RFC 4648 base64, standard alphabet, padded.
void AppendBase64(std::string* out, std::string_view bytes);
// Returns false when `text` is not valid padded base64 (length a multiple of 4, padding only
// at the end).
bool DecodeBase64(std::string_view text, std::string* out);

// Appends `text` as a JSON string, quotes included (control characters as \u00XX, quote and
// backslash escaped; other UTF-8 as is).
void AppendJsonString(std::string* out, std::string_view text);

// "2020-11-04T07:28:34.028Z" for epoch seconds (millisecond precision).
std::string IsoTime(double epoch_seconds);

// The MD5 digest of `bytes`, raw (16 bytes).
std::string Md5(std::string_view bytes);
// Lower-case hex of raw bytes.
std::string Hex(std::string_view bytes);

}  // namespace ddb
