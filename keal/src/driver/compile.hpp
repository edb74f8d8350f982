#pragma once
// The front-to-back pipeline without the C compiler: source text to
// diagnostics, typed IR and C.

#include <optional>
#include <string>

#include "check/checker.hpp"
#include "emit/c_emitter.hpp"
#include "ir/ir.hpp"

namespace keal::driver {

struct Compiled {
  bool ok = false;
  std::string diagnostics;  // rendered, empty when ok
  std::size_t error_count = 0;
  ir::Module module;
};

// `display_name` is the path as the user gave it (diagnostics show it); the
// generated code reports runtime errors with its last component.
Compiled compile_source(const std::string& display_name, std::string text, check::Target target);

// Reads a source file; on failure returns nullopt and sets `error`.
std::optional<std::string> read_source(const std::string& path, std::string& error);

std::string base_name(const std::string& path);
std::string stem(const std::string& path);

}  // namespace keal::driver
