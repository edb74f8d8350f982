#pragma once
// The front-to-back pipeline without the C compiler: source text to
// diagnostics, typed IR and C.
//
// ERRORS: one style for the whole driver (keal/src/driver). A function that
// can fail for a reason outside the program (a file that does not read, a
// database that cannot be reached, a C compiler that fails, a malformed
// descriptions file) returns its result as an optional, a bool or an empty
// string, and sets its `error` argument to a message naming what and where;
// it does not throw for it (a library's exception, sluice::postgres::Error
// or sluice::mariadb::Error, is caught inside and becomes that message). The
// checker's findings are diagnostics, not errors. Only what no caller can
// handle (allocation, a file system that fails under us) is an exception,
// reported by the CLI's top-level handler (docs/errors.md).

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
