// Hexadecimal text: digests (SigV4, MD5 ETags), pagination tokens, partition-key ranges.
// Lower case unless a name says otherwise (percent-encoding and XML character references
// use upper case).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ddb::util {

inline constexpr char kHexDigits[] = "0123456789abcdef";
inline constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

// Appends two lower-case hex digits per byte of `bytes` ("\x01\xab" -> "01ab").
inline void AppendHex(std::string* out, std::string_view bytes) {
  out->reserve(out->size() + 2 * bytes.size());
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out->push_back(kHexDigits[c >> 4]);
    out->push_back(kHexDigits[c & 15]);
  }
}

// Lower-case hex of raw bytes.
inline std::string Hex(std::string_view bytes) {
  std::string out;
  AppendHex(&out, bytes);
  return out;
}

// The 16 lower-case hex digits of `v`, leading zeros kept (0xab -> "00000000000000ab").
inline std::string Hex64(uint64_t v) {
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = kHexDigits[v & 15];
  return out;
}

// The value of one hex digit of either case, or -1 when `c` is not one.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether `text` is made only of lower-case hex digits (true for "").
inline bool IsLowerHex(std::string_view text) {
  return text.find_first_not_of(kHexDigits) == std::string_view::npos;
}

// Replaces *out with the bytes of `text` as Hex writes them: two lower-case digits a byte.
// Returns false for an odd length or any other character (*out is then unspecified).
inline bool DecodeHex(std::string_view text, std::string* out) {
  if (text.size() % 2 != 0 || !IsLowerHex(text)) return false;
  out->clear();
  out->reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    out->push_back(static_cast<char>(HexDigitValue(text[i]) * 16 + HexDigitValue(text[i + 1])));
  }
  return true;
}

}  // namespace ddb::util
