#pragma once
// Diagnostics in clang's shape: `file:line:col: error: message`, the source
// line, a caret under the span, then notes.

#include <cstddef>
#include <string>
#include <vector>

#include "syntax/source.hpp"

namespace keal {

struct Note {
  Span span;
  std::string message;
};

struct Diagnostic {
  Span span;
  std::string message;
  std::vector<Note> notes;
};

class Diagnostics {
 public:
  // Beyond this many errors the rest are counted but not kept: one broken
  // construct must not bury the first useful message.
  static constexpr std::size_t max_errors = 50;

  explicit Diagnostics(const SourceFile& source) : source_(&source) {}

  // Returns the diagnostic so a caller can attach notes (or a scratch one when
  // the limit is reached).
  Diagnostic& error(Span span, std::string message);

  bool has_errors() const { return count_ > 0; }
  std::size_t error_count() const { return count_; }
  const std::vector<Diagnostic>& all() const { return kept_; }
  const SourceFile& source() const { return *source_; }

  std::string render() const;

 private:
  const SourceFile* source_;
  std::vector<Diagnostic> kept_;
  Diagnostic overflow_;
  std::size_t count_ = 0;
};

// Renders one located message (used for errors and notes alike).
std::string render_located(const SourceFile& source, Span span, const char* severity, const std::string& message);

}  // namespace keal
