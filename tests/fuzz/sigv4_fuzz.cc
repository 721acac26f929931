// SigV4 parsing (server/auth/sigv4.h) and verification (server/auth/sigv4_verify.h) on any text.
// Byte 0 picks:
//   0  the Authorization header: ParseAuthorization (with and without a date) and the
//      lenient ContextFromAuthorization
//   1  a request path and query: CanonicalUri, CanonicalQuery
//   2  a credentials file: CredentialStore::AddIniText
//   3  a whole request for SignatureVerifier::Verify (as DynamoDB and as S3 check it), at
//   2025-01-01T00:00:05Z, with the key
//      AKIDFUZZ / fuzzsecret: line 1 the method, line 2 the target, then "name: value" header
//      lines up to an empty line, then the body
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/auth/credentials.h"
#include "server/auth/sigv4.h"
#include "server/auth/sigv4_verify.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_lines.h"

namespace {

namespace server = ddb::server;

void Authorization(std::string_view in) {
  auto parsed = server::ParseAuthorization(in);
  auto parsed_without_date = server::ParseAuthorization(in, false);
  // Without a date there is one more thing to complain of, never one less.
  DDB_FUZZ_CHECK(!parsed_without_date.ok() || parsed.ok());
  ddb::RequestContext ctx = server::ContextFromAuthorization(in);
  if (parsed.ok()) {
    DDB_FUZZ_CHECK(ctx.region == parsed->region);
    DDB_FUZZ_CHECK(ctx.access_key_id == parsed->access_key_id);
  }
}

void Verify(std::string_view in) {
  static server::CredentialStore* keys = [] {
    auto* store = new server::CredentialStore();  // never destroyed: used until exit
    DDB_FUZZ_CHECK(store
                       ->AddIniText("[fuzz]\naws_access_key_id = AKIDFUZZ\n"
                                    "aws_secret_access_key = fuzzsecret\n"
                                    "[token]\naws_access_key_id = AKIDTOKEN\n"
                                    "aws_secret_access_key = tokensecret\n"
                                    "aws_session_token = sessiontoken\n",
                                    "fuzz")
                       .ok());
    return store;
  }();
  static const server::SignatureVerifier verifier(keys);
  server::SignedRequest request;
  request.method = TakeLine(&in);
  request.target = TakeLine(&in);
  std::vector<server::HeaderField> headers;
  while (!in.empty()) {
    std::string_view line = TakeLine(&in);
    if (line.empty()) break;
    size_t colon = line.find(':');
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    while (value.starts_with(' ')) value.remove_prefix(1);
    headers.push_back({line.substr(0, colon), value});
  }
  request.headers = headers;
  request.body = in;
  const auto now = std::chrono::system_clock::from_time_t(1735689605);  // 2025-01-01T00:00:05Z
  (void)verifier.Verify(request, now);
  (void)verifier.Verify(request, now, server::SignedService::kS3);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      Authorization(in);
      break;
    case 1:
      server::CanonicalUri(in);
      server::CanonicalQuery(in);
      break;
    case 2: {
      server::CredentialStore store;
      (void)store.AddIniText(in, "fuzz");
      break;
    }
    case 3:
      Verify(in);
      break;
  }
  return 0;
}
