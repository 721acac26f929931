#include "engine/import_export/record_boundary.h"

namespace ddb {

void RecordBoundary::Feed(std::string_view text) {
  if (format_ == InputFormat::kCsv) {
    // A quoted field ("" inside it is a quote) is the only thing that spans lines.
    for (char c : text) {
      if (c == '"') state_ = state_ == State::kCode ? State::kString : State::kCode;
    }
    return;
  }
  const bool ion = format_ == InputFormat::kIon;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char before = previous_;
    previous_ = c;
    switch (state_) {
      case State::kString:
      case State::kSymbol:
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == (state_ == State::kString ? '"' : '\'')) {
          state_ = State::kCode;
        }
        continue;
      case State::kLongString:
        if (escape_) {
          escape_ = false;
          quotes_ = 0;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '\'') {
          if (++quotes_ == 3) {
            state_ = State::kCode;
            quotes_ = 0;
          }
        } else {
          quotes_ = 0;
        }
        continue;
      case State::kLineComment:
        if (c == '\n') state_ = State::kCode;
        continue;
      case State::kBlockComment:
        if (before == '*' && c == '/') {
          state_ = State::kCode;
          previous_ = 0;
        }
        continue;
      case State::kCode:
        break;
    }
    if (c == '"') {
      state_ = State::kString;
    } else if (ion && c == '\'') {
      // ''' opens a long string; a lone ' a quoted symbol.
      if (i + 2 < text.size() && text[i + 1] == '\'' && text[i + 2] == '\'') {
        state_ = State::kLongString;
        quotes_ = 0;
        i += 2;
      } else {
        state_ = State::kSymbol;
      }
    } else if (ion && before == '/' && c == '/') {
      state_ = State::kLineComment;
    } else if (ion && before == '/' && c == '*') {
      state_ = State::kBlockComment;
      previous_ = 0;
    } else if (c == '{' || c == '[' || (ion && c == '(')) {
      ++depth_;
    } else if (c == '}' || c == ']' || (ion && c == ')')) {
      --depth_;
    }
  }
}

}  // namespace ddb
