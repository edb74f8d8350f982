// SQLite entry points: per exported function an xFunc (a rows function: a
// table-valued function, emit/sqlite_rows.cpp) that reads and checks
// its arguments (keal_sqlite_<type>: 1 value, 0 NULL, -1 error already set),
// runs the Keal function under KEAL_SETJMP (keal_error longjmps back with the
// message), and sets the result; then sqlite3_extension_init.
#include <string>

#include "emit/aggregates.hpp"
#include "emit/array_entries.hpp"
#include "emit/entry_points.hpp"
#include "emit/rows_functions.hpp"

namespace keal::emit {

namespace {

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }

void entry(const ir::Function& f, std::string& out) {
  out += entry_wrapper(f);
  out += "\nstatic void keal_sqlite_" + f.name + "(sqlite3_context *ctx, int argc, sqlite3_value **argv) {\n";
  out += "  (void)argc;\n  (void)argv;\n";
  std::string call = "keal_call_" + f.name + "(";
  std::string arrays;  // JSON arrays are parsed inside the call: they need its arena and error jump
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    const std::string idx = std::to_string(i);
    const bool array = p.type.base == ir::Base::Array;
    const std::string a = (array ? "j" : "a") + idx;
    if (array) {
      out += "  keal_array a" + idx + ";\n";
      arrays += "    a" + idx + " = " + json_array_argument(p, a, f.line) + ";\n";
    }
    const std::string read = std::string("keal_sqlite_") + entry_reader(p.type.base) + "(ctx, argv[" + idx + "], &" +
                             (p.type.nullable ? a + ".v" : a) + ", " + quoted(f.name) + ", " + idx + ", " + quoted(p.name) +
                             ")";
    out += "  " + (array ? std::string("keal_text") : entry_c_type(p.type)) + " " + a + " = {0};\n";
    out += "  int r" + idx + " = " + read + ";\n";
    out += "  if (r" + idx + " < 0) return;\n";
    if (p.type.nullable) {
      out += "  " + a + ".is_null = r" + idx + " == 0;\n";
    } else {
      // NULL for a non-nullable parameter: NULL, as a STRICT function.
      out += "  if (r" + idx + " == 0) {\n    sqlite3_result_null(ctx);\n    return;\n  }\n";
    }
    call += (i ? ", a" : "a") + idx;
  }
  call += ")";
  out += "  keal_call call;\n  keal_sqlite_begin(&call, ctx);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) {\n" + arrays;
  if (f.ret.base == ir::Base::Void) {
    out += "    " + call + ";\n    sqlite3_result_null(ctx);\n";
  } else {
    out += "    " + entry_c_type(f.ret) + " r = " + call + ";\n";
    if (f.ret.nullable) {
      out += "    if (r.is_null) sqlite3_result_null(ctx);\n    else " + sqlite_result_call(f.ret, "r.v") + ";\n";
    } else {
      out += "    " + sqlite_result_call(f.ret, "r") + ";\n";
    }
  }
  out += "  } else {\n    keal_sqlite_failed(ctx, &call);\n  }\n";
  out += "  keal_sqlite_end(&call);\n}\n";
}

}  // namespace

std::string sqlite_result_call(const ir::Type& ret, const std::string& v) {
  switch (ret.base) {
    case ir::Base::Int: return "sqlite3_result_int64(ctx, " + v + ")";
    case ir::Base::Float: return "sqlite3_result_double(ctx, " + v + ")";
    case ir::Base::Bool: return "sqlite3_result_int(ctx, " + v + " ? 1 : 0)";
    case ir::Base::Text: return "keal_sqlite_result_text(ctx, " + v + ")";
    case ir::Base::Char: return "keal_sqlite_result_char(ctx, " + v + ")";
    case ir::Base::Bytes: return "keal_sqlite_result_bytes(ctx, " + v + ")";
    case ir::Base::Array: return "keal_sqlite_result_text(ctx, " + json_array_result(ret, v) + ")";
    default: return "sqlite3_result_null(ctx)";
  }
}

std::string sqlite_entry_points(const ir::Module& module) {
  std::string out;
  for (const ir::Function& f : module.functions) {
    if (!f.exported) continue;
    if (f.returns_rows) out += sqlite_rows_entry_points(f);
    else entry(f, out);
  }
  for (const ir::Aggregate& agg : module.aggregates) out += sqlite_aggregate_entry_points(module, agg);
  out += "\n__attribute__((visibility(\"default\"))) int sqlite3_extension_init(sqlite3 *db, char **error, "
         "const sqlite3_api_routines *api) {\n";
  out += "  SQLITE_EXTENSION_INIT2(api);\n  int rc;\n";
  for (const ir::Function& f : module.functions) {
    if (!f.exported) continue;
    if (f.returns_rows) {
      out += sqlite_rows_registration(f);
      continue;
    }
    // Every function on this target is pure (no sql.*, no embedded SQL):
    // deterministic, and harmless in triggers, views and indexes.
    const std::string flags = f.pure ? "SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS" : "SQLITE_UTF8";
    out += "  rc = sqlite3_create_function_v2(db, " + quoted(f.name) + ", " + std::to_string(f.params.size()) + ", " + flags +
           ", NULL, keal_sqlite_" + f.name + ", NULL, NULL, NULL);\n";
    out += "  if (rc != SQLITE_OK) {\n    *error = sqlite3_mprintf(\"%s: registering " + f.name +
           "() failed: %s\", KEAL_SOURCE_FILE, sqlite3_errmsg(db));\n    return rc;\n  }\n";
  }
  for (const ir::Aggregate& agg : module.aggregates) out += sqlite_aggregate_registration(agg);
  out += "  return SQLITE_OK;\n}\n";
  return out;
}

}  // namespace keal::emit
