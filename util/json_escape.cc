#include "util/json_escape.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ddb::util {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

// Whether any of the 8 bytes in `word` needs escaping: '"', '\\' or < 0x20. SWAR: a byte
// b is < n (n <= 0x80) iff (b - n) borrows into its high bit while b's own high bit is clear;
// equality is a zero byte of the XOR. Exact for every byte (no false positives from borrows:
// a borrow only starts at a byte that already matched).
inline bool NeedsEscape(uint64_t word) {
  const uint64_t quote = word ^ (kOnes * '"');
  const uint64_t backslash = word ^ (kOnes * '\\');
  const uint64_t hits = (word - kOnes * 0x20) | (quote - kOnes) | (backslash - kOnes);
  const uint64_t high_clear = ~word & ~quote & ~backslash;  // no input byte had its high bit
  return (hits & high_clear & kHighs) != 0;
}

#if defined(__SSE2__)
// The same test for 16 bytes (SSE2 is part of x86-64): equal to '"' or '\\', or, unsigned,
// max(b, 0x1f) == 0x1f, i.e. b < 0x20.
inline bool NeedsEscape16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i low = _mm_set1_epi8(0x1f);
  const __m128i hits = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      _mm_cmpeq_epi8(_mm_max_epu8(v, low), low));
  return _mm_movemask_epi8(hits) != 0;
}
#endif

// The index of the first byte of data[0, size) that needs escaping, or size: 16 bytes at a
// time (SSE2), then 8 (SWAR), then byte by byte.
size_t FirstEscape(const char* data, size_t size) {
  size_t i = 0;
#if defined(__SSE2__)
  while (i + 16 <= size && !NeedsEscape16(data + i)) i += 16;
#endif
  while (i + 8 <= size) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    if (NeedsEscape(word)) break;
    i += 8;
  }
  for (; i < size; ++i) {
    const auto u = static_cast<unsigned char>(data[i]);
    if (u < 0x20 || u == '"' || u == '\\') return i;
  }
  return size;
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const char* const data = text.data();
  const size_t size = text.size();
  size_t i = FirstEscape(data, size);
  if (i == size) {  // nothing to escape (nearly always): quotes and bytes in one copy
    const size_t at = out->size();
    out->resize(at + size + 2);
    char* p = out->data() + at;
    p[0] = '"';
    std::memcpy(p + 1, data, size);
    p[size + 1] = '"';
    return;
  }
  out->reserve(out->size() + size + 8);
  out->push_back('"');
  // Runs of bytes that need no escaping are appended in one go.
  size_t run = 0;
  while (i < size) {
    const auto u = static_cast<unsigned char>(data[i]);
    out->append(data + run, i - run);
    run = i + 1;
    switch (u) {
      case '"':
        out->append("\\\"", 2);
        break;
      case '\\':
        out->append("\\\\", 2);
        break;
      case '\n':
        out->append("\\n", 2);
        break;
      case '\r':
        out->append("\\r", 2);
        break;
      case '\t':
        out->append("\\t", 2);
        break;
      case '\b':
        out->append("\\b", 2);
        break;
      case '\f':
        out->append("\\f", 2);
        break;
      default: {
        const char escape[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 0xf]};
        out->append(escape, 6);
      }
    }
    i = run + FirstEscape(data + run, size - run);
  }
  out->append(data + run, size - run);
  out->push_back('"');
}

std::string JsonString(std::string_view text) {
  std::string out;
  AppendJsonString(&out, text);
  return out;
}

}  // namespace ddb::util
