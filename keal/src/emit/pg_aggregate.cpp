// PostgreSQL aggregates: CREATE AGGREGATE over C support functions with the
// state in internal memory (runtime/keal_pg_aggregate.h).
//  - step(internal, args) -> internal: not STRICT (the first state is
//    NULL); a row whose non-nullable argument is NULL is skipped, SQL's rule;
//    the state is made (and initialised) at the first row that is not.
//  - final(internal) -> R: a group with no rows gets the initial state.
//  - combine(internal, internal) -> internal, serial(internal) -> bytea and
//    deserial(bytea, internal) -> internal when the aggregate has `combine`,
//    so the planner can run it in parallel (Partial / Finalize Aggregate). A
//    worker that saw no rows has no state and contributes nothing: combine
//    runs only on two states that each folded at least one row.
//  - with `inverse`, the same functions and inverse(internal, args) ->
//    internal make it a moving aggregate (MSFUNC, MINVFUNC, MSTYPE =
//    internal, MFINALFUNC): a window frame that slides is updated by one
//    step and one inverse per row instead of folded again from its start.
#include <string>

#include "emit/aggregates.hpp"
#include "emit/c_names.hpp"
#include "emit/sql_quote.hpp"

namespace keal::emit {

using ir::Base;

namespace {

std::string symbol(const ir::Aggregate& agg, const char* part) { return "keal_agg_" + agg.name + "_" + part; }

std::string read_arg(const ir::Type& t, std::size_t index, std::uint32_t line) {
  const std::string idx = std::to_string(index);
  switch (t.base) {
    case Base::Int: return "PG_GETARG_INT64(" + idx + ")";
    case Base::Float: return "PG_GETARG_FLOAT8(" + idx + ")";
    case Base::Bool: return "PG_GETARG_BOOL(" + idx + ")";
    case Base::Text: return "keal_pg_text_in(PG_GETARG_TEXT_PP(" + idx + "))";
    case Base::Char: return "keal_pg_char_in(PG_GETARG_TEXT_PP(" + idx + "), " + std::to_string(line) + ")";
    case Base::Bytes: return "keal_pg_text_in(PG_GETARG_BYTEA_PP(" + idx + "))";
    default: return "0";
  }
}

std::string quoted_c(const std::string& s) { return "\"" + s + "\""; }

// step and inverse share the argument reading (inverse is SQLite's alone).
std::string row_function(const ir::Module& module, const ir::Aggregate& agg, int part, const char* kind) {
  const std::string s = aggregate_state_c_type(agg);
  const std::string sym = symbol(agg, kind);
  const ir::Function& step = module.functions[static_cast<std::size_t>(part)];
  std::string out = "\nPG_FUNCTION_INFO_V1(" + sym + ");\nDatum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  MemoryContext context = keal_pg_agg_context(fcinfo, " + quoted_c(agg.name) + ");\n";
  out += "  " + s + " *st = PG_ARGISNULL(0) ? NULL : (" + s + " *)PG_GETARG_POINTER(0);\n";
  std::string call = aggregate_part_c_name(module, step) + "(st";
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    const ir::Type& t = agg.params[i].type;
    const std::size_t arg = i + 1;
    const std::string a = "a" + std::to_string(i);
    if (t.nullable) {
      const std::string ct = c_type(t);
      out += "  " + ct + " " + a + " = PG_ARGISNULL(" + std::to_string(arg) + ") ? (" + ct + "){.is_null = true} : (" + ct +
             "){false, " + read_arg(t, arg, step.line) + "};\n";
    } else {
      // SQL's rule for aggregates: a row with a NULL argument is skipped.
      out += "  if (PG_ARGISNULL(" + std::to_string(arg) + ")) {\n";
      out += "    if (st == NULL) PG_RETURN_NULL();\n    PG_RETURN_POINTER(st);\n  }\n";
      out += "  " + c_type(t) + " " + a + " = " + read_arg(t, arg, step.line) + ";\n";
    }
    call += ", " + a;
  }
  call += ")";
  out += "  if (st == NULL) {\n";
  out += "    st = (" + s + " *)keal_pg_agg_new_state(context, sizeof(" + s + "));\n";
  out += "    " + aggregate_part_c_name(module, module.functions[static_cast<std::size_t>(agg.init)]) + "(st);\n  }\n";
  out += "  " + call + ";\n  PG_RETURN_POINTER(st);\n}\n";
  return out;
}

std::string final_function(const ir::Module& module, const ir::Aggregate& agg) {
  const std::string s = aggregate_state_c_type(agg);
  const std::string sym = symbol(agg, "final");
  std::string out = "\nPG_FUNCTION_INFO_V1(" + sym + ");\nDatum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  " + s + " initial;\n  const " + s + " *st;\n";
  out += "  if (PG_ARGISNULL(0)) {\n    memset(&initial, 0, sizeof initial);\n    " +
         aggregate_part_c_name(module, module.functions[static_cast<std::size_t>(agg.init)]) +
         "(&initial);\n    st = &initial;\n  } else {\n    st = (const " + s + " *)PG_GETARG_POINTER(0);\n  }\n";
  out += "  " + c_type(agg.ret) + " r = " + aggregate_result(module, agg, "st") + ";\n";
  std::string v = "r";
  if (agg.ret.nullable) {
    out += "  if (r.is_null) PG_RETURN_NULL();\n";
    v = "r.v";
  }
  switch (agg.ret.base) {
    case Base::Int: out += "  PG_RETURN_INT64(" + v + ");\n"; break;
    case Base::Float: out += "  PG_RETURN_FLOAT8(" + v + ");\n"; break;
    // Made in the final call's context, where PostgreSQL expects the result.
    case Base::Text: out += "  PG_RETURN_TEXT_P(keal_pg_text_out(" + v + "));\n"; break;
    case Base::Bytes: out += "  PG_RETURN_BYTEA_P(keal_pg_text_out(" + v + "));\n"; break;
    case Base::Char: out += "  PG_RETURN_TEXT_P(keal_pg_char_out(" + v + "));\n"; break;
    default: out += "  PG_RETURN_BOOL(" + v + ");\n"; break;
  }
  return out + "}\n";
}

std::string parallel_functions(const ir::Module& module, const ir::Aggregate& agg) {
  const std::string s = aggregate_state_c_type(agg);
  const std::string name = quoted_c(agg.name);
  std::string out;
  std::string sym = symbol(agg, "combine");
  out += "\nPG_FUNCTION_INFO_V1(" + sym + ");\nDatum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  MemoryContext context = keal_pg_agg_context(fcinfo, " + name + ");\n";
  out += "  " + s + " *st = PG_ARGISNULL(0) ? NULL : (" + s + " *)PG_GETARG_POINTER(0);\n";
  out += "  const " + s + " *other = PG_ARGISNULL(1) ? NULL : (const " + s + " *)PG_GETARG_POINTER(1);\n";
  out += "  if (other == NULL) {\n    if (st == NULL) PG_RETURN_NULL();\n    PG_RETURN_POINTER(st);\n  }\n";
  out += "  if (st == NULL) {\n    st = (" + s + " *)keal_pg_agg_new_state(context, sizeof(" + s + "));\n";
  out += "    *st = *other;\n    PG_RETURN_POINTER(st);\n  }\n";
  out += "  " + aggregate_part_c_name(module, module.functions[static_cast<std::size_t>(agg.combine)]) + "(st, other);\n";
  out += "  PG_RETURN_POINTER(st);\n}\n";
  sym = symbol(agg, "serial");
  out += "\nPG_FUNCTION_INFO_V1(" + sym + ");\nDatum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  PG_RETURN_BYTEA_P(keal_pg_agg_serialize(PG_GETARG_POINTER(0), sizeof(" + s + ")));\n}\n";
  sym = symbol(agg, "deserial");
  out += "\nPG_FUNCTION_INFO_V1(" + sym + ");\nDatum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  MemoryContext context = keal_pg_agg_context(fcinfo, " + name + ");\n";
  out += "  PG_RETURN_POINTER(keal_pg_agg_deserialize(PG_GETARG_BYTEA_PP(0), sizeof(" + s + "), context, " + name + "));\n}\n";
  return out;
}

std::string support_function(const ir::Aggregate& agg, const char* part, const std::string& params, const std::string& ret,
                             bool strict, const std::string& library_path) {
  const std::string volatility = agg.pure ? " IMMUTABLE PARALLEL SAFE" : " VOLATILE";
  return "CREATE OR REPLACE FUNCTION " + sql_ident(symbol(agg, part)) + "(" + params + ") RETURNS " + ret + "\n    AS " +
         sql_literal(library_path) + ", " + sql_literal(symbol(agg, part)) + "\n    LANGUAGE C" + (strict ? " STRICT" : "") +
         volatility + ";\n";
}

}  // namespace

std::string pg_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg) {
  std::string out = row_function(module, agg, agg.step, "step") + final_function(module, agg);
  if (agg.inverse >= 0) out += row_function(module, agg, agg.inverse, "inverse");
  if (agg.combine >= 0) out += parallel_functions(module, agg);
  return out;
}

std::string pg_aggregate_install_sql(const ir::Aggregate& agg, const std::string& library_path) {
  std::string types;
  for (std::size_t i = 0; i < agg.params.size(); ++i) types += (i ? ", " : "") + ir::sql_type(agg.params[i].type);
  std::string out;
  out += support_function(agg, "step", "internal, " + types, "internal", false, library_path);
  out += support_function(agg, "final", "internal", ir::sql_type(agg.ret), false, library_path);
  if (agg.inverse >= 0) out += support_function(agg, "inverse", "internal, " + types, "internal", false, library_path);
  if (agg.combine >= 0) {
    out += support_function(agg, "combine", "internal, internal", "internal", false, library_path);
    out += support_function(agg, "serial", "internal", "bytea", true, library_path);
    out += support_function(agg, "deserial", "bytea, internal", "internal", true, library_path);
  }
  const std::string signature = sql_ident(agg.name) + "(" + types + ")";
  out += "CREATE OR REPLACE AGGREGATE " + signature + " (\n";
  out += "    SFUNC = " + sql_ident(symbol(agg, "step")) + ",\n    STYPE = internal,\n";
  out += "    FINALFUNC = " + sql_ident(symbol(agg, "final"));
  if (agg.combine >= 0) {
    out += ",\n    COMBINEFUNC = " + sql_ident(symbol(agg, "combine"));
    out += ",\n    SERIALFUNC = " + sql_ident(symbol(agg, "serial"));
    out += ",\n    DESERIALFUNC = " + sql_ident(symbol(agg, "deserial"));
  }
  if (agg.inverse >= 0) {
    out += ",\n    MSFUNC = " + sql_ident(symbol(agg, "step"));
    out += ",\n    MINVFUNC = " + sql_ident(symbol(agg, "inverse"));
    out += ",\n    MSTYPE = internal";
    out += ",\n    MFINALFUNC = " + sql_ident(symbol(agg, "final"));
  }
  out += std::string(",\n    PARALLEL = ") + (agg.pure ? "SAFE" : "UNSAFE") + "\n);\n";
  out += "COMMENT ON AGGREGATE " + signature + " IS " + (agg.doc.empty() ? std::string("NULL") : sql_literal(agg.doc)) + ";\n";
  return out;
}

}  // namespace keal::emit
