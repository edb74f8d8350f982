// MariaDB aggregate UDFs: f_init (argument checks; mallocs the state box),
// f_clear (a new group: runs the initial values), f_add (one row: a NULL
// for a non-nullable argument skips it, SQL's rule), f (the result from the
// final block) and f_deinit. Errors raise the Keal message with its
// SQLSTATE's MariaDB error (keal_mariadb_failed), as scalar UDFs do.
#include <string>

#include "emit/aggregates.hpp"
#include "emit/entry_points.hpp"

namespace keal::emit {

namespace {

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }
std::string box(const ir::Aggregate& agg) { return "keal_mdb_agg_box_" + agg.name; }
const ir::Function& fn(const ir::Module& module, int index) { return module.functions[static_cast<std::size_t>(index)]; }

const char* kind_constant(ir::Base base) {
  switch (base) {
    case ir::Base::Int: return "KEAL_MDB_INT";
    case ir::Base::Float: return "KEAL_MDB_FLOAT";
    case ir::Base::Bool: return "KEAL_MDB_BOOL";
    case ir::Base::Text: return "KEAL_MDB_TEXT";
    case ir::Base::Char: return "KEAL_MDB_CHAR";
    default: return "KEAL_MDB_BYTES";
  }
}

// As mariadb_entry.cpp: the C names are keal_udf_*, an asm label gives each
// the symbol the server looks up.
std::string declare(const std::string& result, const std::string& symbol, const std::string& params) {
  return "\nKEAL_EXPORT " + result + " keal_udf_" + symbol + "(" + params + ") __asm__(\"" + symbol + "\");\n" + result +
         " keal_udf_" + symbol + "(" + params + ") {\n";
}

bool returns_string(const ir::Type& ret) {
  return ret.base == ir::Base::Text || ret.base == ir::Base::Bytes || ret.base == ir::Base::Char;
}
const char* result_c_type(const ir::Type& ret) {
  return returns_string(ret) ? "char *" : ret.base == ir::Base::Float ? "double" : "long long";
}
const char* none(const ir::Type& ret) { return returns_string(ret) ? "NULL" : ret.base == ir::Base::Float ? "0.0" : "0"; }

// The result copied out of the call's arena into the box's buffer, which
// lives until the next group's result or deinit.
std::string string_result(const ir::Type& ret, const std::string& v) {
  if (ret.base == ir::Base::Char) return "keal_mdb_char_into(&b->out, " + v + ", length, is_null, error)";
  return "keal_mdb_string_into(&b->out, " + v + ".ptr, " + v + ".len, length, is_null, error)";
}

}  // namespace

std::string mariadb_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg) {
  const std::string s = aggregate_state_c_type(agg);
  const std::string b = box(agg);
  const std::string init = aggregate_part_c_name(module, fn(module, agg.init));
  const bool string = returns_string(agg.ret);
  // `out`: a text, bytes or char result's buffer (keal_mdb_string_into).
  std::string out = "\ntypedef struct { " + s + " state;" + (string ? " char *out;" : "") + " } " + b + ";\n";

  out += declare("my_bool", agg.name + "_init", "UDF_INIT *initid, UDF_ARGS *args, char *message");
  out += "  if (!keal_mdb_arg_count(args, " + std::to_string(agg.params.size()) + ", " + quoted(agg.name) +
         ", message)) return 1;\n";
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    out += "  if (!keal_mdb_param(args, " + std::to_string(i) + ", " + kind_constant(agg.params[i].type.base) + ", " +
           quoted(agg.name) + ", " + quoted(agg.params[i].name) + ", message)) return 1;\n";
  }
  out += "  initid->maybe_null = 1;\n  initid->const_item = 0;\n";
  if (agg.ret.base == ir::Base::Float) out += "  initid->decimals = 31; /* NOT_FIXED_DEC */\n";
  if (string) out += "  initid->max_length = 16777216;\n";
  out += "  initid->ptr = (char *)calloc(1, sizeof(" + b + "));\n";
  out += "  if (initid->ptr == NULL) {\n    snprintf(message, 80, \"%s: out of memory\", " + quoted(agg.name) +
         ");\n    return 1;\n  }\n  return 0;\n}\n";
  out += declare("void", agg.name + "_deinit", "UDF_INIT *initid");
  if (string) out += "  if (initid->ptr != NULL) free(((" + b + " *)(void *)initid->ptr)->out);\n";
  out += "  free(initid->ptr);\n}\n";

  out += "\nstatic __attribute__((noinline)) void keal_mdb_agg_" + agg.name + "_init_call(" + s + " *st) {\n  " + init +
         "(st);\n}\n";
  out += declare("void", agg.name + "_clear", "UDF_INIT *initid, char *is_null, char *error");
  out += "  " + b + " *b = (" + b + " *)(void *)initid->ptr;\n  *is_null = 0;\n";
  out += "  memset(&b->state, 0, sizeof b->state);\n";
  out += "  keal_call call;\n  keal_mariadb_begin(&call);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) keal_mdb_agg_" + agg.name + "_init_call(&b->state);\n";
  out += "  else keal_mariadb_failed(&call, is_null, error);\n  keal_mariadb_end(&call);\n}\n";

  std::string params, args;
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    params += ", " + entry_c_type(agg.params[i].type) + " a" + std::to_string(i);
    args += ", a" + std::to_string(i);
  }
  out += "\nstatic __attribute__((noinline)) void keal_mdb_agg_" + agg.name + "_add_call(" + s + " *st" + params + ") {\n  " +
         aggregate_part_c_name(module, fn(module, agg.step)) + "(st" + args + ");\n}\n";
  out += declare("void", agg.name + "_add", "UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error");
  out += "  " + b + " *b = (" + b + " *)(void *)initid->ptr;\n";
  out += "  if (*error) return; /* an earlier row failed: the group's result is the error */\n";
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    const ir::Field& p = agg.params[i];
    const std::string a = "a" + std::to_string(i);
    const std::string idx = std::to_string(i);
    out += "  " + entry_c_type(p.type) + " " + a + " = {0};\n";
    out += "  int r" + idx + " = keal_mdb_" + entry_reader(p.type.base) + "(args, " + idx + ", &" +
           (p.type.nullable ? a + ".v" : a) + ", " + quoted(agg.name) + ", " + quoted(p.name) + ", is_null, error);\n";
    out += "  if (r" + idx + " < 0) return;\n";
    if (p.type.nullable) {
      out += "  " + a + ".is_null = r" + idx + " == 0;\n";
    } else {
      out += "  if (r" + idx + " == 0) return; /* SQL's rule: a row with a NULL argument is skipped */\n";
    }
  }
  out += "  keal_call call;\n  keal_mariadb_begin(&call);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) keal_mdb_agg_" + agg.name + "_add_call(&b->state" + args + ");\n";
  out += "  else keal_mariadb_failed(&call, is_null, error);\n  keal_mariadb_end(&call);\n}\n";

  out += "\nstatic __attribute__((noinline)) " + entry_c_type(agg.ret) + " keal_mdb_agg_" + agg.name + "_result_call(const " +
         s + " *st) {\n  return " + aggregate_result(module, agg, "st") + ";\n}\n";
  if (string) {
    out += declare(result_c_type(agg.ret), agg.name,
                   "UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error");
    out += "  (void)args;\n  (void)result;\n  " + b + " *b = (" + b + " *)(void *)initid->ptr;\n";
  } else {
    out += declare(result_c_type(agg.ret), agg.name, "UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error");
    out += "  (void)args;\n  const " + b + " *b = (const " + b + " *)(void *)initid->ptr;\n";
  }
  out += "  if (*error) {\n    *is_null = 1;\n    return " + std::string(none(agg.ret)) + ";\n  }\n  *is_null = 0;\n";
  out += "  keal_call call;\n  keal_mariadb_begin(&call);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) {\n";
  out += "    " + entry_c_type(agg.ret) + " r = keal_mdb_agg_" + agg.name + "_result_call(&b->state);\n";
  std::string v = "r";
  if (agg.ret.nullable) {
    out += "    if (r.is_null) {\n      keal_mariadb_end(&call);\n      *is_null = 1;\n      return " + std::string(none(agg.ret)) +
           ";\n    }\n";
    v = "r.v";
  }
  if (string) {
    // Copied before the call's arena, which holds the text, is freed.
    out += "    char *text = " + string_result(agg.ret, v) + ";\n    keal_mariadb_end(&call);\n    return text;\n  }\n";
  } else {
    out += "    keal_mariadb_end(&call);\n";
    out += "    return " + (agg.ret.base == ir::Base::Bool ? v + " ? 1 : 0" : v) + ";\n  }\n";
  }
  out += "  keal_mariadb_failed(&call, is_null, error);\n  keal_mariadb_end(&call);\n  return " + std::string(none(agg.ret)) +
         ";\n}\n";
  return out;
}

std::string mariadb_aggregate_install_sql(const ir::Aggregate& agg, const std::string& soname) {
  std::string lit = "'";
  for (char c : soname) {
    if (c == '\'' || c == '\\') lit += c;
    lit += c;
  }
  lit += "'";
  return "DROP FUNCTION IF EXISTS " + agg.name + ";\nCREATE AGGREGATE FUNCTION " + agg.name + " RETURNS " +
         mariadb_return_kind(agg.ret) + " SONAME " + lit + ";\n";
}

}  // namespace keal::emit
