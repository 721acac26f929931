// Verification of AWS Signature Version 4 requests as DynamoDB checks them (`--auth verify`):
// header auth (Authorization: AWS4-HMAC-SHA256 ...) and presigned query-string auth
// (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders,
// X-Amz-Signature). The steps and their order, each with the service's error:
//   1. Authorization present (or X-Amz-Algorithm in the query)   MissingAuthenticationToken
//   2. complete: Credential, Signature, SignedHeaders, a date      IncompleteSignature
//   3. date within 15 minutes of now (presigned: not expired)      InvalidSignature
//   4. host among the signed headers, every signed header present  IncompleteSignature
//   5. credential scope: its date is the request's, service dynamodb (or s3)  InvalidSignature
//   6. access key known                                            UnrecognizedClient
//   7. signature (constant-time compare)                           InvalidSignature, with the
//      canonical request and string to sign the server computed, as the service shows them
//   8. session token, when the key has one or the request sends one  UnrecognizedClient
// Canonicalisation follows the SigV4 specification: the path normalised and URI-encoded once
// more; query parameters decoded, re-encoded (RFC 3986 unreserved set) and sorted; each signed
// header's values (repeated headers joined by ','), trimmed, runs of spaces folded to one;
// the payload hashed as sent (before any Content-Encoding is undone).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
// Thread safety: SignatureVerifier::Verify may be called concurrently (its signing-key cache
// has a mutex); the free functions are pure.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ddb/error.h"
#include "server/auth/credentials.h"
#include "server/url_coding.h"

namespace ddb::server {

// What verification needs of a request; the views are valid during Verify.
struct SignedRequest {
  std::string_view method;               // "POST"
  std::string_view target;               // path and query as sent, "/?X-Amz-Date=..."
  std::span<const HeaderField> headers;  // every header field, in the order received
  std::string_view body;                 // as received
};

// Who signed a verified request.
struct VerifiedCaller {
  const AccessKey* key;  // points into the verifier's CredentialStore
  std::string region;    // the credential scope's
};

// "20150830" + "us-east-1" + "dynamodb" -> the SigV4 signing key (32 raw bytes).
std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service);

// The canonical URI of a path as sent: dot segments removed, repeated '/' kept, then every
// byte outside the unreserved set and '/' percent-encoded ("/a b" -> "/a%20b", "/%41" ->
// "/%2541").
std::string CanonicalUri(std::string_view path);

// The canonical query string of a raw query (without '?'): parameters decoded and re-encoded,
// sorted by name then value, X-Amz-Signature left out.
std::string CanonicalQuery(std::string_view query);

// The canonical request: method, URI, query, the signed headers' lines, the signed header
// list, the payload hash. `signed_headers` lowercase, as in the Authorization header.
// `s3_uri`: the URI as S3 signs it, the path exactly as sent (no normalising, no second
// encoding); otherwise CanonicalUri's.
// Errors: kIncompleteSignature when a signed header is not in the request.
Result<std::string> CanonicalRequest(const SignedRequest& request,
                                     std::span<const std::string> signed_headers,
                                     std::string_view payload_hash, bool s3_uri = false);

// The service a request is signed for: DynamoDB's (also DynamoDB Streams') or S3's
// (server/s3/s3_api.h). For S3 the canonical URI is the path as sent and the payload hash is
// x-amz-content-sha256 as sent (a hex SHA-256 must match the body: kInvalidSignature with
// "XAmzContentSHA256Mismatch" at the start of the message; STREAMING-* and UNSIGNED-PAYLOAD
// are taken as they are, chunk signatures unchecked); presigned URLs sign UNSIGNED-PAYLOAD.
// The service a request's credential scope must name: DynamoDB's JSON API (and DynamoDB
// Streams), S3, the Lambda API's event source mappings, Kinesis.
enum class SignedService { kDynamoDb, kS3, kLambda, kKinesis };

// "AWS4-HMAC-SHA256\n<amz date>\n<scope>\n<hex sha256 of the canonical request>".
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);

class SignatureVerifier {
 public:
  static constexpr std::chrono::minutes kAllowedSkew{15};

  // `keys` must outlive the verifier.
  explicit SignatureVerifier(const CredentialStore* keys) : keys_(keys) {}

  // Checks the request's signature at time `now`. Errors: as listed at the top of this file.
  Result<VerifiedCaller> Verify(const SignedRequest& request,
                                std::chrono::system_clock::time_point now,
                                SignedService service = SignedService::kDynamoDb) const;

 private:
  // DeriveSigningKey, cached per key, date and region (a day's key serves all its requests).
  std::string SigningKey(const AccessKey& key, std::string_view date, std::string_view region,
                         std::string_view service) const;

  const CredentialStore* keys_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::string> signing_keys_;  // guarded by mu_
};

}  // namespace ddb::server
