// ASCII letters' case, whatever the C locale says: header names, keywords of expressions and
// PartiQL, policy values, content codings.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::util {

constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// Whether `a` and `b` are equal but for the case of ASCII letters. Hand-written rather than
// Beast's iequals: Boost 1.74's (Debian 12) reads one byte past the end of both strings once
// they differ in case (found by the sigv4 fuzz target under ASan).
constexpr bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Whether `text` starts with `prefix`, ASCII case aside.
constexpr bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

// `text` with its ASCII letters in lower (upper) case; other bytes as they are.
inline std::string AsciiLowerCopy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}
inline std::string AsciiUpperCopy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

}  // namespace ddb::util
