#pragma once
// One Keal source file and byte-offset spans into it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keal {

// Half-open byte range [begin, end) in the source text.
struct Span {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

struct LineCol {
  std::uint32_t line = 1;  // 1-based
  std::uint32_t col = 1;   // 1-based, in bytes (as clang counts)
};

class SourceFile {
 public:
  // Offsets are 32-bit: the driver rejects larger files before they get here.
  static constexpr std::size_t max_size = 16u << 20;

  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  LineCol line_col(std::uint32_t offset) const;
  std::string_view line_text(std::uint32_t line) const;  // without the newline

 private:
  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
};

}  // namespace keal
