// RecordBoundary: whether a record of an import that spans lines may have ended, read line by
// line in the format's own terms (brackets, strings, comments), so that the importer parses a
// joined record once when it can be whole instead of again at every line: a record of many
// short lines cost time quadratic in its length (400 MB of one-number lines ran for good;
// found by a black-box probe).
// Thread safety: one per import job.
#pragma once

#include <cstdint>
#include <string_view>

#include "ddb/import_export.h"

namespace ddb {

class RecordBoundary {
 public:
  explicit RecordBoundary(InputFormat format) : format_(format) {}

  // Starts a record.
  void Reset() { *this = RecordBoundary(format_); }
  // Reads the next part of the record (a line, or the line break before one).
  void Feed(std::string_view text);
  // Whether the record read so far is inside a value: it cannot have ended.
  bool Open() const { return depth_ > 0 || state_ != State::kCode; }

 private:
  enum class State : uint8_t {
    kCode,
    kString,        // "..."
    kSymbol,        // Ion '...'
    kLongString,    // Ion '''...'''
    kLineComment,   // Ion // to the end of the line
    kBlockComment,  // Ion /* ... */
  };

  InputFormat format_;
  State state_ = State::kCode;
  bool escape_ = false;
  int64_t depth_ = 0;
  // Ion: the quotes (or '*', '/') just read, for ''' and comment delimiters.
  int quotes_ = 0;
  char previous_ = 0;
};

}  // namespace ddb
