#include "syntax/diagnostics.hpp"

#include <algorithm>

namespace keal {

Diagnostic& Diagnostics::error(Span span, std::string message) {
  ++count_;
  if (kept_.size() >= max_errors) {
    overflow_ = Diagnostic{};
    return overflow_;
  }
  kept_.push_back(Diagnostic{span, std::move(message), {}});
  return kept_.back();
}

std::string render_located(const SourceFile& source, Span span, const char* severity, const std::string& message) {
  LineCol at = source.line_col(span.begin);
  std::string out = source.name() + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + severity +
                    ": " + message + "\n";
  std::string_view line = source.line_text(at.line);
  out.append(line);
  out += '\n';
  // The caret line copies tabs from the source so that it lines up, and counts
  // a multi-byte UTF-8 character as one column.
  std::size_t prefix = std::min<std::size_t>(at.col - 1, line.size());
  for (std::size_t i = 0; i < prefix; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    out += c == '\t' ? '\t' : ' ';
  }
  out += '^';
  std::size_t end_in_line = std::min<std::size_t>(span.end >= span.begin ? span.end - span.begin : 0, line.size() - prefix);
  for (std::size_t i = prefix + 1; i < prefix + end_in_line; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    out += '~';
  }
  out += '\n';
  return out;
}

std::string Diagnostics::render() const {
  std::string out;
  for (const Diagnostic& d : kept_) {
    out += render_located(*source_, d.span, "error", d.message);
    for (const Note& n : d.notes) out += render_located(*source_, n.span, "note", n.message);
  }
  if (count_ > kept_.size()) {
    out += source_->name() + ": error: too many errors (" + std::to_string(count_) + "); showing the first " +
           std::to_string(kept_.size()) + "\n";
  }
  return out;
}

}  // namespace keal
