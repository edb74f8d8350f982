#include "emit/native_sql.hpp"

#include "emit/c_names.hpp"

namespace keal::emit {

namespace {

using ir::Base;
using ir::Expr;
using ir::Stmt;
using ir::Type;

const char* kind(Base b) {
  switch (b) {
    case Base::Int: return "KEAL_NSQL_INT";
    case Base::Float: return "KEAL_NSQL_FLOAT";
    case Base::Bool: return "KEAL_NSQL_BOOL";
    case Base::Char: return "KEAL_NSQL_CHAR";
    case Base::Bytes: return "KEAL_NSQL_BYTES";
    default: return "KEAL_NSQL_TEXT";
  }
}

// A keal_nsql_param initializer for the value `v` of scalar base `b`.
std::string param_value(Base b, const std::string& v, const std::string& char_buffer) {
  switch (b) {
    case Base::Int: return "(keal_nsql_param){0, " + v + ", 0.0, NULL, 0}";
    case Base::Bool: return "(keal_nsql_param){0, " + v + " ? 1 : 0, 0.0, NULL, 0}";
    case Base::Float: return "(keal_nsql_param){0, 0, " + v + ", NULL, 0}";
    case Base::Char: return "keal_nsql_char_param(" + v + ", " + char_buffer + ")";
    default: return "(keal_nsql_param){0, 0, 0.0, " + v + ".ptr, " + v + ".len}";
  }
}

std::string column_read(const Type& t, const std::string& target, int column, const std::string& line) {
  const std::string c = std::to_string(column);
  std::string read;
  switch (t.base) {
    case Base::Int: read = "keal_nsql_int(rows, " + c + ")"; break;
    case Base::Float: read = "keal_nsql_float(rows, " + c + ")"; break;
    case Base::Bool: read = "keal_nsql_bool(rows, " + c + ") != 0"; break;
    case Base::Char: read = "keal_nsql_char_at(rows, " + c + ", " + line + ")"; break;
    default: read = "keal_nsql_text_at(rows, " + c + ", copy)"; break;
  }
  if (t.nullable) {
    return "  " + target + ".is_null = keal_nsql_is_null(rows, " + c + ");\n  if (!" + target + ".is_null) " + target +
           ".v = " + read + ";\n";
  }
  // A non-null column: the reader itself fails with 22004 on NULL.
  return "  " + target + " = " + read + ";\n";
}

bool expr_runs_sql(const Expr& e, const ir::Module& m) {
  if (e.kind == Expr::Kind::Query || e.kind == Expr::Kind::Exec) return true;
  if (e.kind == Expr::Kind::Call && m.functions[static_cast<std::size_t>(e.func)].uses_spi) return true;
  for (const auto& a : e.args) {
    if (expr_runs_sql(*a, m)) return true;
  }
  return false;
}

}  // namespace

bool block_runs_sql(const ir::Block& block, const ir::Module& module) {
  for (const auto& st : block) {
    if ((st->a && expr_runs_sql(*st->a, module)) || (st->b && expr_runs_sql(*st->b, module))) return true;
    if (block_runs_sql(st->body, module) || block_runs_sql(st->else_body, module)) return true;
  }
  return false;
}

std::string native_query_site(const ir::QuerySite& q, std::size_t index, const std::string& source_name) {
  const std::string n = std::to_string(index);
  const std::string line = std::to_string(q.line);
  const std::size_t k = q.params.size();
  const bool rows = q.form != ir::QuerySite::Form::Exec;
  std::string out = "\n/* " + source_name + ":" + line + " */\n";
  out += "static const unsigned char keal_q_pkinds_" + n + "[] = {";
  for (std::size_t p = 0; p < k; ++p) out += std::string(p ? ", " : "") + kind(q.params[p].base);
  out += std::string(k == 0 ? "0" : "") + "};\n";
  out += "static const unsigned char keal_q_ckinds_" + n + "[] = {";
  for (std::size_t c = 0; rows && c < q.columns.size(); ++c) out += std::string(c ? ", " : "") + kind(q.columns[c].type.base);
  out += std::string(rows ? "" : "0") + "};\n";
  out += "static const char *const keal_q_cnames_" + n + "[] = {";
  for (std::size_t c = 0; rows && c < q.columns.size(); ++c)
    out += (c ? ", " : "") + c_string(q.single_value ? std::string("value") : q.columns[c].name);
  out += std::string(rows ? "" : "\"\"") + "};\n";
  out += "static const keal_nsql_site keal_q_site_" + n + " = {" + n + ", " + line + ", " + c_string(q.sql) + ", " +
         std::to_string(k) + ", keal_q_pkinds_" + n + ", " + std::to_string(rows ? q.columns.size() : 0) + ", keal_q_ckinds_" +
         n + ", keal_q_cnames_" + n + ", " + (q.may_write ? "1" : "0") + "};\n";

  // The parameters: one C argument per $n, bound as keal_nsql_params.
  std::string params;
  std::string bind = "  keal_nsql_param params[" + std::to_string(k == 0 ? 1 : k) + "];\n";
  for (std::size_t p = 0; p < k; ++p) {
    const std::string v = "p" + std::to_string(p);
    const std::string at = "params[" + std::to_string(p) + "]";
    const Base b = q.params[p].base;
    const std::string buffer = "cbuf" + std::to_string(p);
    params += (p ? ", " : "") + c_type(q.params[p]) + " " + v;
    if (b == Base::Char) bind += "  char " + buffer + "[4];\n";
    if (q.params[p].nullable) {
      bind += "  " + at + " = " + v + ".is_null ? (keal_nsql_param){1, 0, 0.0, NULL, 0} : " + param_value(b, v + ".v", buffer) +
              ";\n";
    } else {
      bind += "  " + at + " = " + param_value(b, v, buffer) + ";\n";
    }
  }
  if (k == 0) bind += "  params[0] = (keal_nsql_param){0, 0, 0.0, NULL, 0};\n";

  if (!rows) {
    out += "static void keal_q_exec_" + n + "(" + (params.empty() ? "void" : params) + ") {\n" + bind;
    out += "  keal_nsql_exec(&keal_q_site_" + n + ", params);\n}\n";
    return out;
  }
  const std::string value_type = q.single_value ? c_type(q.columns[0].type) : record_c_name(ir::Record{q.columns});
  out += "static " + value_type + " keal_q_row_" + n + "(const keal_nsql_rows *rows, int copy) {\n";
  out += "  " + value_type + " r;\n  (void)copy;\n";
  for (std::size_t c = 0; c < q.columns.size(); ++c) {
    out += column_read(q.columns[c].type, q.single_value ? std::string("r") : "r.f" + std::to_string(c), static_cast<int>(c), line);
  }
  out += "  return r;\n}\n";
  if (q.form == ir::QuerySite::Form::One) {
    out += "static " + value_type + " keal_q_one_" + n + "(" + (params.empty() ? "void" : params) + ") {\n" + bind;
    out += "  keal_nsql_rows *rows = keal_nsql_one(&keal_q_site_" + n + ", params);\n";
    out += "  " + value_type + " v = keal_q_row_" + n + "(rows, 1);\n";
    out += "  keal_nsql_close(rows);\n  return v;\n}\n";
  } else {
    out += "static keal_nsql_rows *keal_q_open_" + n + "(" + params + (params.empty() ? "" : ", ") + "int cursor) {\n" + bind;
    out += "  return keal_nsql_open(&keal_q_site_" + n + ", params, cursor);\n}\n";
  }
  return out;
}

}  // namespace keal::emit
