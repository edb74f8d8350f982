#pragma once
// The checker: names, types, nullability, definite return, assignment to
// `let`, unreachable code — and, for a program that passes, its typed IR.

#include "ir/ir.hpp"
#include "syntax/ast.hpp"
#include "syntax/diagnostics.hpp"

namespace keal::check {

// Target-specific rules (print is native only, sql.* is PostgreSQL only,
// a native program needs `export fn main()`) apply only when a target is given.
// Sqlite and Mariadb (a loadable extension, a UDF library) are function
// targets like Pg, without sql.* and embedded SQL: those are PostgreSQL's.
enum class Target : std::uint8_t { Any, Pg, Native, Sqlite, Mariadb };

struct Options {
  Target target = Target::Any;
};

// Always returns a module; it is meaningful only when no error was reported.
ir::Module check(const ast::Module& module, const SourceFile& source, Diagnostics& diags, Options options = {});

}  // namespace keal::check
