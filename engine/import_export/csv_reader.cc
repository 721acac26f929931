#include "engine/import_export/csv_reader.h"

#include "ddb/number.h"
#include "util/base64.h"

namespace ddb {

ParseOutcome SplitCsvRecord(std::string_view record, char delimiter,
                            std::vector<std::string>* fields, std::string* error) {
  fields->clear();
  error->clear();
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  if (record.find_first_not_of(" \t\r\n") == std::string_view::npos) return ParseOutcome::kNothing;
  std::string field;
  size_t i = 0;
  while (true) {
    field.clear();
    if (i < record.size() && record[i] == '"') {
      ++i;
      while (true) {
        if (i >= record.size()) return ParseOutcome::kIncomplete;
        char c = record[i++];
        if (c == '"') {
          if (i < record.size() && record[i] == '"') {
            field.push_back('"');
            ++i;
            continue;
          }
          break;
        }
        field.push_back(c);
      }
      if (i < record.size() && record[i] != delimiter) {
        *error = "Unexpected character after a quoted field at offset " + std::to_string(i);
        return ParseOutcome::kError;
      }
    } else {
      size_t end = record.find(delimiter, i);
      if (end == std::string_view::npos) end = record.size();
      field.assign(record.substr(i, end - i));
      i = end;
    }
    fields->push_back(field);
    if (i >= record.size()) break;
    ++i;  // the delimiter
    if (i == record.size()) {
      fields->emplace_back();  // a trailing delimiter: one more, empty, field
      break;
    }
  }
  return ParseOutcome::kItem;
}

ParseOutcome CsvItem(const std::vector<std::string>& header, const std::vector<std::string>& fields,
                     const std::map<std::string, ScalarType>& key_types, Item* item,
                     std::string* error) {
  item->clear();
  if (fields.size() != header.size()) {
    *error = "The record has " + std::to_string(fields.size()) + " fields, the header " +
             std::to_string(header.size());
    return ParseOutcome::kError;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& name = header[i];
    const std::string& text = fields[i];
    auto key = key_types.find(name);
    if (key == key_types.end()) {
      if (!text.empty()) item->emplace(name, AttributeValue::S(text));
      continue;
    }
    switch (key->second) {
      case ScalarType::kS:
        item->emplace(name, AttributeValue::S(text));
        break;
      case ScalarType::kN: {
        Result<std::string> n = NormalizeNumber(text);
        if (!n.ok()) {
          *error = n.error().message();
          return ParseOutcome::kError;
        }
        item->emplace(name, AttributeValue::N(std::move(n).value()));
        break;
      }
      case ScalarType::kB: {
        std::string bytes;
        if (!util::DecodeBase64(text, &bytes)) {
          *error = "Invalid base64 for binary key attribute " + name;
          return ParseOutcome::kError;
        }
        item->emplace(name, AttributeValue::B(std::move(bytes)));
        break;
      }
    }
  }
  return ParseOutcome::kItem;
}

}  // namespace ddb
