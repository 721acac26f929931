// Parsing of the AWS Signature Version 4 `Authorization` header:
//   AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request,
//   SignedHeaders=content-type;host;x-amz-date, Signature=<64 hex digits>
// Only parsing; server/auth/sigv4_verify.h checks signatures. See
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"

namespace ddb::server {

struct SigV4Authorization {
  std::string access_key_id;                // "AKIDEXAMPLE"
  std::string date;                         // credential scope date, "20261130"
  std::string region;                       // "us-east-1"
  std::string service;                      // "dynamodb"
  std::vector<std::string> signed_headers;  // as sent (lowercase by the spec), in order
  std::string signature;                    // hex, as sent
};

// Parses the full header value. Strict: the algorithm must be AWS4-HMAC-SHA256 and
// Credential (five '/'-separated parts ending in "aws4_request"), SignedHeaders and
// Signature must all be present and non-empty; parameters may come in any order, separated
// by ',' and/or blanks. `request_has_date`: whether the request has X-Amz-Date or Date, which
// the service reports missing in the same message.
// Errors: kIncompleteSignature (anything else; the message names everything missing).
Result<SigV4Authorization> ParseAuthorization(std::string_view header,
                                              bool request_has_date = true);

// The caller identity for the engine, leniently: the region and access key of a header that
// ParseAuthorization accepts, or of any "AWS4-HMAC-SHA256 ... Credential=KEY/DATE/REGION..."
// header; otherwise RequestContext's defaults (region "us-east-1", empty key). Lenient because
// signatures are not checked yet, and test clients send dummy credentials.
RequestContext ContextFromAuthorization(std::string_view header);

}  // namespace ddb::server
