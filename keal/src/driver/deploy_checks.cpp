#include "driver/deploy_checks.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "driver/deploy.hpp"
#include "emit/sql_quote.hpp"

namespace keal::driver {

namespace fs = std::filesystem;
using emit::sql_literal;
using emit::sql_ident;

namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

std::string c_language_problem(const std::string& url) {
  // Untrusted languages (C is one) need a superuser; a language made
  // trusted needs USAGE on it.
  std::string error;
  auto rows = query_rows(url,
                         "SELECT current_user, r.rolsuper OR (l.lanpltrusted AND has_language_privilege(l.oid, 'USAGE')) "
                         "FROM pg_roles AS r, pg_language AS l WHERE r.rolname = current_user AND l.lanname = 'c'",
                         error);
  if (!rows) {
    while (!error.empty() && error.back() == '\n') error.pop_back();
    // A URL that does not connect is the first thing to fix; say only that.
    return error.rfind("cannot connect", 0) == 0 ? error : "cannot check the database user's rights: " + error;
  }
  if (rows->empty()) return {};  // no pg_language row for C: let the server say what is wrong
  const std::vector<std::string>& row = rows->front();
  if (row.at(1) == "t") return {};
  return "user '" + row.at(0) +
         "' may not create LANGUAGE C functions: that needs a superuser (or a role allowed to create C "
         "functions); connect --db as one, e.g. postgresql://postgres@HOST/DB";
}

std::string unreachable_hint(const std::string& library, const std::string& server_error) {
  if (server_error.find("ermission denied") == std::string::npos) return {};
  fs::path file(library);
  // From the root down: the first directory other users cannot enter.
  std::vector<fs::path> chain;
  for (fs::path p = file.parent_path(); !p.empty(); p = p.parent_path()) {
    chain.push_back(p);
    if (p == p.root_path()) break;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    struct stat st {};
    if (::stat(it->c_str(), &st) != 0 || (st.st_mode & S_IXOTH) != 0) continue;
    return "the server cannot read " + library + ": the directory " + it->string() + " (mode " +
           octal_mode(st.st_mode) +
           ") lets no other user in, and the server runs as another user. keal does not change the "
           "permissions of existing directories: pass --lib-dir a directory the server can reach (e.g. one "
           "under /tmp), or, if opening it is acceptable, run 'chmod o+x " + it->string() + "' yourself";
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & S_IROTH) == 0) {
    return "the server cannot read " + library + " (mode " + octal_mode(st.st_mode) +
           "): it runs as another user; pass --lib-dir a directory the server can read";
  }
  return {};
}

std::vector<std::string> shadowed_exports(const ir::Module& module, const std::string& url, std::string& error) {
  std::string candidates;
  for (const ir::Function& f : module.functions) {
    if (!f.exported) continue;
    std::string types;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      types += (i ? ", " : "") + ir::sql_type(f.locals[static_cast<std::size_t>(f.params[i])].type);
    }
    std::string signature = f.name + "(" + types + ")";
    candidates += (candidates.empty() ? "" : ", ") + std::string("(") + sql_literal(signature) + ", " +
                  sql_literal("pg_catalog." + sql_ident(f.name) + "(" + types + ")") + ")";
  }
  std::vector<std::string> warnings;
  if (candidates.empty()) return warnings;
  auto rows = query_rows(url,
                         "SELECT c.signature, current_schema() FROM (VALUES " + candidates +
                             ") AS c(signature, builtin) WHERE to_regprocedure(c.builtin) IS NOT NULL ORDER BY 1",
                         error);
  if (!rows) return warnings;
  for (const std::vector<std::string>& row : *rows) {
    const std::string& signature = row.at(0);
    const std::string name = signature.substr(0, signature.find('('));
    warnings.push_back(signature + " has the name and argument types of PostgreSQL's built-in pg_catalog." +
                       signature + ", which is found first: an unqualified " + name +
                       "(...) calls the built-in. Call " + row.at(1) + "." + name +
                       "(...), or rename the function");
  }
  return warnings;
}

}  // namespace keal::driver
