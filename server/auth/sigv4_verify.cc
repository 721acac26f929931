#include "server/auth/sigv4_verify.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

#include "server/auth/sigv4.h"
#include "server/url_coding.h"
#include "util/ascii.h"
#include "util/digest.h"
#include "util/iso8601.h"

namespace ddb::server {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kService = "dynamodb";
constexpr std::string_view kS3Service = "s3";
constexpr int64_t kMaxPresignedExpiresSeconds = 7 * 24 * 3600;  // the SigV4 limit

Error Incomplete(std::string m) { return {ErrorCode::kIncompleteSignature, std::move(m)}; }
Error Invalid(std::string m) { return {ErrorCode::kInvalidSignature, std::move(m)}; }
Error Unrecognized(std::string m) { return {ErrorCode::kUnrecognizedClient, std::move(m)}; }

// A header value as SigV4 canonicalises it: trimmed, runs of blanks folded into one space.
void AppendFolded(std::string_view value, std::string* out) {
  bool blank = false, started = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      blank = started;
      continue;
    }
    if (blank) out->push_back(' ');
    blank = false;
    started = true;
    out->push_back(c);
  }
}

// An RFC 1123 Date header ("Tue, 01 Dec 2026 15:00:00 GMT") -> seconds since the epoch.
std::optional<int64_t> ParseHttpDate(std::string_view s) {
  std::tm tm{};
  const std::string text(s);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

// The parts of a signature, from the Authorization header or from the query string.
struct SignatureParts {
  std::string access_key_id, scope_date, region, service;  // of the credential scope
  std::string scope;                                       // "DATE/REGION/SERVICE/aws4_request"
  std::vector<std::string> signed_headers;
  std::string signature;
  std::string amz_date;                      // "20261201T150000Z"
  int64_t date_seconds = 0;                  // amz_date as seconds
  std::optional<int64_t> expires_seconds;    // presigned only
  std::optional<std::string> session_token;  // X-Amz-Security-Token, when sent
};

SignatureParts PartsOf(SigV4Authorization auth) {
  SignatureParts parts;
  parts.access_key_id = std::move(auth.access_key_id);
  parts.scope_date = std::move(auth.date);
  parts.region = std::move(auth.region);
  parts.service = std::move(auth.service);
  parts.signed_headers = std::move(auth.signed_headers);
  parts.signature = std::move(auth.signature);
  return parts;
}

Result<SignatureParts> PartsFromQuery(const std::vector<QueryParam>& query) {
  std::string missing;
  for (std::string_view name : {"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature",
                                "X-Amz-SignedHeaders", "X-Amz-Date", "X-Amz-Expires"}) {
    const QueryParam* p = FindParam(query, name);
    if (!p || p->value.empty()) {
      missing += "AWS query-string parameters must include '" + std::string(name) + "'. ";
    }
  }
  if (!missing.empty()) return Incomplete(missing + "Re-examine the query-string parameters.");
  if (FindParam(query, "X-Amz-Algorithm")->value != kAlgorithm) {
    return Incomplete("Unsupported AWS 'algorithm': '" +
                      FindParam(query, "X-Amz-Algorithm")->value + "'");
  }
  // The credential as a header would carry it, so that one parser checks both forms.
  const std::string header = std::string(kAlgorithm) +
                             " Credential=" + FindParam(query, "X-Amz-Credential")->value +
                             ", SignedHeaders=" + FindParam(query, "X-Amz-SignedHeaders")->value +
                             ", Signature=" + FindParam(query, "X-Amz-Signature")->value;
  Result<SigV4Authorization> auth = ParseAuthorization(header);
  if (!auth.ok()) return auth.error();
  SignatureParts parts = PartsOf(std::move(auth).value());
  parts.amz_date = FindParam(query, "X-Amz-Date")->value;
  const std::string& expires = FindParam(query, "X-Amz-Expires")->value;
  int64_t e = 0;
  for (char c : expires) {
    if (c < '0' || c > '9' || e > kMaxPresignedExpiresSeconds) {
      e = -1;
      break;
    }
    e = e * 10 + (c - '0');
  }
  if (e < 1 || e > kMaxPresignedExpiresSeconds) {
    return Invalid("X-Amz-Expires must be between 1 and " +
                   std::to_string(kMaxPresignedExpiresSeconds) + " seconds, not '" + expires + "'");
  }
  parts.expires_seconds = e;
  if (const QueryParam* token = FindParam(query, "X-Amz-Security-Token")) {
    parts.session_token = token->value;
  }
  return parts;
}

Result<SignatureParts> PartsFromHeader(std::string_view authorization,
                                       std::span<const HeaderField> headers) {
  const std::optional<std::string_view> amz_date = FindHeader(headers, "X-Amz-Date");
  const std::optional<std::string_view> http_date = FindHeader(headers, "Date");
  Result<SigV4Authorization> auth =
      ParseAuthorization(authorization, amz_date.has_value() || http_date.has_value());
  if (!auth.ok()) return auth.error();
  SignatureParts parts = PartsOf(std::move(auth).value());
  if (amz_date) {
    parts.amz_date = std::string(*amz_date);
  } else {
    std::optional<int64_t> seconds = ParseHttpDate(*http_date);
    parts.amz_date = seconds ? util::FormatIso8601Basic(*seconds) : std::string(*http_date);
  }
  if (std::optional<std::string_view> token = FindHeader(headers, "X-Amz-Security-Token")) {
    parts.session_token = std::string(*token);
  }
  return parts;
}

// Step 3: the request's date against the clock.
Status CheckDate(SignatureParts* parts, int64_t now) {
  std::optional<int64_t> date = util::ParseIso8601Basic(parts->amz_date);
  if (!date) {
    return Incomplete("Date must be in ISO-8601 'basic format'. Got '" + parts->amz_date +
                      "'. See http://en.wikipedia.org/wiki/ISO_8601");
  }
  parts->date_seconds = *date;
  const int64_t skew = std::chrono::seconds(SignatureVerifier::kAllowedSkew).count();
  if (parts->expires_seconds) {
    if (now > *date + *parts->expires_seconds) {
      return Invalid("Signature expired: " + parts->amz_date + " is now earlier than " +
                     util::FormatIso8601Basic(now - *parts->expires_seconds) + " (" +
                     util::FormatIso8601Basic(now) + " - " +
                     std::to_string(*parts->expires_seconds) + " sec.)");
    }
  } else if (*date < now - skew) {
    return Invalid("Signature expired: " + parts->amz_date + " is now earlier than " +
                   util::FormatIso8601Basic(now - skew) + " (" + util::FormatIso8601Basic(now) +
                   " - 15 min.)");
  }
  if (*date > now + skew) {
    return Invalid("Signature not yet current: " + parts->amz_date + " is still later than " +
                   util::FormatIso8601Basic(now + skew) + " (" + util::FormatIso8601Basic(now) +
                   " + 15 min.)");
  }
  return {};
}

}  // namespace

namespace {

// The payload hash an S3 request signs: x-amz-content-sha256 as sent (header auth requires
// it), UNSIGNED-PAYLOAD for a presigned URL without it. A hex hash must be the body's.
Result<std::string> S3PayloadHash(std::optional<std::string_view> content_sha, bool header_auth,
                                  std::string_view body) {
  if (!content_sha) {
    if (!header_auth) return std::string("UNSIGNED-PAYLOAD");
    return Invalid(
        "XAmzContentSHA256Mismatch: Missing required header for this request: "
        "x-amz-content-sha256");
  }
  const std::string_view value = *content_sha;
  if (value == "UNSIGNED-PAYLOAD" || value.starts_with("STREAMING-")) return std::string(value);
  if (value != util::Sha256Hex(body)) {
    return Invalid(
        "XAmzContentSHA256Mismatch: The provided 'x-amz-content-sha256' header does not match "
        "what was computed.");
  }
  return std::string(value);
}

}  // namespace

std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service) {
  std::string key = util::HmacSha256("AWS4" + std::string(secret), date);
  key = util::HmacSha256(key, region);
  key = util::HmacSha256(key, service);
  return util::HmacSha256(key, "aws4_request");
}

std::string CanonicalUri(std::string_view path) {
  // Dot segments go, and so do empty ones (the SDKs' signers collapse "//" too).
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    start = end + 1;
  }
  std::string normalized = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i) normalized += '/';
    normalized += segments[i];
  }
  if (!segments.empty() && path.size() > 1 && path.back() == '/') normalized += '/';
  std::string out;
  AppendEncoded(normalized, /*keep_slash=*/true, &out);
  return out;
}

std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  for (const QueryParam& p : ParseQuery(query)) {
    if (p.name == "X-Amz-Signature") continue;
    std::string name, value;
    AppendEncoded(p.name, false, &name);
    AppendEncoded(p.value, false, &value);
    encoded.emplace_back(std::move(name), std::move(value));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

Result<std::string> CanonicalRequest(const SignedRequest& request,
                                     std::span<const std::string> signed_headers,
                                     std::string_view payload_hash, bool s3_uri) {
  const size_t q = request.target.find('?');
  std::string out;
  out.reserve(512);
  out += request.method;
  out += '\n';
  if (s3_uri) {
    out += request.target.substr(0, q);
  } else {
    out += CanonicalUri(request.target.substr(0, q));
  }
  out += '\n';
  if (q != std::string_view::npos) out += CanonicalQuery(request.target.substr(q + 1));
  out += '\n';
  std::string list;
  for (const std::string& name : signed_headers) {
    out += name;
    out += ':';
    bool found = false;
    for (const HeaderField& h : request.headers) {
      if (!util::EqualsIgnoreCase(h.name, name)) continue;
      if (found) out += ',';
      found = true;
      AppendFolded(h.value, &out);
    }
    if (!found) {
      return Incomplete("'" + name + "' is named as a SignedHeader, but it does not exist in the " +
                        "HTTP request.");
    }
    out += '\n';
    if (!list.empty()) list += ';';
    list += name;
  }
  out += '\n';
  out += list;
  out += '\n';
  out += payload_hash;
  return out;
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out(kAlgorithm);
  out += '\n';
  out += amz_date;
  out += '\n';
  out += scope;
  out += '\n';
  out += util::Sha256Hex(canonical_request);
  return out;
}

std::string SignatureVerifier::SigningKey(const AccessKey& key, std::string_view date,
                                          std::string_view region, std::string_view service) const {
  thread_local std::string cache_key;  // its capacity reused from request to request
  cache_key.assign(key.access_key_id);
  cache_key += '/';
  cache_key += date;
  cache_key += '/';
  cache_key += region;
  cache_key += '/';
  cache_key += service;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = signing_keys_.find(cache_key);
    if (it != signing_keys_.end()) return it->second;
  }
  std::string derived = DeriveSigningKey(key.secret_access_key, date, region, service);
  std::lock_guard<std::mutex> lock(mu_);
  // Bounded: a key's entries are one per day and region in use; drop them all past a size
  // that only churning dates or regions reach.
  if (signing_keys_.size() > 4096) signing_keys_.clear();
  signing_keys_.emplace(cache_key, derived);
  return derived;
}

Result<VerifiedCaller> SignatureVerifier::Verify(const SignedRequest& request,
                                                 std::chrono::system_clock::time_point now,
                                                 SignedService signed_service) const {
  const bool s3 = signed_service == SignedService::kS3;
  const std::string_view service_name = s3                                          ? kS3Service
                                        : signed_service == SignedService::kLambda  ? "lambda"
                                        : signed_service == SignedService::kKinesis ? "kinesis"
                                                                                    : kService;
  // 1. and 2.: a signature, complete.
  const size_t q = request.target.find('?');
  const std::vector<QueryParam> query = q == std::string_view::npos
                                            ? std::vector<QueryParam>()
                                            : ParseQuery(request.target.substr(q + 1));
  const std::optional<std::string_view> authorization =
      FindHeader(request.headers, "Authorization");
  Result<SignatureParts> parsed = [&]() -> Result<SignatureParts> {
    if (authorization && !authorization->empty()) {
      return PartsFromHeader(*authorization, request.headers);
    }
    if (FindParam(query, "X-Amz-Algorithm")) return PartsFromQuery(query);
    return Error(ErrorCode::kMissingAuthenticationToken, "Request is missing Authentication Token");
  }();
  if (!parsed.ok()) return parsed.error();
  SignatureParts& parts = *parsed;

  // 3. The date.
  const int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (Status s = CheckDate(&parts, now_seconds); !s.ok()) return s.error();

  // 4. Host signed.
  if (std::find(parts.signed_headers.begin(), parts.signed_headers.end(), "host") ==
      parts.signed_headers.end()) {
    return Incomplete("'Host' must be a 'SignedHeader' in the AWS Authorization.");
  }

  // 5. The credential scope.
  if (parts.service != service_name) {
    return Invalid("Credential should be scoped to correct service: '" + std::string(service_name) +
                   "'. ");
  }
  if (parts.scope_date != parts.amz_date.substr(0, 8)) {
    return Invalid(
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
        "HTTP: '" +
        parts.scope_date + "' != '" + parts.amz_date.substr(0, 8) + "', from '" + parts.amz_date +
        "'.");
  }
  parts.scope = parts.scope_date + "/" + parts.region + "/" + parts.service + "/aws4_request";

  // 6. The key.
  const AccessKey* key = keys_->Find(parts.access_key_id);
  if (!key) return Unrecognized("The security token included in the request is invalid.");

  // 7. The signature.
  std::optional<std::string_view> content_sha = FindHeader(request.headers, "X-Amz-Content-Sha256");
  std::string payload_hash;
  if (s3) {
    Result<std::string> hash = S3PayloadHash(content_sha, authorization.has_value(), request.body);
    if (!hash.ok()) return hash.error();
    payload_hash = std::move(*hash);
  } else {
    payload_hash = content_sha && *content_sha == "UNSIGNED-PAYLOAD"
                       ? std::string(*content_sha)
                       : util::Sha256Hex(request.body);
  }
  Result<std::string> canonical =
      CanonicalRequest(request, parts.signed_headers, payload_hash, /*s3_uri=*/s3);
  if (!canonical.ok()) return canonical.error();
  const std::string string_to_sign = StringToSign(parts.amz_date, parts.scope, *canonical);
  const std::string expected = util::HmacSha256Hex(
      SigningKey(*key, parts.scope_date, parts.region, service_name), string_to_sign);
  if (expected.size() != parts.signature.size() ||
      CRYPTO_memcmp(expected.data(), parts.signature.data(), expected.size()) != 0) {
    return Invalid(
        "The request signature we calculated does not match the signature you provided. Check "
        "your AWS Secret Access Key and signing method. Consult the service documentation for "
        "details.\n\nThe Canonical String for this request should have been\n'" +
        *canonical + "'\n\nThe String-to-Sign should have been\n'" + string_to_sign + "'\n");
  }

  // 8. The session token.
  const bool token_ok =
      parts.session_token ? *parts.session_token == key->session_token : key->session_token.empty();
  if (!token_ok) return Unrecognized("The security token included in the request is invalid");
  return VerifiedCaller{.key = key, .region = std::move(parts.region)};
}

}  // namespace ddb::server
