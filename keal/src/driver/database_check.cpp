#include "driver/database_check.hpp"

#include "sluice/postgres/connection.hpp"
#include "syntax/diagnostics.hpp"
#include "syntax/source.hpp"

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

// The same rule as the run-time check (keal_pg_sql.h).
bool column_fits(ir::Base declared, pg::Oid actual) {
  using namespace pg::type_oid;
  switch (declared) {
    case ir::Base::Int: return actual == int8 || actual == int4 || actual == int2;
    case ir::Base::Float: return actual == float8 || actual == float4;
    case ir::Base::Bool: return actual == boolean;
    case ir::Base::Bytes: return actual == bytea;
    case ir::Base::Text:
    case ir::Base::Char: return actual == text || actual == varchar || actual == bpchar || actual == name;
    default: return false;
  }
}

class Checker {
 public:
  Checker(const SourceFile& source, pg::Connection& conn) : source_(source), conn_(conn) {}

  void site(const ir::QuerySite& q) {
    const Span at{q.sql_begin, q.sql_end};
    std::vector<pg::Oid> types;
    for (const ir::Type& t : q.params) types.push_back(param_oid(t.base));
    pg::Statement described = [&]() -> pg::Statement {
      try {
        return conn_.describe(q.sql, types);
      } catch (const pg::Error& e) {
        if (e.kind() != pg::ErrorKind::server) throw;
        error(position_in_literal(q, at, e.diagnostics().position),
              "the database rejects this statement: " + e.server_message() + " [" + e.sqlstate() + "]" +
                  (e.diagnostics().hint.empty() ? "" : "; " + e.diagnostics().hint));
        throw Skipped{};
      }
    }();
    if (q.form == ir::QuerySite::Form::Exec) return;
    const std::vector<pg::Column>& columns = described.columns();
    if (columns.size() != q.columns.size()) {
      error(at, "the statement returns " + std::to_string(columns.size()) + " column" + (columns.size() == 1 ? "" : "s") +
                    " but " + std::to_string(q.columns.size()) + (q.columns.size() == 1 ? " is" : " are") + " declared");
      return;
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const ir::Field& want = q.columns[i];
      const pg::Column& got = columns[i];
      const std::string name = q.single_value ? "the value" : "column '" + want.name + "'";
      if (!column_fits(want.type.base, got.type)) {
        error(at, name + " is " + sql_type_name(got.type) + " in the database (\"" + got.name + "\"), but it is declared " +
                      ir::to_string(want.type));
        continue;
      }
      if (!want.type.nullable && got.table != 0 && may_be_null(got)) {
        warning(at, name + " may be NULL in the database (" + table_column(got) + " has no NOT NULL), but it is declared " +
                        ir::to_string(want.type) + "; a NULL fails at run time with SQLSTATE 22004 (declare it " +
                        ir::to_string(want.type) + "? to accept NULL)");
      }
    }
  }

  struct Skipped {};

  DatabaseCheck result() const { return out_; }

 private:
  void error(Span span, const std::string& message) {
    ++out_.errors;
    out_.rendered += render_located(source_, span, "error", message);
  }
  void warning(Span span, const std::string& message) {
    ++out_.warnings;
    out_.rendered += render_located(source_, span, "warning", message);
  }

  // The server's 1-based character position inside the statement, as a span
  // inside the string literal when the literal spells the statement as is
  // (no escapes); else the whole literal.
  Span position_in_literal(const ir::QuerySite& q, Span literal, int position) const {
    const std::string_view src = source_.text();
    if (position <= 0 || literal.end < literal.begin + 2 || literal.end > src.size()) return literal;
    const std::string_view inside = src.substr(literal.begin + 1, literal.end - literal.begin - 2);
    if (inside != q.sql) return literal;
    std::size_t byte = 0;
    for (int chars = 1; chars < position && byte < inside.size(); ++chars) {
      ++byte;
      while (byte < inside.size() && (static_cast<unsigned char>(inside[byte]) & 0xC0) == 0x80) ++byte;
    }
    const auto begin = static_cast<std::uint32_t>(literal.begin + 1 + byte);
    return {begin, begin + 1};
  }

  std::string sql_type_name(pg::Oid type) {
    const pg::Result r = conn_.query("select format_type($1::oid, null)", {static_cast<long long>(type)});
    return r.row(0).get<std::string>(0);
  }

  bool may_be_null(const pg::Column& c) {
    const pg::Result r = conn_.query("select not attnotnull from pg_attribute where attrelid = $1::oid and attnum = $2",
                                     {static_cast<long long>(c.table), c.table_column});
    return r.empty() || r.row(0).get<std::string>(0) == "t";
  }

  std::string table_column(const pg::Column& c) {
    const pg::Result r =
        conn_.query("select attrelid::regclass::text || '.' || quote_ident(attname) from pg_attribute "
                    "where attrelid = $1::oid and attnum = $2",
                    {static_cast<long long>(c.table), c.table_column});
    return r.empty() ? "the column" : r.row(0).get<std::string>(0);
  }

  const SourceFile& source_;
  pg::Connection& conn_;
  DatabaseCheck out_;
};

}  // namespace

DatabaseCheck check_against_database(const std::string& display_name, const std::string& text,
                                     const ir::Module& module, const std::string& url) {
  if (module.query_sites.empty()) return {};
  SourceFile source(display_name, text);
  pg::Connection conn = pg::Connection::from_environment(url);
  conn.set_notice_handler({});
  Checker checker(source, conn);
  for (const ir::QuerySite& q : module.query_sites) {
    try {
      checker.site(q);
    } catch (const Checker::Skipped&) {
      // Reported; the other statements are still checked.
    }
  }
  return checker.result();
}

}  // namespace keal::driver
