// Random items of every type and nesting, for tests that compare two ways of doing one thing
// (codec walk vs decode, JSON from stored vs decoded form). Test-only; header-only.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"

namespace ddb::testing {

class RandomItems {
 public:
  explicit RandomItems(uint32_t seed) : rng_(seed) {}

  Item Next() {
    Item item;
    const int n = Uniform(0, 8);
    for (int i = 0; i < n; ++i) item.emplace(Name(), Value(0));
    return item;
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string Bytes(int max) {
    std::string s(static_cast<size_t>(Uniform(0, max)), '\0');
    for (char& c : s) c = static_cast<char>(Uniform(0, 255));
    return s;
  }
  // Printable text with the characters JSON must escape mixed in, and some UTF-8.
  std::string Text(int max) {
    static const std::vector<std::string> kPieces = {"a",  "Z",    "0",    " ", "\"",       "\\",
                                                     "\n", "\x01", "\x1f", "/", "\xc3\xa9", "#"};
    std::string s;
    const int n = Uniform(0, max);
    for (int i = 0; i < n; ++i) s += kPieces[static_cast<size_t>(Uniform(0, 11))];
    return s;
  }
  std::string Name() { return "a" + Text(6); }
  std::string Number() {
    static const std::vector<std::string> kNumbers = {"0",
                                                      "1",
                                                      "-1",
                                                      "12.5",
                                                      "-0.001",
                                                      "100",
                                                      "123456789012345678901234567890123456789",
                                                      "1E+125",
                                                      "9.9E-130",
                                                      "42"};
    return kNumbers[static_cast<size_t>(Uniform(0, 9))];
  }

  AttributeValue Value(int depth) {
    const int kind = Uniform(0, depth >= 3 ? 8 : 10);
    switch (kind) {
      case 0:
        return AttributeValue::S(Text(20));
      case 1:
        return AttributeValue::N(Number());
      case 2:
        return AttributeValue::B(Bytes(12));
      case 3:
        return AttributeValue::Bool(Uniform(0, 1) == 1);
      case 4:
        return AttributeValue::Null();
      case 5:
        return AttributeValue::SS({"a" + Text(5), "b" + Text(5)});
      case 6:
        return AttributeValue::NS({"-3", "7.25"});
      case 7:
        return AttributeValue::BS({std::string("\0", 1), Bytes(4) + "x"});
      case 8:
        return AttributeValue::S("");
      case 9: {
        std::vector<AttributeValue> list;
        const int n = Uniform(0, 4);
        for (int i = 0; i < n; ++i) list.push_back(Value(depth + 1));
        return AttributeValue::L(std::move(list));
      }
      default: {
        AttributeMap map;
        const int n = Uniform(0, 4);
        for (int i = 0; i < n; ++i) map.emplace(Name(), Value(depth + 1));
        return AttributeValue::M(std::move(map));
      }
    }
  }

  std::mt19937 rng_;
};

}  // namespace ddb::testing
