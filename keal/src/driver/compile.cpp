#include "driver/compile.hpp"

#include <fstream>
#include <sstream>

#include "syntax/parser.hpp"

namespace keal::driver {

std::string base_name(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string stem(const std::string& path) {
  std::string base = base_name(path);
  std::size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

std::optional<std::string> read_source(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  std::string text = buffer.str();
  if (text.size() > SourceFile::max_size) {
    error = "'" + path + "' is larger than " + std::to_string(SourceFile::max_size >> 20) + " MiB";
    return std::nullopt;
  }
  return text;
}

Compiled compile_source(const std::string& display_name, std::string text, check::Target target) {
  Compiled out;
  if (text.size() > SourceFile::max_size) {
    out.diagnostics = display_name + ": error: source is larger than " + std::to_string(SourceFile::max_size >> 20) + " MiB\n";
    out.error_count = 1;
    return out;
  }
  SourceFile source(display_name, std::move(text));
  Diagnostics diags(source);
  ast::Module tree = parse_source(source, diags);
  // The parser recovers per statement and per function; the checker skips
  // the bodies that had syntax errors (their type errors would be noise) and
  // checks every other function, so one syntax error hides no type error.
  out.module = check::check(tree, source, diags, check::Options{target});
  out.module.source_name = base_name(display_name);
  out.ok = !diags.has_errors();
  out.error_count = diags.error_count();
  out.diagnostics = diags.render();
  return out;
}

}  // namespace keal::driver
