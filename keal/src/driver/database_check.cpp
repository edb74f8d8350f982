#include "driver/database_check.hpp"

#include "sluice/postgres/connection.hpp"

namespace keal::driver {

namespace pg = sluice::postgres;

namespace {

pg::Oid param_oid(ir::Base b) {
  switch (b) {
    case ir::Base::Int: return pg::type_oid::int8;
    case ir::Base::Float: return pg::type_oid::float8;
    case ir::Base::Bool: return pg::type_oid::boolean;
    case ir::Base::Bytes: return pg::type_oid::bytea;
    default: return pg::type_oid::text;
  }
}

// The Keal type family that reads a column of this type (the run-time rule,
// keal_pg_sql.h), "-" for none.
std::string kind_of(pg::Oid t) {
  using namespace pg::type_oid;
  if (t == int8 || t == int4 || t == int2) return "int";
  if (t == float8 || t == float4) return "float";
  if (t == boolean) return "bool";
  if (t == bytea) return "bytes";
  if (t == text || t == varchar || t == bpchar || t == name) return "text";
  return "-";
}

DescribedColumn describe_column(pg::Connection& conn, const pg::Column& c) {
  DescribedColumn out;
  out.name = c.name;
  out.kind = kind_of(c.type);
  out.sql_type = conn.query("select format_type($1::oid, null)", {static_cast<long long>(c.type)}).row(0).get<std::string>(0);
  out.nullable = "trusted";
  if (c.table != 0) {
    const pg::Result r = conn.query(
        "select not attnotnull, attrelid::regclass::text || '.' || quote_ident(attname) from pg_attribute "
        "where attrelid = $1::oid and attnum = $2",
        {static_cast<long long>(c.table), c.table_column});
    if (!r.empty()) {
      out.nullable = r.row(0).get<std::string>(0) == "t" ? "yes" : "no";
      out.table_column = r.row(0).get<std::string>(1);
    }
  }
  return out;
}

// Throws pg::Error when the database cannot be reached or the connection is lost.
std::vector<Description> describe_each(const ir::Module& module, const std::string& url) {
  std::vector<Description> out;
  if (module.query_sites.empty()) return out;
  pg::Connection conn = pg::Connection::from_environment(url);
  conn.set_notice_handler({});
  for (const ir::QuerySite& q : module.query_sites) {
    Description d;
    d.sql = q.sql;
    d.params = params_key(q);
    std::vector<pg::Oid> types;
    for (const ir::Type& t : q.params) types.push_back(param_oid(t.base));
    try {
      const pg::Statement s = conn.describe(q.sql, types);
      for (const pg::Column& c : s.columns()) d.columns.push_back(describe_column(conn, c));
    } catch (const pg::Error& e) {
      if (e.kind() != pg::ErrorKind::server) throw;
      d.rejected = true;
      d.sqlstate = e.sqlstate();
      d.position = e.diagnostics().position;
      d.message = e.server_message();
      d.hint = e.diagnostics().hint;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::optional<std::vector<Description>> describe_statements(const ir::Module& module, const std::string& url,
                                                            std::string& error) {
  // The driver's one style (compile.hpp): a failure is a value and a
  // message, not an exception leaving the driver.
  try {
    return describe_each(module, url);
  } catch (const pg::Error& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::optional<DatabaseCheck> check_against_database(const std::string& display_name, const std::string& text,
                                                    const ir::Module& module, const std::string& url,
                                                    std::string& error) {
  const std::optional<std::vector<Description>> described = describe_statements(module, url, error);
  if (!described) return std::nullopt;
  std::size_t next = 0;  // one description per site, in order
  return compare_with_descriptions(
      display_name, text, module, [&](const ir::QuerySite&) { return &(*described)[next++]; }, "");
}

DatabaseCheck check_against_schema(const std::string& display_name, const std::string& text, const ir::Module& module,
                                   const std::vector<Description>& saved, const std::string& schema_file) {
  const auto lookup = [&](const ir::QuerySite& q) -> const Description* {
    const std::string params = params_key(q);
    for (const Description& d : saved) {
      if (d.sql == q.sql && d.params == params) return &d;
    }
    return nullptr;
  };
  return compare_with_descriptions(display_name, text, module, lookup,
                                   schema_file + " is stale: describe the program again (keal describe FILE --db URL -o " +
                                       schema_file + ")");
}

}  // namespace keal::driver
