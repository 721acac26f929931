// DynamoDB numbers: parsing, normalisation, comparison, key encoding and exact arithmetic.
//
// Internally a nonzero number is (sign, digits, exponent) with value 0.<digits> x 10^exponent,
// where <digits> has no leading or trailing zeros (1..38 of them) and exponent is in
// [-129, 126]: 0.1E-129 = 1E-130 is the smallest magnitude, 0.99..9E+126 (38 nines) =
// 9.99..9E+125 the largest.
//
// Number key format (written by AppendNumberKey). DO NOT change: it is on disk.
//   zero:     0x02
//   positive: 0x03 | exponent + 129 (one byte, 0..255)
//                  | one byte per pair of digits: 1 + 10 * d[i] + d[i+1] (1..100); an odd
//                    count is padded with one 0 digit (never ambiguous: digits end nonzero)
//                  | 0x00 terminator (below every digit byte, so a prefix sorts first)
//   negative: 0x01 | 255 - (exponent + 129) | 255 - (each digit byte above) | 0xFF
// Bytewise order of the encodings equals numeric order; equal numbers encode identically,
// and the encoding is self-delimiting (at most 2 + 19 + 1 = 22 bytes).
// Examples: 1 -> 03 82 0B 00; -1 -> 01 7D F4 FF; 0.5 -> 03 81 33 00; 123 -> 03 84 0D 1F 00.
#include "ddb/number.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ddb {
namespace {

constexpr size_t kMaxDigits = 38;
constexpr int64_t kMinExponent = -129;
constexpr int64_t kMaxExponent = 126;
constexpr int64_t kExponentBias = 129;
// Exponents in the text saturate here; anything this large is out of range anyway, and
// saturating keeps "0e99999999999999999999" (zero) and huge inputs free of overflow.
constexpr int64_t kExponentClamp = 1'000'000'000'000;

constexpr uint8_t kNegativeMarker = 0x01;
constexpr uint8_t kZeroMarker = 0x02;
constexpr uint8_t kPositiveMarker = 0x03;
constexpr uint8_t kPositiveTerminator = 0x00;
constexpr uint8_t kNegativeTerminator = 0xFF;

struct Decimal {
  bool negative = false;
  std::string digits;    // No leading or trailing zeros; empty for zero.
  int64_t exponent = 0;  // Value is 0.<digits> x 10^exponent.

  bool is_zero() const { return digits.empty(); }
};

Error SyntaxError(std::string_view text) {
  // An empty number is named without the ": " (dynalite's suite, recorded against the service).
  if (text.empty())
    return Error::Validation("The parameter cannot be converted to a numeric value");
  return Error::Validation("The parameter cannot be converted to a numeric value: " +
                           std::string(text));
}
Error PrecisionError() {
  return Error::Validation("Attempting to store more than 38 significant digits in a Number");
}
Error OverflowError() {
  return Error::Validation(
      "Number overflow. Attempting to store a number with magnitude larger than supported range");
}
Error UnderflowError() {
  return Error::Validation(
      "Number underflow. Attempting to store a number with magnitude smaller than supported "
      "range");
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses [+-]digits[.digits][(e|E)[+-]digits] (at least one mantissa digit). Returns false
// on bad syntax. Does not check precision or range.
bool ParseDecimal(std::string_view text, Decimal* out) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string all;  // Every mantissa digit, '.' removed.
  int64_t integer_digits = 0;
  bool seen_dot = false;
  for (; i < n; ++i) {
    const char c = text[i];
    if (IsDigit(c)) {
      all.push_back(c);
      if (!seen_dot) ++integer_digits;
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (all.empty()) return false;
  int64_t exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
      exponent_negative = text[i] == '-';
      ++i;
    }
    if (i == n) return false;
    for (; i < n; ++i) {
      if (!IsDigit(text[i])) return false;
      if (exponent < kExponentClamp) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exponent_negative) exponent = -exponent;
  }
  if (i != n) return false;

  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) {
    *out = Decimal();
    return true;
  }
  const size_t last = all.find_last_not_of('0');
  out->negative = negative;
  out->digits = all.substr(first, last - first + 1);
  out->exponent = integer_digits - static_cast<int64_t>(first) + exponent;
  return true;
}

// The service's checks after syntax: significant digits, then range.
Status CheckLimits(const Decimal& d) {
  if (d.is_zero()) return Status::Ok();
  if (d.digits.size() > kMaxDigits) return PrecisionError();
  if (d.exponent > kMaxExponent) return OverflowError();
  if (d.exponent < kMinExponent) return UnderflowError();
  return Status::Ok();
}

// Plain decimal notation. REQUIRES: d passed CheckLimits (so the text is short).
std::string Format(const Decimal& d) {
  if (d.is_zero()) return "0";
  std::string out;
  if (d.negative) out.push_back('-');
  const int64_t n = static_cast<int64_t>(d.digits.size());
  if (d.exponent <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-d.exponent), '0');
    out.append(d.digits);
  } else if (d.exponent >= n) {
    out.append(d.digits);
    out.append(static_cast<size_t>(d.exponent - n), '0');
  } else {
    out.append(d.digits, 0, static_cast<size_t>(d.exponent));
    out.push_back('.');
    out.append(d.digits, static_cast<size_t>(d.exponent), std::string::npos);
  }
  return out;
}

Result<std::string> Finish(const Decimal& d) {
  DDB_RETURN_IF_ERROR(CheckLimits(d));
  return Format(d);
}

// A normalised number seen without copying: sign, exponent (as in Decimal) and the text from
// the first nonzero digit on (may still hold one '.' and, for integers, trailing zeros).
struct NumberView {
  int sign = 0;  // -1, 0 or 1.
  int64_t exponent = 0;
  std::string_view body;
};

NumberView ViewOf(std::string_view s) {
  NumberView v;
  v.sign = 1;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    if (s[0] == '-') v.sign = -1;
    s.remove_prefix(1);
  }
  // Tolerate leading zeros so that "0", "0.5" and "00.5" all work.
  size_t dot = s.find('.');
  const size_t first = s.find_first_not_of("0.");
  if (first == std::string_view::npos) {
    v.sign = 0;
    return v;
  }
  if (dot == std::string_view::npos) dot = s.size();
  if (first < dot) {
    v.exponent = static_cast<int64_t>(dot - first);
  } else {
    v.exponent = -static_cast<int64_t>(first - dot - 1);
  }
  v.body = s.substr(first);
  return v;
}

// Compares the digit sequences of two bodies as fractions 0.<digits> ('.' skipped).
int CompareBodies(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (true) {
    while (i < a.size() && a[i] == '.') ++i;
    while (j < b.size() && b[j] == '.') ++j;
    if (i == a.size() || j == b.size()) break;
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i;
    ++j;
  }
  for (; i < a.size(); ++i) {
    if (a[i] >= '1' && a[i] <= '9') return 1;
  }
  for (; j < b.size(); ++j) {
    if (b[j] >= '1' && b[j] <= '9') return -1;
  }
  return 0;
}

// Compares |a| and |b| for nonzero decimals.
int CompareMagnitude(const Decimal& a, const Decimal& b) {
  if (a.exponent != b.exponent) return a.exponent < b.exponent ? -1 : 1;
  const int c = a.digits.compare(b.digits);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Exact a + b; the result is not yet checked against the limits.
Decimal AddDecimals(const Decimal& a, const Decimal& b) {
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  // Lay both out over the same digit places: index 0 is the place 10^(top-1).
  const int64_t a_low = a.exponent - static_cast<int64_t>(a.digits.size());
  const int64_t b_low = b.exponent - static_cast<int64_t>(b.digits.size());
  const int64_t top = std::max(a.exponent, b.exponent);
  const int64_t low = std::min(a_low, b_low);
  const size_t width = static_cast<size_t>(top - low);
  std::vector<int> x(width, 0);
  std::vector<int> y(width, 0);
  for (size_t i = 0; i < a.digits.size(); ++i) {
    x[static_cast<size_t>(top - a.exponent) + i] = a.digits[i] - '0';
  }
  for (size_t i = 0; i < b.digits.size(); ++i) {
    y[static_cast<size_t>(top - b.exponent) + i] = b.digits[i] - '0';
  }
  Decimal result;
  std::vector<int> r(width + 1, 0);  // r[0] is the carry place 10^top.
  if (a.negative == b.negative) {
    result.negative = a.negative;
    int carry = 0;
    for (size_t i = width; i-- > 0;) {
      const int s = x[i] + y[i] + carry;
      r[i + 1] = s % 10;
      carry = s / 10;
    }
    r[0] = carry;
  } else {
    const int c = CompareMagnitude(a, b);
    if (c == 0) return Decimal();
    if (c < 0) std::swap(x, y);
    result.negative = c > 0 ? a.negative : b.negative;
    int borrow = 0;
    for (size_t i = width; i-- > 0;) {
      int s = x[i] - y[i] - borrow;
      borrow = s < 0 ? 1 : 0;
      if (s < 0) s += 10;
      r[i + 1] = s;
    }
    assert(borrow == 0);
  }
  size_t first = 0;
  while (first < r.size() && r[first] == 0) ++first;
  if (first == r.size()) return Decimal();
  size_t last = r.size() - 1;
  while (r[last] == 0) --last;
  for (size_t i = first; i <= last; ++i) result.digits.push_back(static_cast<char>('0' + r[i]));
  result.exponent = top + 1 - static_cast<int64_t>(first);
  return result;
}

Result<Decimal> ParseOperand(std::string_view text) {
  Decimal d;
  if (!ParseDecimal(text, &d)) return SyntaxError(text);
  return d;
}

}  // namespace

Result<std::string> NormalizeNumber(std::string_view text) {
  Decimal d;
  if (!ParseDecimal(text, &d)) return SyntaxError(text);
  return Finish(d);
}

int CompareNumbers(std::string_view a, std::string_view b) {
  const NumberView x = ViewOf(a);
  const NumberView y = ViewOf(b);
  if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
  if (x.sign == 0) return 0;
  int magnitude = 0;
  if (x.exponent != y.exponent) {
    magnitude = x.exponent < y.exponent ? -1 : 1;
  } else {
    magnitude = CompareBodies(x.body, y.body);
  }
  return x.sign > 0 ? magnitude : -magnitude;
}

void AppendNumberKey(std::string* dst, std::string_view normalised) {
  Decimal d;
  const bool parsed = ParseDecimal(normalised, &d);
  assert(parsed && CheckLimits(d).ok());
  (void)parsed;
  if (d.is_zero()) {
    dst->push_back(static_cast<char>(kZeroMarker));
    return;
  }
  const uint8_t flip = d.negative ? 0xFF : 0x00;
  dst->push_back(static_cast<char>(d.negative ? kNegativeMarker : kPositiveMarker));
  dst->push_back(static_cast<char>(static_cast<uint8_t>(d.exponent + kExponentBias) ^ flip));
  for (size_t i = 0; i < d.digits.size(); i += 2) {
    const int high = d.digits[i] - '0';
    const int low = i + 1 < d.digits.size() ? d.digits[i + 1] - '0' : 0;
    dst->push_back(static_cast<char>(static_cast<uint8_t>(1 + 10 * high + low) ^ flip));
  }
  dst->push_back(static_cast<char>(d.negative ? kNegativeTerminator : kPositiveTerminator));
}

bool ConsumeNumberKey(std::string_view* input, std::string* normalised) {
  const std::string_view in = *input;
  if (in.empty()) return false;
  const uint8_t marker = static_cast<uint8_t>(in[0]);
  if (marker == kZeroMarker) {
    *normalised = "0";
    input->remove_prefix(1);
    return true;
  }
  if (marker != kNegativeMarker && marker != kPositiveMarker) return false;
  if (in.size() < 2) return false;
  Decimal d;
  d.negative = marker == kNegativeMarker;
  const uint8_t flip = d.negative ? 0xFF : 0x00;
  d.exponent = static_cast<int64_t>(static_cast<uint8_t>(in[1]) ^ flip) - kExponentBias;
  size_t pos = 2;
  while (true) {
    if (pos == in.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(in[pos++]) ^ flip;
    if (byte == kPositiveTerminator) break;
    if (byte > 100 || d.digits.size() >= kMaxDigits) return false;
    const int pair = byte - 1;
    d.digits.push_back(static_cast<char>('0' + pair / 10));
    d.digits.push_back(static_cast<char>('0' + pair % 10));
  }
  // Drop the padding digit, then insist on the canonical form AppendNumberKey writes.
  if (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  if (d.digits.empty() || d.digits.front() == '0' || d.digits.back() == '0') return false;
  if (!CheckLimits(d).ok()) return false;
  *normalised = Format(d);
  input->remove_prefix(pos);
  return true;
}

namespace {

// A sum that needs more than 38 digits is refused, as by the service, with the overflow
// message (e.g. 1E50 + 1), not the 38-digit one its inputs would get.
Result<std::string> FinishArithmetic(const Decimal& d) {
  Result<std::string> r = Finish(d);
  if (!r.ok() && r.error().message() == PrecisionError().message()) return OverflowError();
  return r;
}

}  // namespace

Result<std::string> AddNumbers(std::string_view a, std::string_view b) {
  DDB_ASSIGN_OR_RETURN(Decimal x, ParseOperand(a));
  DDB_ASSIGN_OR_RETURN(Decimal y, ParseOperand(b));
  return FinishArithmetic(AddDecimals(x, y));
}

Result<std::string> SubtractNumbers(std::string_view a, std::string_view b) {
  DDB_ASSIGN_OR_RETURN(Decimal x, ParseOperand(a));
  DDB_ASSIGN_OR_RETURN(Decimal y, ParseOperand(b));
  if (!y.is_zero()) y.negative = !y.negative;
  return FinishArithmetic(AddDecimals(x, y));
}

}  // namespace ddb
