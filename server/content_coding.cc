#include "server/content_coding.h"

#include <zlib.h>

#include <cctype>
#include <cstdlib>
#include <optional>

namespace ddb {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A qvalue ("0", "0.5", "1.000"); nullopt when malformed.
std::optional<double> ParseQ(std::string_view s) {
  if (s.empty() || s.size() > 5 || (s[0] != '0' && s[0] != '1')) return std::nullopt;
  if (s.size() > 1 && s[1] != '.') return std::nullopt;
  for (size_t i = 2; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  }
  double q = std::strtod(std::string(s).c_str(), nullptr);
  return q > 1 ? std::nullopt : std::optional<double>(q);
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
  if (header.empty() || EqualsIgnoreCase(header, "identity")) {
    *coding = ContentCoding::kIdentity;
  } else if (EqualsIgnoreCase(header, "gzip") || EqualsIgnoreCase(header, "x-gzip")) {
    *coding = ContentCoding::kGzip;
  } else if (EqualsIgnoreCase(header, "deflate")) {
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
  std::optional<double> gzip, deflate, identity, any;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view member = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? "" : accept_encoding.substr(comma + 1);
    size_t semi = member.find(';');
    std::string_view name = Trim(member.substr(0, semi));
    double q = 1;
    if (semi != std::string_view::npos) {
      std::string_view params = member.substr(semi + 1);
      // Only the weight parameter is defined: "q=<qvalue>".
      params = Trim(params);
      if (params.size() < 2 || std::tolower(static_cast<unsigned char>(params[0])) != 'q' ||
          params[1] != '=') {
        continue;
      }
      std::optional<double> parsed = ParseQ(Trim(params.substr(2)));
      if (!parsed) continue;
      q = *parsed;
    }
    if (EqualsIgnoreCase(name, "gzip") || EqualsIgnoreCase(name, "x-gzip")) {
      gzip = q;
    } else if (EqualsIgnoreCase(name, "deflate")) {
      deflate = q;
    } else if (EqualsIgnoreCase(name, "identity")) {
      identity = q;
    } else if (name == "*") {
      any = q;
    }
  }
  const double gzip_q = gzip.value_or(any.value_or(0));
  const double deflate_q = deflate.value_or(any.value_or(0));
  // Identity is acceptable unless excluded; unlisted, it is the least preferred.
  const double identity_q = identity.value_or(any.value_or(0));
  const double best = std::max(gzip_q, deflate_q);
  if (best <= 0 || best < identity_q) return ContentCoding::kIdentity;
  return gzip_q >= deflate_q ? ContentCoding::kGzip : ContentCoding::kDeflate;
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
