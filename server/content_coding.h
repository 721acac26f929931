// HTTP content codings of request and response bodies (RFC 9110 section 8.4): inflating a
// gzip or deflate request body, choosing a response coding from Accept-Encoding, and
// compressing a response body. zlib does the work.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ddb {

enum class ContentCoding { kIdentity, kGzip, kDeflate };

// The name as a Content-Encoding header carries it ("gzip", "deflate"; "" for identity).
std::string_view ContentCodingName(ContentCoding coding);

// A request's Content-Encoding: identity (absent, or "identity"), gzip ("gzip", "x-gzip"),
// deflate; false for any other coding.
bool ParseContentEncoding(std::string_view header, ContentCoding* coding);

enum class InflateResult { kOk, kTooLarge, kCorrupt };

// Inflates `in` (gzip: one member or several concatenated ones, bytes after a complete
// member that do not start another ignored, as the service ignores them; deflate: the zlib
// format, or a raw deflate stream as some clients send) into *out, at most `limit` bytes.
InflateResult Inflate(ContentCoding coding, std::string_view in, size_t limit, std::string* out);

// The coding for a response from the request's Accept-Encoding, as the service chooses
// (observed; scylla's alternator tests record its answers): gzip or deflate, whichever has
// the higher weight, the first listed on a tie ("*" standing for an unlisted one, gzip
// first); identity when neither has a weight above 0 (an absent header included). Unlike
// RFC 9110, "identity" and "x-gzip" are ignored, a coding listed twice takes its best weight,
// and weights are read leniently (see Weight in the .cc).
ContentCoding ChooseResponseCoding(std::string_view accept_encoding);

// Compresses `in` with `coding` (not identity) into *out. False only if zlib fails.
bool Compress(ContentCoding coding, std::string_view in, std::string* out);

}  // namespace ddb
