// JsonWriter: a small streaming JSON writer for responses. It writes exactly what it is
// told (the caller keeps the structure well formed) and escapes strings per RFC 8259.
// Thread safety: one writer per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/enum_names.h"
#include "util/json_escape.h"

namespace ddb::protocol {

class JsonWriter {
 public:
  void BeginObject() {
    Sep();
    out_.push_back('{');
    first_ = true;
  }
  void EndObject() {
    out_.push_back('}');
    first_ = false;
  }
  void BeginArray() {
    Sep();
    out_.push_back('[');
    first_ = true;
  }
  void EndArray() {
    out_.push_back(']');
    first_ = false;
  }
  // An object member name; the next call writes its value.
  void Key(std::string_view key) {
    Sep();
    WriteString(key);
    out_.push_back(':');
    first_ = true;
  }
  void String(std::string_view s) {
    Sep();
    WriteString(s);
  }
  void Int(int64_t v);
  void Double(double v);
  // A number in its shortest exact form (capacity units: 1, 0.5, 12.5).
  void Number(double v);
  void Bool(bool b) {
    Sep();
    out_ += b ? "true" : "false";
  }
  void Null() {
    Sep();
    out_ += "null";
  }
  // A value already in JSON (REQUIRES: valid JSON, e.g. simdjson::minify's).
  void Raw(std::string_view json) {
    Sep();
    out_ += json;
  }

  // A member written only when it has a value (a response's optional members): Key(key),
  // then the value as String, Int, Double or the enum's wire name (EnumName).
  template <class T>
  void OptionalString(std::string_view key, const std::optional<T>& value) {
    if (!value) return;
    Key(key);
    String(*value);
  }
  template <class T>
  void OptionalInt(std::string_view key, const std::optional<T>& value) {
    if (!value) return;
    Key(key);
    Int(*value);
  }
  template <class T>
  void OptionalDouble(std::string_view key, const std::optional<T>& value) {
    if (!value) return;
    Key(key);
    Double(*value);
  }
  template <class Enum>
  void OptionalEnum(std::string_view key, const std::optional<Enum>& value) {
    if (!value) return;
    Key(key);
    String(EnumName(*value));
  }
  // A string member written only when it is not empty.
  void NonEmptyString(std::string_view key, std::string_view value) {
    if (value.empty()) return;
    Key(key);
    String(value);
  }

  // For a value of fixed shape that the caller assembles itself (AttributeValue's
  // {"S":"..."}): writes the separator and returns the buffer to append exactly one complete
  // JSON value to, e.g. with util::AppendJsonString.
  std::string& RawValue() {
    Sep();
    return out_;
  }
  // Reserves room for about `bytes` more bytes of output.
  void Reserve(size_t bytes) { out_.reserve(out_.size() + bytes); }
  std::string& str() { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Sep() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  void WriteString(std::string_view s) { util::AppendJsonString(&out_, s); }

  std::string out_;
  bool first_ = true;
};

}  // namespace ddb::protocol
