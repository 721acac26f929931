// The bytes of an S3 write (PutObject, UploadPart, DeleteObjects) as the client meant them:
// the aws-chunked framing the SDKs use for streamed bodies undone (Content-Encoding:
// aws-chunked or x-amz-content-sha256: STREAMING-..., with x-amz-decoded-content-length and
// trailing checksums), then Content-MD5 and the x-amz-checksum-* values checked, as S3 does.
// CRC32, SHA-1 and SHA-256 checksums are verified (zlib, OpenSSL); CRC32C and CRC64NVME are
// accepted as sent (neither library has them, and a fixture store does not need a third).
// Chunk signatures are not verified (the request's own signature is: server/auth/sigv4_verify.h).
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// Thread safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/s3/s3_store.h"
#include "server/url_coding.h"

namespace ddb::server {

struct S3Payload {
  std::string data;
  // The checksums the client sent (headers or trailers), e.g. {"x-amz-checksum-crc32",
  // "base64"}: echoed in the response as S3 does.
  std::vector<std::pair<std::string, std::string>> checksums;
};

// Undoes aws-chunked framing when the headers say it is there, and checks the digests.
// Errors: IncompleteBody / InvalidArgument (bad framing or lengths), InvalidDigest (a
// malformed Content-MD5), BadDigest (a digest that does not match), InvalidRequest (a
// checksum header that is not base64 of the algorithm's size).
S3Status ReadS3Payload(std::span<const HeaderField> headers, std::string body, S3Payload* out);

}  // namespace ddb::server
