#pragma once
// Calls of the server's own functions, `sql.name(args)`: which result types
// are known, the signature regprocedure resolves, and the call sites that
// share one cached lookup. Rules only; the checker reports the diagnostics.

#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"

namespace keal::check {

// A server function whose result type is known (others need `as T`).
struct KnownSqlFunction {
  std::string_view name;
  ir::Type result;
  bool immutable;
};

// The entry for `name`, or nullptr.
const KnownSqlFunction* known_sql_function(std::string_view name);

// At most this many arguments to a server function.
inline constexpr std::size_t kMaxSqlArgs = 8;

// "name(text,bigint)": what to_regprocedure resolves for these argument types.
std::string sql_signature(const std::string& name, const std::vector<ir::Type>& args);

// The index of the site with the same signature and result in `sites`,
// after adding `site` if there was none.
int intern_sql_site(std::vector<ir::SqlSite>& sites, ir::SqlSite site);

}  // namespace keal::check
