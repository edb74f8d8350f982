#pragma once
// What `keal deploy` checks around the install, so that its failures and
// surprises say what happened: whether the user may create LANGUAGE C
// functions at all, which directory keeps the server from reading the
// library, and which exported functions PostgreSQL's own pg_catalog
// functions shadow.

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace keal::driver {

// Empty when the database user may create LANGUAGE C functions (a
// superuser, or a role allowed to use a language C made trusted); else the
// error to print. A failed query gives its own error text.
std::string c_language_problem(const std::string& url);

// After the server failed to read `library` (its error text `server_error`):
// the advice naming the directory (or the file) that keeps other users
// out, and what to do. Empty when the error is not about reading the file
// or nothing on the path blocks others.
std::string unreachable_hint(const std::string& library, const std::string& server_error);

// One warning per exported function whose name and argument types are those
// of a pg_catalog function: PostgreSQL searches pg_catalog first, so an
// unqualified call reaches the built-in, not the Keal function.
std::vector<std::string> shadowed_exports(const ir::Module& module, const std::string& url, std::string& error);

}  // namespace keal::driver
