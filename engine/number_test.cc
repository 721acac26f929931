#include "ddb/number.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ddb {
namespace {

const char kPrecision[] = "Attempting to store more than 38 significant digits in a Number";
const char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
const char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";

std::string Norm(std::string_view text) {
  Result<std::string> r = NormalizeNumber(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error().message();
  return r.ok() ? r.value() : std::string("<error>");
}

// The error message of a failing NormalizeNumber, or "<ok:...>".
std::string NormError(std::string_view text) {
  Result<std::string> r = NormalizeNumber(text);
  if (r.ok()) return "<ok:" + r.value() + ">";
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  return r.error().message();
}

std::string Key(std::string_view normalised) {
  std::string key;
  AppendNumberKey(&key, normalised);
  return key;
}

std::string Hex(std::string_view bytes) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Add(std::string_view a, std::string_view b) {
  Result<std::string> r = AddNumbers(a, b);
  return r.ok() ? r.value() : "<error:" + r.error().message() + ">";
}

std::string Sub(std::string_view a, std::string_view b) {
  Result<std::string> r = SubtractNumbers(a, b);
  return r.ok() ? r.value() : "<error:" + r.error().message() + ">";
}

std::string Err(const char* message) { return std::string("<error:") + message + ">"; }

int Sign(int x) { return (x > 0) - (x < 0); }

TEST(NormalizeNumber, Table) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0", "0"},
      {"-0", "0"},
      {"+0", "0"},
      {"0.000", "0"},
      {"0e5", "0"},
      {"-0.0e-999", "0"},
      {"0e99999999999999999999999999", "0"},
      {"000", "0"},
      {"1", "1"},
      {"+1", "1"},
      {"-1", "-1"},
      {"01.50", "1.5"},
      {"1.0", "1"},
      {"5.", "5"},
      {".5", "0.5"},
      {"-.5", "-0.5"},
      {"+.5e1", "5"},
      {"1e3", "1000"},
      {"1E3", "1000"},
      {"1e+3", "1000"},
      {"1E-3", "0.001"},
      {"-1.0e2", "-100"},
      {"123.456", "123.456"},
      {"123.456e1", "1234.56"},
      {"123.456e-3", "0.123456"},
      {"123.456e-4", "0.0123456"},
      {"123.456e3", "123456"},
      {"0.00100", "0.001"},
      {"100", "100"},
      {"100.00", "100"},
      {"-0012.3400", "-12.34"},
      {"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
      {"1e125", "1" + std::string(125, '0')},
      {"1e-130", "0." + std::string(129, '0') + "1"},
      {"0.0001e4", "1"},
      {"1000e-3", "1"},
      {"1e0", "1"},
      {"1e-0", "1"},
      {"1e007", "10000000"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(Norm(in), want) << in;
}

TEST(NormalizeNumber, NormalisedTextIsAFixedPoint) {
  for (const char* text : {"0", "1", "-1.5", "0.001", "1000", "-123.456"}) {
    EXPECT_EQ(Norm(text), text);
  }
}

TEST(NormalizeNumber, RejectsBadSyntax) {
  for (const char* text :
       {"",         "abc",       "1.2.3", "0x10", ".",   "e5",   "1e",  "1e+", "1e-",
        "Infinity", "-Infinity", "NaN",   "+",    "-",   "+-1",  "--1", " 1",  "1 ",
        "1,000",    "1e5.5",     "1e1e1", "1.e",  "e",   ".e1",  "1f",  "1d",  "١",
        "1_000",    "0b1",       "+.",    "1..",  "..1", "1e 5", "inf"}) {
    // An empty number is named without the ": " (dynalite's suite, recorded against the
    // service).
    EXPECT_EQ(NormError(text), std::string("The parameter cannot be converted to a numeric value") +
                                   (*text ? std::string(": ") + text : ""))
        << text;
  }
}

TEST(NormalizeNumber, SignificantDigits) {
  const std::string d38 = "12345678901234567890123456789012345678";
  EXPECT_EQ(Norm(d38), d38);
  EXPECT_EQ(NormError(d38 + "9"), kPrecision);
  EXPECT_EQ(NormError("1.00000000000000000000000000000000000001"), kPrecision);
  // Leading and trailing zeros are not significant.
  EXPECT_EQ(Norm("0000000000" + d38 + "0000000000"), d38 + "0000000000");
  EXPECT_EQ(Norm("0.0000000000" + d38 + "0000000000"), "0.0000000000" + d38);
  EXPECT_EQ(Norm("-000" + d38.substr(0, 10) + "." + d38.substr(10) + "000e-5"),
            "-" + d38.substr(0, 5) + "." + d38.substr(5));
  EXPECT_EQ(Norm("1" + std::string(100, '0')), "1" + std::string(100, '0'));
  // Precision is checked before range.
  EXPECT_EQ(NormError(d38 + "9e200"), kPrecision);
  EXPECT_EQ(NormError(d38 + "9e-200"), kPrecision);
}

TEST(NormalizeNumber, RangeLimits) {
  const std::string nines38(38, '9');
  const std::string max = "9." + nines38.substr(1) + "E+125";
  EXPECT_EQ(Norm(max), nines38 + std::string(88, '0'));
  EXPECT_EQ(Norm("-" + max), "-" + nines38 + std::string(88, '0'));
  EXPECT_EQ(NormError("1E+126"), kOverflow);
  EXPECT_EQ(NormError("-1E+126"), kOverflow);
  EXPECT_EQ(NormError("10E+125"), kOverflow);
  EXPECT_EQ(NormError("1e99999999999999999999999"), kOverflow);
  EXPECT_EQ(Norm("1E-130"), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(Norm("-1E-130"), "-0." + std::string(129, '0') + "1");
  EXPECT_EQ(Norm("1.5E-130"), "0." + std::string(129, '0') + "15");
  EXPECT_EQ(NormError("1E-131"), kUnderflow);
  EXPECT_EQ(NormError("-0.9E-130"), kUnderflow);
  EXPECT_EQ(NormError("1e-99999999999999999999999"), kUnderflow);
  EXPECT_EQ(Norm("0." + std::string(129, '0') + "1"), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(NormError("0." + std::string(130, '0') + "1"), kUnderflow);
  EXPECT_EQ(NormError("1" + std::string(126, '0')), kOverflow);
}

TEST(CompareNumbers, Basics) {
  const std::vector<std::string> ascending = {"-1" + std::string(100, '0'),
                                              "-10000000000",
                                              "-2",
                                              "-1.5",
                                              "-1.05",
                                              "-1",
                                              "-0.5",
                                              "-0.05",
                                              "-0.0001",
                                              "0",
                                              "0.0001",
                                              "0.001",
                                              "0.0011",
                                              "0.1",
                                              "0.5",
                                              "1",
                                              "1.05",
                                              "1.5",
                                              "10",
                                              "100",
                                              "100.5",
                                              "101",
                                              "1" + std::string(100, '0')};
  for (size_t i = 0; i < ascending.size(); ++i) {
    for (size_t j = 0; j < ascending.size(); ++j) {
      EXPECT_EQ(Sign(CompareNumbers(ascending[i], ascending[j])),
                Sign(static_cast<int>(i) - static_cast<int>(j)))
          << ascending[i] << " vs " << ascending[j];
    }
  }
}

TEST(NumberKey, KnownBytes) {
  EXPECT_EQ(Hex(Key("0")), "02");
  EXPECT_EQ(Hex(Key("1")), "03820B00");
  EXPECT_EQ(Hex(Key("-1")), "017DF4FF");
  EXPECT_EQ(Hex(Key("0.5")), "03813300");
  EXPECT_EQ(Hex(Key("123")), "03840D1F00");
  EXPECT_EQ(Hex(Key("-123")), "017BF2E0FF");
  EXPECT_EQ(Hex(Key(Norm("1e-130"))), "03000B00");
  EXPECT_EQ(Hex(Key(Norm("1e125"))), "03FF0B00");
}

TEST(NumberKey, SortsNumerically) {
  const std::vector<std::string> ascending = {"-1e10", "-2",  "-1.5",  "-1.05", "-1",
                                              "-0.5",  "0",   "0.001", "0.5",   "1",
                                              "1.05",  "1.5", "10",    "1E+2",  "1e125"};
  for (size_t i = 1; i < ascending.size(); ++i) {
    EXPECT_LT(Key(Norm(ascending[i - 1])), Key(Norm(ascending[i]))) << ascending[i];
  }
}

TEST(NumberKey, RejectsMalformedBytes) {
  std::string out;
  for (const std::string& bytes : std::vector<std::string>{
           "",                                      // empty
           std::string("\x00", 1),                  // bad marker
           "\x04",                                  // bad marker
           "\x03",                                  // no exponent
           "\x03\x82",                              // no digits, no terminator
           std::string("\x03\x82\x00", 3),          // no digits
           "\x03\x82\x0B",                          // no terminator
           std::string("\x03\x82\x65\x00", 4),      // digit byte 101
           std::string("\x03\x82\x01\x0B\x00", 5),  // leading zero digits
           std::string("\x03\x82\x0B\x01\x00", 5),  // trailing zero pair
           "\x01\x7D\xF4",                          // negative without terminator
           "\x01\x7D\xFF",                          // negative without digits
       }) {
    std::string_view in = bytes;
    EXPECT_FALSE(ConsumeNumberKey(&in, &out)) << Hex(bytes);
    EXPECT_EQ(in.size(), bytes.size());
  }
  // More than 19 digit pairs.
  std::string too_long = "\x03\x82";
  too_long.append(20, '\x0C');
  too_long.push_back('\0');
  std::string_view in = too_long;
  EXPECT_FALSE(ConsumeNumberKey(&in, &out));
}

TEST(AddNumbers, Exact) {
  EXPECT_EQ(Add("0.1", "0.2"), "0.3");
  EXPECT_EQ(Add("1", "1"), "2");
  EXPECT_EQ(Add("0", "0"), "0");
  EXPECT_EQ(Add("0", "-5.5"), "-5.5");
  EXPECT_EQ(Add("-5.5", "0"), "-5.5");
  EXPECT_EQ(Add("999", "1"), "1000");
  EXPECT_EQ(Add("99999999999999999999999999999999999999", "1"),
            "100000000000000000000000000000000000000");
  EXPECT_EQ(
      Add("0.99999999999999999999999999999999999999", "0.00000000000000000000000000000000000001"),
      "1");
  EXPECT_EQ(Add("-999", "-1"), "-1000");
  EXPECT_EQ(Add("1000", "-1"), "999");
  EXPECT_EQ(Add("-1000", "1"), "-999");
  EXPECT_EQ(Add("1.5", "-1.5"), "0");
  EXPECT_EQ(Add("-0.001", "0.001"), "0");
  EXPECT_EQ(Add("1.25", "-0.25"), "1");
  EXPECT_EQ(Add("0.25", "-1.25"), "-1");
  EXPECT_EQ(Add("1" + std::string(100, '0'), "1"), Err(kOverflow));
  EXPECT_EQ(Add("1" + std::string(30, '0'), "1"), "1" + std::string(29, '0') + "1");
  EXPECT_EQ(Add("1e-130", "1e-130"), "0." + std::string(129, '0') + "2");
}

TEST(AddNumbers, Limits) {
  const std::string max = Norm("9." + std::string(37, '9') + "E+125");
  EXPECT_EQ(Add(max, Norm("1e88")), Err(kOverflow));
  EXPECT_EQ(Add("-" + max, Norm("-1e88")), Err(kOverflow));
  // A sum needing more than 38 digits is an overflow to the service (alternator's
  // test_update_expression_plus_imprecise), not the 38-digit error.
  EXPECT_EQ(Add(max, Norm("1e87")), Err(kOverflow));
  EXPECT_EQ(Add(Norm("1e50"), "1"), Err(kOverflow));
  EXPECT_EQ(Add(max, "0"), max);
  EXPECT_EQ(Add(max, "-" + max), "0");
  EXPECT_EQ(Sub(max, max), "0");
  const std::string tiny = Norm("1e-130");
  const std::string tiny2 = Norm("1.1e-129");
  EXPECT_EQ(Sub(tiny2, Norm("1e-129")), tiny);
  EXPECT_EQ(Sub(Norm("1.05e-129"), Norm("1e-129")), Err(kUnderflow));
  EXPECT_EQ(Add("1", tiny), Err(kOverflow));
}

TEST(SubtractNumbers, Exact) {
  EXPECT_EQ(Sub("0.3", "0.1"), "0.2");
  EXPECT_EQ(Sub("1", "1"), "0");
  EXPECT_EQ(Sub("0", "1"), "-1");
  EXPECT_EQ(Sub("0", "-1"), "1");
  EXPECT_EQ(Sub("1", "0"), "1");
  EXPECT_EQ(Sub("-1", "-1"), "0");
  EXPECT_EQ(Sub("1000", "0.001"), "999.999");
  EXPECT_EQ(Sub("-1000", "0.001"), "-1000.001");
  EXPECT_EQ(Sub("100000000000000000000000000000000000000", "1"),
            "99999999999999999999999999999999999999");
}

TEST(AddNumbers, MatchesInt64) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(-1'000'000'000'000'000, 1'000'000'000'000'000);
  std::uniform_int_distribution<int> scale(0, 12);
  for (int i = 0; i < 2000; ++i) {
    const int64_t a = dist(rng) >> scale(rng);
    const int64_t b = dist(rng) >> scale(rng);
    EXPECT_EQ(Add(std::to_string(a), std::to_string(b)), std::to_string(a + b));
    EXPECT_EQ(Sub(std::to_string(a), std::to_string(b)), std::to_string(a - b));
    // The same with a decimal exponent shift: a*10^-k + b*10^-k.
    const int k = scale(rng);
    const std::string sa = Norm(std::to_string(a) + "e-" + std::to_string(k));
    const std::string sb = Norm(std::to_string(b) + "e-" + std::to_string(k));
    EXPECT_EQ(Add(sa, sb), Norm(std::to_string(a + b) + "e-" + std::to_string(k)));
  }
}

// A random normalised number: random sign, 1..38 digits, exponent within range. With
// "clustered", short mantissas and small exponents make ties and prefixes common.
std::string RandomNumber(std::mt19937_64& rng, bool clustered) {
  std::uniform_int_distribution<int> coin(0, 1);
  std::uniform_int_distribution<int> digit(0, 9);
  if (std::uniform_int_distribution<int>(0, 30)(rng) == 0) return "0";
  const int count = std::uniform_int_distribution<int>(1, clustered ? 4 : 38)(rng);
  std::string digits;
  for (int i = 0; i < count; ++i) digits.push_back(static_cast<char>('0' + digit(rng)));
  digits[0] = static_cast<char>('1' + digit(rng) % 9);
  // Value 0.<digits> x 10^e, e in [-129, 126].
  const int e = clustered ? std::uniform_int_distribution<int>(-2, 3)(rng)
                          : std::uniform_int_distribution<int>(-129, 126)(rng);
  std::string text = (coin(rng) ? "-0." : "0.") + digits + "e" + std::to_string(e);
  Result<std::string> r = NormalizeNumber(text);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? r.value() : "0";
}

TEST(NumberKey, PropertyOrderAndRoundTrip) {
  std::mt19937_64 rng(20240601);
  std::vector<std::string> numbers;
  for (int i = 0; i < 4000; ++i) numbers.push_back(RandomNumber(rng, i % 2 == 0));
  numbers.push_back(Norm("1e-130"));
  numbers.push_back(Norm("-1e-130"));
  numbers.push_back(Norm("9." + std::string(37, '9') + "e125"));
  numbers.push_back(Norm("-9." + std::string(37, '9') + "e125"));

  std::vector<std::string> keys;
  for (const std::string& n : numbers) {
    EXPECT_EQ(Norm(n), n);  // Normalised text is a fixed point.
    keys.push_back(Key(n));
    // Round trip, alone and followed by other bytes.
    for (const std::string& suffix : {std::string(), std::string("\x00\xFFtail", 6)}) {
      const std::string buffer = keys.back() + suffix;
      std::string_view in = buffer;
      std::string decoded;
      ASSERT_TRUE(ConsumeNumberKey(&in, &decoded)) << n;
      EXPECT_EQ(decoded, n);
      EXPECT_EQ(in, suffix) << n;
    }
  }

  std::uniform_int_distribution<size_t> pick(0, numbers.size() - 1);
  for (int i = 0; i < 20000; ++i) {
    const size_t x = pick(rng);
    const size_t y = pick(rng);
    const int by_value = Sign(CompareNumbers(numbers[x], numbers[y]));
    const int by_key = Sign(keys[x].compare(keys[y]));
    ASSERT_EQ(by_value, by_key) << numbers[x] << " vs " << numbers[y];
    EXPECT_EQ(Sign(CompareNumbers(numbers[y], numbers[x])), -by_value);
    EXPECT_EQ(by_value == 0, numbers[x] == numbers[y]);
    // Cross-check against exact subtraction where the difference is representable.
    Result<std::string> diff = SubtractNumbers(numbers[x], numbers[y]);
    if (diff.ok()) {
      EXPECT_EQ(Sign(CompareNumbers(diff.value(), "0")), by_value)
          << numbers[x] << " - " << numbers[y] << " = " << diff.value();
    }
  }

  // Sorting by key and by value gives the same sequence.
  std::vector<size_t> by_key(numbers.size());
  for (size_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
  std::vector<size_t> by_value = by_key;
  std::sort(by_key.begin(), by_key.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::sort(by_value.begin(), by_value.end(),
            [&](size_t a, size_t b) { return CompareNumbers(numbers[a], numbers[b]) < 0; });
  for (size_t i = 0; i < numbers.size(); ++i) {
    ASSERT_EQ(numbers[by_key[i]], numbers[by_value[i]]) << i;
  }
}

}  // namespace
}  // namespace ddb
