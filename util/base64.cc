#include "util/base64.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace ddb::util {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> MakeDecodeTable() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr std::array<int8_t, 256> kDecode = MakeDecodeTable();

}  // namespace

void AppendBase64(std::string* out, std::string_view bytes) {
  // EVP_EncodeBlock takes an int length: a long input goes in pieces of whole 3-byte groups.
  constexpr size_t kPiece = size_t{3} << 20;
  do {
    const size_t n = std::min(bytes.size(), kPiece);
    const size_t at = out->size();
    out->resize(at + (n + 2) / 3 * 4 + 1);  // and EVP_EncodeBlock's terminating NUL
    const int written =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out->data() + at),
                        reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(n));
    out->resize(at + static_cast<size_t>(written));
    bytes.remove_prefix(n);
  } while (!bytes.empty());
}

std::string Base64(std::string_view bytes) {
  std::string out;
  AppendBase64(&out, bytes);
  return out;
}

bool DecodeBase64(std::string_view text, std::string* out, Base64Check check) {
  if (text.size() % 4 != 0) return false;
  out->clear();
  out->reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=') {
        // Padding only in the last group's last one or two places.
        if (i + 4 != text.size() || j < 2) return false;
        v[j] = 0;
        ++pad;
      } else {
        if (pad) return false;
        v[j] = kDecode[static_cast<uint8_t>(c)];
        if (v[j] < 0) return false;
      }
    }
    if (check == Base64Check::kCanonical &&
        ((pad == 1 && (v[2] & 3) != 0) || (pad == 2 && (v[1] & 15) != 0))) {
      return false;
    }
    const uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out->push_back(static_cast<char>(n >> 16));
    if (pad < 2) out->push_back(static_cast<char>((n >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(n & 0xff));
  }
  return true;
}

}  // namespace ddb::util
