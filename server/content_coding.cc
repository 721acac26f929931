#include "server/content_coding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "util/ascii.h"

namespace ddb {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The weight of an Accept-Encoding member from its parameters (after the ';'), leniently, as
// the service reads it: the first "q" parameter (blanks around '=' allowed), clamped to
// [0, 1]; a value that is not a number, or no q at all, weighs 1.
double Weight(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    const std::string_view param = params.substr(0, semi);
    params = semi == std::string_view::npos ? "" : params.substr(semi + 1);
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos || !util::EqualsIgnoreCase(Trim(param.substr(0, eq)), "q"))
      continue;
    const std::string value(Trim(param.substr(eq + 1)));
    char* end = nullptr;
    const double q = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) return 1;
    return std::clamp(q, 0.0, 1.0);
  }
  return 1;
}

InflateResult InflateWith(int window_bits, bool gzip, std::string_view in, size_t limit,
                          std::string* out) {
  if (in.empty()) return InflateResult::kCorrupt;
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) return InflateResult::kCorrupt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char buffer[64 * 1024];
  InflateResult result = InflateResult::kOk;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof(buffer);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const size_t produced = sizeof(buffer) - zs.avail_out;
    if (out->size() + produced > limit) {
      result = InflateResult::kTooLarge;
      break;
    }
    out->append(buffer, produced);
    if (rc == Z_STREAM_END) {
      const bool another =
          gzip && zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b;
      if (!another) break;
      if (inflateReset(&zs) != Z_OK) {
        result = InflateResult::kCorrupt;
        break;
      }
      continue;
    }
    if (rc != Z_OK || (zs.avail_in == 0 && produced == 0)) {
      result = InflateResult::kCorrupt;  // a damaged or truncated stream
      break;
    }
  }
  inflateEnd(&zs);
  return result;
}

}  // namespace

std::string_view ContentCodingName(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::kGzip:
      return "gzip";
    case ContentCoding::kDeflate:
      return "deflate";
    case ContentCoding::kIdentity:
      break;
  }
  return "";
}

bool ParseContentEncoding(std::string_view header, ContentCoding* coding) {
  header = Trim(header);
  if (header.empty() || util::EqualsIgnoreCase(header, "identity")) {
    *coding = ContentCoding::kIdentity;
  } else if (util::EqualsIgnoreCase(header, "gzip") || util::EqualsIgnoreCase(header, "x-gzip")) {
    *coding = ContentCoding::kGzip;
  } else if (util::EqualsIgnoreCase(header, "deflate")) {
    *coding = ContentCoding::kDeflate;
  } else {
    return false;
  }
  return true;
}

InflateResult Inflate(ContentCoding coding, std::string_view in, size_t limit, std::string* out) {
  switch (coding) {
    case ContentCoding::kIdentity:
      if (in.size() > limit) return InflateResult::kTooLarge;
      out->assign(in);
      return InflateResult::kOk;
    case ContentCoding::kGzip:
      return InflateWith(16 + MAX_WBITS, /*gzip=*/true, in, limit, out);
    case ContentCoding::kDeflate:
      break;
  }
  // "deflate" is the zlib format (RFC 9110 section 8.4.1.2); some clients send raw deflate.
  InflateResult r = InflateWith(MAX_WBITS, /*gzip=*/false, in, limit, out);
  if (r != InflateResult::kCorrupt) return r;
  out->clear();
  return InflateWith(-MAX_WBITS, /*gzip=*/false, in, limit, out);
}

ContentCoding ChooseResponseCoding(std::string_view accept_encoding) {
  constexpr size_t kUnlisted = SIZE_MAX;
  struct Offer {
    double q = -1;  // the best weight it is listed with; -1: not listed
    size_t position = kUnlisted;
  };
  Offer gzip, deflate;
  double any = -1;
  for (size_t position = 0; !accept_encoding.empty(); ++position) {
    const size_t comma = accept_encoding.find(',');
    std::string_view member = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? "" : accept_encoding.substr(comma + 1);
    const size_t semi = member.find(';');
    const std::string_view name = Trim(member.substr(0, semi));
    const double q = semi == std::string_view::npos ? 1 : Weight(member.substr(semi + 1));
    Offer* offer = util::EqualsIgnoreCase(name, "gzip")      ? &gzip
                   : util::EqualsIgnoreCase(name, "deflate") ? &deflate
                                                             : nullptr;
    if (offer) {
      offer->q = std::max(offer->q, q);
      offer->position = std::min(offer->position, position);
    } else if (name == "*") {
      any = std::max(any, q);
    }
  }
  // "*" stands for an unlisted coding, after the listed ones, gzip before deflate.
  if (gzip.q < 0 && any >= 0) gzip = {any, kUnlisted - 1};
  if (deflate.q < 0 && any >= 0) deflate = {any, kUnlisted};
  if (std::max(gzip.q, deflate.q) <= 0) return ContentCoding::kIdentity;
  if (gzip.q != deflate.q)
    return gzip.q > deflate.q ? ContentCoding::kGzip : ContentCoding::kDeflate;
  return gzip.position <= deflate.position ? ContentCoding::kGzip : ContentCoding::kDeflate;
}

bool Compress(ContentCoding coding, std::string_view in, std::string* out) {
  if (coding == ContentCoding::kIdentity) return false;
  z_stream zs{};
  const int window_bits = coding == ContentCoding::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return false;
  }
  out->resize(deflateBound(&zs, static_cast<uLong>(in.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  const int rc = deflate(&zs, Z_FINISH);
  out->resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END;
}

}  // namespace ddb
