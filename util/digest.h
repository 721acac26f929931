// Message digests through OpenSSL's libcrypto: SHA-256 and HMAC-SHA256 (SigV4, signing and
// verifying; S3's x-amz-checksum-sha256) and MD5 (S3 ETags and Content-MD5, export
// manifests). Raw digests are bytes; the *Hex forms are lower-case hex (util/hex.h).
// The algorithms are fetched once and each thread keeps its own contexts, because OpenSSL 3's
// one-shot calls look the algorithm up in the provider tables every time (a third of a SigV4
// verification).
// Thread safety: any thread.
#pragma once

#include <string>
#include <string_view>

namespace ddb::util {

// SHA-256 of `data`: 32 bytes ("" should libcrypto fail).
std::string Sha256(std::string_view data);
// Its 64 hex digits.
std::string Sha256Hex(std::string_view data);

// HMAC-SHA256 of `data` under `key`: 32 bytes ("" should libcrypto fail, which matches no
// signature).
std::string HmacSha256(std::string_view key, std::string_view data);
// Its 64 hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// MD5 of `data`: 16 bytes.
std::string Md5(std::string_view data);
// Its 32 hex digits.
std::string Md5Hex(std::string_view data);
// MD5 of a then b, into out, for short inputs on hot paths (the key hash of
// engine/storage/key_codec.h): no allocation, and not through EVP.
void Md5Of2(std::string_view a, std::string_view b, unsigned char out[16]);

}  // namespace ddb::util
