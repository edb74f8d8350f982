#include "check/sql_rules.hpp"

#include "check/types.hpp"

namespace keal::check {

const KnownSqlFunction* known_sql_function(std::string_view name) {
  static const KnownSqlFunction known[] = {
      {"translate", kText, true}, {"md5", kText, true},     {"lower", kText, true},   {"upper", kText, true},
      {"initcap", kText, true},   {"btrim", kText, true},   {"ltrim", kText, true},   {"rtrim", kText, true},
      {"replace", kText, true},   {"reverse", kText, true}, {"length", kInt, true},   {"strpos", kInt, true},
      {"abs", kInt, true},        {"sqrt", kFloat, true},   {"power", kFloat, true},  {"random", kFloat, false},
      {"sha256", kBytes, true},   {"concat", kText, false}, {"quote_literal", kText, true},
      {"quote_ident", kText, true}, {"to_hex", kText, true}, {"char_length", kInt, true},
  };
  for (const KnownSqlFunction& k : known) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string sql_signature(const std::string& name, const std::vector<ir::Type>& args) {
  std::string s = name + "(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? "," : "") + ir::sql_type(args[i]);
  return s + ")";
}

int intern_sql_site(std::vector<ir::SqlSite>& sites, ir::SqlSite site) {
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].signature == site.signature && sites[i].result == site.result) return static_cast<int>(i);
  }
  sites.push_back(std::move(site));
  return static_cast<int>(sites.size() - 1);
}

}  // namespace keal::check
