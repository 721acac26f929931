// The S3 API (server/s3/s3_api.h) on any request, over a scratch directory: line 1 the method,
// line 2 the target, then "name: value" header lines up to an empty line, then the body.
// Each request is signed for s3 unless it brings its own Authorization. Checks: an answer
// with a status S3 uses; nothing is ever created outside the store's directory (keys such as
// "../x" must not escape), checked every input against the scratch parent's one entry.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_server.h"
#include "server/s3/s3_api.h"
#include "server/s3/s3_store.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_lines.h"

namespace {

namespace fs = std::filesystem;
namespace server = ddb::server;

struct Scratch {
  fs::path parent = fs::temp_directory_path() / ("ddb-s3-fuzz-" + std::to_string(::getpid()));
  fs::path root = parent / "s3";
  Scratch() {
    fs::remove_all(parent);
    fs::create_directories(root);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(parent, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Scratch scratch;
  static server::LocalS3Store store(scratch.root, /*sync=*/false);
  static uint64_t runs = 0;
  if (++runs % 512 == 0) {  // keep the scratch directory small
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(scratch.root, ec)) fs::remove_all(entry, ec);
  }

  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string method(TakeLine(&in));
  const std::string target(TakeLine(&in));
  std::vector<std::string> lines;
  while (!in.empty()) {
    std::string_view line = TakeLine(&in);
    if (line.empty()) break;
    lines.emplace_back(line);
  }
  std::vector<server::HeaderField> headers;
  server::HttpRequest request;
  for (const std::string& line : lines) {
    const size_t colon = line.find(':');
    std::string_view name = std::string_view(line).substr(0, colon);
    std::string_view value =
        colon == std::string::npos ? std::string_view() : std::string_view(line).substr(colon + 1);
    while (value.starts_with(' ')) value.remove_prefix(1);
    headers.push_back({name, value});
    if (name == "Authorization" && !request.authorization) request.authorization = value;
    if (name == "Host") request.host = value;
  }
  static const std::string kAuthorization =
      "AWS4-HMAC-SHA256 Credential=AKIDFUZZ/20250101/us-east-1/s3/aws4_request, "
      "SignedHeaders=host, Signature=00";
  if (!request.authorization) request.authorization = kAuthorization;
  request.method = method;
  request.target = target;
  request.headers = headers;
  request.body = std::string(in);

  server::HttpResponse response = server::ServeS3(store, &request, nullptr);
  DDB_FUZZ_CHECK(response.status >= 200 && response.status < 600);
  DDB_FUZZ_CHECK(!response.head_content_length || response.body.empty());
  // Nothing beside the store's directory in its parent.
  std::error_code ec;
  size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(scratch.parent, ec)) {
    (void)entry;
    ++entries;
  }
  DDB_FUZZ_CHECK(entries == 1);
  return 0;
}
