// MariaDB UDF entry points: per exported function f, f_init (argument count
// and types, before any row), f (one row: read the arguments, run the Keal
// function under KEAL_SETJMP, return the result or raise the error) and
// f_deinit (frees the string result buffer).
#include <string>

#include "emit/aggregates.hpp"
#include "emit/array_entries.hpp"
#include "emit/entry_points.hpp"

namespace keal::emit {

namespace {

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }

const char* kind_constant(ir::Base base) {
  switch (base) {
    case ir::Base::Int: return "KEAL_MDB_INT";
    case ir::Base::Float: return "KEAL_MDB_FLOAT";
    case ir::Base::Bool: return "KEAL_MDB_BOOL";
    case ir::Base::Text: return "KEAL_MDB_TEXT";
    case ir::Base::Char: return "KEAL_MDB_CHAR";
    case ir::Base::Array: return "KEAL_MDB_JSON";  // JSON array text, a string
    default: return "KEAL_MDB_BYTES";
  }
}

bool returns_string(const ir::Type& ret) {
  return ret.base == ir::Base::Text || ret.base == ir::Base::Char || ret.base == ir::Base::Bytes || ret.base == ir::Base::Array;
}

// The server finds f, f_init and f_deinit by those symbol names, which may
// be a C library's (div, hypot, ...): the C names are keal_udf_*, and an asm
// label gives each its symbol. (Calls inside the library still reach the C
// library: it comes first in the lookup scope of a dlopen'd library.)
std::string declare(const std::string& result, const std::string& symbol, const std::string& params) {
  return "\nKEAL_EXPORT " + result + " keal_udf_" + symbol + "(" + params + ") __asm__(\"" + symbol + "\");\n" + result +
         " keal_udf_" + symbol + "(" + params + ") {\n";
}

void init(const ir::Function& f, std::string& out) {
  const std::size_t n = f.params.size();
  out += declare("my_bool", f.name + "_init", "UDF_INIT *initid, UDF_ARGS *args, char *message");
  out += "  if (!keal_mdb_arg_count(args, " + std::to_string(n) + ", " + quoted(f.name) + ", message)) return 1;\n";
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    out += "  if (!keal_mdb_param(args, " + std::to_string(i) + ", " + kind_constant(p.type.base) + ", " + quoted(f.name) +
           ", " + quoted(p.name) + ", message)) return 1;\n";
  }
  // NULL arguments give NULL, and errors return NULL with the error flag.
  out += "  initid->maybe_null = 1;\n  initid->const_item = 0;\n  initid->ptr = NULL;\n";
  if (f.ret.base == ir::Base::Float) out += "  initid->decimals = 31; /* NOT_FIXED_DEC: no fixed number of decimals */\n";
  if (returns_string(f.ret)) out += "  initid->max_length = 16777216;\n";
  out += "  return 0;\n}\n";
  out += declare("void", f.name + "_deinit", "UDF_INIT *initid") + "  free(initid->ptr);\n}\n";
}

// The value a non-string UDF returns.
std::string number_result(const ir::Type& ret, const std::string& v) {
  return ret.base == ir::Base::Bool ? v + " ? 1 : 0" : v;
}

// A string result, copied out of the call's arena into initid->ptr.
std::string string_result(const ir::Type& ret, const std::string& v) {
  if (ret.base == ir::Base::Char) return "keal_mdb_char_result(initid, " + v + ", length, is_null, error)";
  if (ret.base == ir::Base::Array) {
    return "({ keal_text json = " + json_array_result(ret, v) + "; keal_mdb_string_result(initid, json.ptr, json.len, length, is_null, error); })";
  }
  return "keal_mdb_string_result(initid, " + v + ".ptr, " + v + ".len, length, is_null, error)";
}

// A MariaDB string literal: quotes doubled, and backslashes too (they are
// escapes unless NO_BACKSLASH_ESCAPES is set).
std::string mariadb_literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

void row(const ir::Function& f, std::string& out) {
  out += entry_wrapper(f);
  const bool string = returns_string(f.ret);
  const bool real = f.ret.base == ir::Base::Float;
  const std::string none = string ? "NULL" : real ? "0.0" : "0";
  if (string) {
    out += declare("char *", f.name, "UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error");
    out += "  (void)result;\n";
  } else {
    out += declare(real ? "double" : "long long", f.name, "UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error");
  }
  out += "  (void)initid;\n  (void)args;\n  *is_null = 0;\n";
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
    out += "  " + (array ? std::string("keal_text") : entry_c_type(p.type)) + " " + a + " = {0};\n";
    out += "  int r" + idx + " = keal_mdb_" + entry_reader(p.type.base) + "(args, " + idx + ", &" +
           (p.type.nullable ? a + ".v" : a) + ", " + quoted(f.name) + ", " + quoted(p.name) + ", is_null, error);\n";
    out += "  if (r" + idx + " < 0) return " + none + ";\n";
    if (p.type.nullable) {
      out += "  " + a + ".is_null = r" + idx + " == 0;\n";
    } else {
      out += "  if (r" + idx + " == 0) {\n    *is_null = 1;\n    return " + none + ";\n  }\n";
    }
    call += (i ? ", a" : "a") + idx;
  }
  call += ")";
  out += "  keal_call call;\n  keal_mariadb_begin(&call);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) {\n" + arrays;
  if (f.ret.base == ir::Base::Void) {
    out += "    " + call + ";\n    keal_mariadb_end(&call);\n    *is_null = 1;\n    return " + none + ";\n";
  } else {
    out += "    " + entry_c_type(f.ret) + " r = " + call + ";\n";
    std::string v = "r";
    if (f.ret.nullable) {
      out += "    if (r.is_null) {\n      keal_mariadb_end(&call);\n      *is_null = 1;\n      return " + none + ";\n    }\n";
      v = "r.v";
    }
    if (string) {
      out += "    char *out = " + string_result(f.ret, v) + ";\n";
      out += "    keal_mariadb_end(&call);\n    return out;\n";
    } else {
      out += "    keal_mariadb_end(&call);\n    return " + number_result(f.ret, v) + ";\n";
    }
  }
  out += "  }\n  keal_mariadb_failed(&call, is_null, error);\n  keal_mariadb_end(&call);\n  return " + none + ";\n}\n";
}

}  // namespace

const char* mariadb_return_kind(const ir::Type& ret) {
  if (ret.base == ir::Base::Float) return "REAL";
  if (returns_string(ret)) return "STRING";
  return "INTEGER";
}

std::string mariadb_entry_points(const ir::Module& module) {
  std::string out;
  for (const ir::Function& f : module.functions) {
    if (!f.exported) continue;
    init(f, out);
    row(f, out);
  }
  for (const ir::Aggregate& agg : module.aggregates) out += mariadb_aggregate_entry_points(module, agg);
  return out;
}

std::string mariadb_install_sql(const ir::Module& module, const std::string& soname) {
  std::string out = "-- Generated by keal from " + module.source_name + ": installs its exported functions as UDFs.\n";
  for (const ir::Function& f : module.functions) {
    if (!f.exported) continue;
    out += "DROP FUNCTION IF EXISTS " + f.name + ";\n";
    out += "CREATE FUNCTION " + f.name + " RETURNS " + mariadb_return_kind(f.ret) + " SONAME " + mariadb_literal(soname) + ";\n";
  }
  for (const ir::Aggregate& agg : module.aggregates) out += mariadb_aggregate_install_sql(agg, soname);
  return out;
}

}  // namespace keal::emit
