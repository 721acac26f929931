#include "server/s3/s3_payload.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <charconv>
#include <cstdint>

#include "util/ascii.h"
#include "util/base64.h"
#include "util/digest.h"

namespace ddb::server {
namespace {

S3Error Incomplete() {
  return S3Error{400, "IncompleteBody", "The request body terminated unexpectedly"};
}

S3Error BadChunk(std::string why) {
  return S3Error{400, "InvalidArgument", "Invalid aws-chunked request body: " + std::move(why)};
}

// `what`: "Content-MD5", or the checksum algorithm as S3 names it ("CRC32").
S3Error BadDigest(std::string_view what) {
  if (what == "Content-MD5") {
    return S3Error{400, "BadDigest",
                   "The Content-MD5 you specified did not match what we received."};
  }
  return S3Error{
      400, "BadDigest",
      "The " + std::string(what) + " you specified did not match the calculated checksum."};
}

std::string_view Header(std::span<const HeaderField> headers, std::string_view name) {
  return FindHeader(headers, name).value_or(std::string_view());
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Undoes aws-chunked framing: "<hex size>[;chunk-signature=...]\r\n<bytes>\r\n" ... a zero
// chunk, then trailer lines "name:value\r\n" and an empty line.
S3Status Unchunk(std::string_view body, std::string* data,
                 std::vector<std::pair<std::string, std::string>>* trailers) {
  data->clear();
  size_t at = 0;
  while (true) {
    const size_t eol = body.find("\r\n", at);
    if (eol == std::string_view::npos) return Incomplete();
    std::string_view line = body.substr(at, eol - at);
    line = line.substr(0, line.find(';'));
    uint64_t size = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
    if (ec != std::errc() || end != line.data() + line.size() || line.empty()) {
      return BadChunk("a chunk size is not hexadecimal");
    }
    at = eol + 2;
    if (size == 0) break;
    if (size > body.size() - at || body.size() - at - size < 2) return Incomplete();
    data->append(body.substr(at, size));
    at += size;
    if (body.substr(at, 2) != "\r\n") return BadChunk("a chunk does not end in CRLF");
    at += 2;
  }
  // Trailers, up to an empty line (or the end: some clients omit the last CRLF).
  while (at < body.size()) {
    size_t eol = body.find("\r\n", at);
    if (eol == std::string_view::npos) eol = body.size();
    const std::string_view line = body.substr(at, eol - at);
    at = eol + 2;
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return BadChunk("a trailer has no ':'");
    trailers->emplace_back(util::AsciiLowerCopy(Trim(line.substr(0, colon))),
                           std::string(Trim(line.substr(colon + 1))));
  }
  return {};
}

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, md, nullptr);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

// The raw checksum of `data` by the algorithm a header names ("x-amz-checksum-crc32"), or
// nullopt for one this reader does not compute.
std::optional<std::string> Checksum(std::string_view header, std::string_view data) {
  if (util::EqualsIgnoreCase(header, "x-amz-checksum-crc32")) {
    const uint32_t crc = static_cast<uint32_t>(
        crc32_z(0, reinterpret_cast<const unsigned char*>(data.data()), data.size()));
    const char bytes[4] = {static_cast<char>(crc >> 24), static_cast<char>(crc >> 16),
                           static_cast<char>(crc >> 8), static_cast<char>(crc)};
    return std::string(bytes, 4);
  }
  if (util::EqualsIgnoreCase(header, "x-amz-checksum-sha1")) return Digest(EVP_sha1(), data);
  if (util::EqualsIgnoreCase(header, "x-amz-checksum-sha256")) return util::Sha256(data);
  return std::nullopt;
}

bool IsChecksumHeader(std::string_view name) {
  return name.size() > 15 && util::StartsWithIgnoreCase(name, "x-amz-checksum-") &&
         !util::EqualsIgnoreCase(name, "x-amz-checksum-algorithm") &&
         !util::EqualsIgnoreCase(name, "x-amz-checksum-type") &&
         !util::EqualsIgnoreCase(name, "x-amz-checksum-mode");
}

}  // namespace

S3Status ReadS3Payload(std::span<const HeaderField> headers, std::string body, S3Payload* out) {
  out->checksums.clear();
  const std::string_view content_sha = Header(headers, "x-amz-content-sha256");
  const std::string_view encoding = Header(headers, "content-encoding");
  const bool chunked = content_sha.starts_with("STREAMING-") ||
                       encoding.find("aws-chunked") != std::string_view::npos;
  std::vector<std::pair<std::string, std::string>> trailers;
  if (chunked) {
    if (S3Status unchunked = Unchunk(body, &out->data, &trailers); !unchunked.ok()) {
      return unchunked;
    }
    const std::string_view decoded = Header(headers, "x-amz-decoded-content-length");
    uint64_t expected = 0;
    if (!decoded.empty()) {
      const auto [end, ec] =
          std::from_chars(decoded.data(), decoded.data() + decoded.size(), expected);
      if (ec != std::errc() || end != decoded.data() + decoded.size()) {
        return BadChunk("x-amz-decoded-content-length is not a number");
      }
      if (expected != out->data.size()) return Incomplete();
    }
  } else {
    out->data = std::move(body);
  }

  if (std::optional<std::string_view> md5 = FindHeader(headers, "content-md5")) {
    std::string raw;
    if (!util::DecodeBase64(Trim(*md5), &raw, util::Base64Check::kCanonical) || raw.size() != 16) {
      return S3Error{400, "InvalidDigest", "The Content-MD5 you specified was not valid."};
    }
    if (raw != util::Md5(out->data)) return BadDigest("Content-MD5");
  }
  // Checksums in headers, then in trailers: each is checked when computable, and echoed.
  std::vector<std::pair<std::string, std::string>> sent;
  for (const HeaderField& h : headers) {
    if (IsChecksumHeader(h.name)) sent.emplace_back(std::string(h.name), std::string(h.value));
  }
  for (auto& trailer : trailers) {
    if (IsChecksumHeader(trailer.first)) sent.push_back(std::move(trailer));
  }
  for (auto& [name, value] : sent) {
    name = util::AsciiLowerCopy(name);
    std::optional<std::string> computed = Checksum(name, out->data);
    if (!computed) {
      out->checksums.emplace_back(std::move(name), std::move(value));
      continue;
    }
    std::string raw;
    if (!util::DecodeBase64(Trim(value), &raw, util::Base64Check::kCanonical) ||
        raw.size() != computed->size()) {
      return S3Error{400, "InvalidRequest", "Value for " + name + " header is invalid."};
    }
    if (raw != *computed) {
      return BadDigest(util::AsciiUpperCopy(name.substr(15)));
    }
    out->checksums.emplace_back(std::move(name), std::move(value));
  }
  return {};
}

}  // namespace ddb::server
