// Base64 (RFC 4648 section 4: the standard alphabet, padded): B values on the wire and in
// import and export files, pagination tokens and shard iterators, S3's Content-MD5 and
// checksums.
// Encoding is OpenSSL's EVP_EncodeBlock. Decoding is written here: EVP_DecodeBlock skips
// leading and trailing blanks, reads an '=' anywhere as a zero sextet and returns a length
// that counts the padding as bytes, so every caller would have to redo the checks below.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::util {

// Appends the base64 text of `bytes` to *out.
void AppendBase64(std::string* out, std::string_view bytes);
// The base64 text of `bytes`.
std::string Base64(std::string_view bytes);

// How strictly DecodeBase64 reads.
enum class Base64Check {
  // Length a multiple of 4, alphabet characters only, '=' only as the last one or two. The
  // bits past the last whole byte are ignored ("AB==" reads as "AA=="): DynamoDB's B values,
  // base64 in import files, PartiQL's NextToken.
  kPadded,
  // kPadded, and those bits must be zero, so that only the text Base64() writes is read:
  // shard iterators, S3's Content-MD5 and x-amz-checksum-* headers.
  kCanonical,
};

// Replaces *out with the bytes of `text`. Returns false when `text` fails `check` (*out is
// then unspecified). "" decodes to "".
bool DecodeBase64(std::string_view text, std::string* out,
                  Base64Check check = Base64Check::kPadded);

}  // namespace ddb::util
