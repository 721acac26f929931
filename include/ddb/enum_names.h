// The wire names of the API's enums, in one table per enum (EnumNames<E>::kNames, indexed
// by the enumerator), read both ways: EnumName(e) and EnumFromName<E>(text).
// Thread safety: constants and pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// Specialised next to each enum: static constexpr std::string_view kNames[] = {...}.
template <typename E>
struct EnumNames;

template <typename E>
constexpr std::string_view EnumName(E e) {
  return EnumNames<E>::kNames[static_cast<size_t>(e)];
}

// The value named `name` exactly (names are case-sensitive, as on the wire), or nullopt.
template <typename E>
constexpr std::optional<E> EnumFromName(std::string_view name) {
  size_t i = 0;
  for (std::string_view n : EnumNames<E>::kNames) {
    if (n == name) return static_cast<E>(i);
    ++i;
  }
  return std::nullopt;
}

}  // namespace ddb

#pragma GCC visibility pop
