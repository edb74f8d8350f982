// SQLite's side of a rows function (emit/rows_functions.hpp): what
// runtime/keal_sqlite_rows.h's shared virtual-table module needs to know of
// one function: its schema (the columns, then the parameters as HIDDEN
// columns), a binder from the arguments into the generator's frame, a
// column reader of the current row, and its registration as an
// eponymous-only module named as the function. The generator itself is
// c_emitter.cpp's rows_function, the one PostgreSQL's entry point runs.
#include <string>

#include "emit/c_names.hpp"
#include "emit/entry_points.hpp"
#include "emit/rows_functions.hpp"
#include "emit/sql_quote.hpp"

namespace keal::emit {

namespace {

using ir::Base;

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }

// The declared type of a column: SQLite only keeps it as an affinity, but
// `PRAGMA table_xinfo(f)` and tools show it.
const char* declared_type(const ir::Type& t) {
  switch (t.base) {
    case Base::Int:
    case Base::Bool: return "INTEGER";
    case Base::Float: return "REAL";
    case Base::Bytes: return "BLOB";
    default: return "TEXT";
  }
}

std::string schema(const ir::Function& f) {
  std::string out = "CREATE TABLE x(";
  for (std::size_t i = 0; i < f.columns.size(); ++i)
    out += (i ? ", " : "") + sql_ident(f.columns[i].name) + " " + declared_type(f.columns[i].type);
  for (int p : f.params) {
    const ir::Local& l = f.locals[static_cast<std::size_t>(p)];
    out += ", " + sql_ident(l.name) + " " + declared_type(l.type) + " HIDDEN";
  }
  return out + ")";
}

std::string call_form(const ir::Function& f) {
  std::string out = f.name + "(";
  for (std::size_t i = 0; i < f.params.size(); ++i) out += (i ? ", " : "") + f.locals[static_cast<std::size_t>(f.params[i])].name;
  return out + ")";
}

std::string binder(const ir::Function& f, const std::string& prefix) {
  const std::string frame = rows_frame_c_name(f);
  std::string out = "\nstatic int " + prefix + "_bind(void *frame, sqlite3_value **argv) {\n";
  out += "  " + frame + " *fr = (" + frame + " *)frame;\n";
  if (f.params.empty()) out += "  (void)fr;\n  (void)argv;\n";
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    const std::string idx = std::to_string(i);
    const std::string field = "fr->" + p.c_name;
    // ctx NULL: a bad argument becomes the table's error (keal_sqlite_arg_vtab).
    out += "  int r" + idx + " = keal_sqlite_" + entry_reader(p.type.base) + "(NULL, argv[" + idx + "], &" +
           (p.type.nullable ? field + ".v" : field) + ", " + quoted(f.name) + ", " + idx + ", " + quoted(p.name) + ");\n";
    out += "  if (r" + idx + " < 0) return -1;\n";
    if (p.type.nullable) out += "  " + field + ".is_null = r" + idx + " == 0;\n";
    else out += "  if (r" + idx + " == 0) return 0; /* NULL for a non-nullable parameter: no rows, as STRICT */\n";
  }
  return out + "  return 1;\n}\n";
}

std::string column_reader(const ir::Function& f, const std::string& prefix) {
  const std::string frame = rows_frame_c_name(f);
  std::string out = "\nstatic void " + prefix + "_column(const void *frame, sqlite3_context *ctx, int i) {\n";
  out += "  const " + frame + " *fr = (const " + frame + " *)frame;\n  switch (i) {\n";
  for (std::size_t i = 0; i < f.columns.size(); ++i) {
    const ir::Type& t = f.columns[i].type;
    const std::string v = "fr->out.f" + std::to_string(i);
    out += "    case " + std::to_string(i) + ":\n      ";
    if (t.nullable) out += "if (" + v + ".is_null) sqlite3_result_null(ctx);\n      else " + sqlite_result_call(t, v + ".v") + ";\n";
    else out += sqlite_result_call(t, v) + ";\n";
    out += "      break;\n";
  }
  out += "    default: sqlite3_result_null(ctx); break;\n";
  return out + "  }\n}\n";
}

}  // namespace

std::string sqlite_rows_entry_points(const ir::Function& f) {
  const std::string prefix = "keal_sqlite_rows_" + f.name;
  const std::string frame = rows_frame_c_name(f);
  std::string out = binder(f, prefix);
  out += "\nstatic bool " + prefix + "_next(void *frame) { return kf_" + f.name + "((" + frame + " *)frame); }\n";
  out += column_reader(f, prefix);
  out += "\nstatic const char *const " + prefix + "_params[] = {";
  for (std::size_t i = 0; i < f.params.size(); ++i) out += (i ? ", " : "") + c_string(f.locals[static_cast<std::size_t>(f.params[i])].name);
  out += f.params.empty() ? "NULL};\n" : "};\n";
  out += "\nstatic const keal_sqlite_rows_info " + prefix + "_info = {\n";
  out += "    .name = " + c_string(f.name) + ",\n";
  out += "    .schema = " + c_string(schema(f)) + ",\n";
  out += "    .call_form = " + c_string(call_form(f)) + ",\n";
  out += "    .columns = " + std::to_string(f.columns.size()) + ",\n";
  out += "    .params = " + std::to_string(f.params.size()) + ",\n";
  out += "    .param_names = " + prefix + "_params,\n";
  out += "    .frame_size = sizeof(" + frame + "),\n";
  out += "    .bind = " + prefix + "_bind,\n";
  out += "    .next = " + prefix + "_next,\n";
  out += "    .column = " + prefix + "_column,\n};\n";
  return out;
}

std::string sqlite_rows_registration(const ir::Function& f) {
  std::string out = "  rc = sqlite3_create_module_v2(db, " + quoted(f.name) + ", &keal_sqlite_rows_module, (void *)&keal_sqlite_rows_" +
                    f.name + "_info, NULL);\n";
  out += "  if (rc != SQLITE_OK) {\n    *error = sqlite3_mprintf(\"%s: registering table-valued function " + f.name +
         "() failed: %s\", KEAL_SOURCE_FILE, sqlite3_errmsg(db));\n    return rc;\n  }\n";
  return out;
}

}  // namespace keal::emit
