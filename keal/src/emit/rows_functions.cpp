// PostgreSQL's side of a rows function (emit/rows_functions.hpp). Value per
// call: the executor calls the entry point once per row, so a LIMIT (or a
// ProjectSet that stops asking) ends the generator early; nothing is
// materialised. The frame and everything the body allocates live in
// multi_call_memory_ctx, which PostgreSQL frees after the last row (or when
// the query ends early).
#include "emit/rows_functions.hpp"

#include "emit/c_emitter.hpp"
#include "emit/c_names.hpp"
#include "emit/sql_quote.hpp"

namespace keal::emit {

using ir::Base;

std::string rows_frame_c_name(const ir::Function& f) { return "kr_" + f.name; }

std::string rows_frame_struct(const ir::Function& f, const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = "struct " + rows_frame_c_name(f) + " {\n  int resume;  /* 0: not started; n: just after yield n; -1: done */\n";
  out += "  struct {";
  for (std::size_t i = 0; i < f.columns.size(); ++i) out += " " + c_type(f.columns[i].type) + " f" + std::to_string(i) + ";";
  out += " } out;\n";
  for (const auto& [type, name] : fields) out += "  " + type + " " + name + ";\n";
  return out + "};\n";
}

namespace {

std::string read_argument(const ir::Local& p, std::size_t index, std::uint32_t line) {
  const std::string idx = std::to_string(index);
  switch (p.type.base) {
    case Base::Int: return "PG_GETARG_INT64(" + idx + ")";
    case Base::Float: return "PG_GETARG_FLOAT8(" + idx + ")";
    case Base::Bool: return "PG_GETARG_BOOL(" + idx + ")";
    case Base::Text: return "keal_pg_text_in(PG_GETARG_TEXT_PP(" + idx + "))";
    case Base::Char: return "keal_pg_char_in(PG_GETARG_TEXT_PP(" + idx + "), " + std::to_string(line) + ")";
    case Base::Bytes: return "keal_pg_text_in(PG_GETARG_BYTEA_PP(" + idx + "))";
    default: return "0";  // the checker allows scalar parameters only
  }
}

std::string column_datum(const ir::Type& t, const std::string& v) {
  switch (t.base) {
    case Base::Int: return "Int64GetDatum(" + v + ")";
    case Base::Float: return "Float8GetDatum(" + v + ")";
    case Base::Bool: return "BoolGetDatum(" + v + ")";
    case Base::Text: return "PointerGetDatum(keal_pg_text_out(" + v + "))";
    case Base::Char: return "PointerGetDatum(keal_pg_char_out(" + v + "))";
    case Base::Bytes: return "PointerGetDatum(keal_pg_text_out(" + v + "))";
    default: return "(Datum)0";  // the checker allows scalar columns only
  }
}

}  // namespace

std::string pg_rows_entry_point(const ir::Function& f) {
  const std::string sym = entry_symbol(f);
  const std::string frame = rows_frame_c_name(f);
  std::string out = "\nPG_FUNCTION_INFO_V1(" + sym + ");\n";
  out += "Datum " + sym + "(PG_FUNCTION_ARGS) {\n";
  out += "  FuncCallContext *keal_srf;\n";
  out += "  if (SRF_IS_FIRSTCALL()) {\n";
  out += "    keal_srf = SRF_FIRSTCALL_INIT();\n";
  // The arguments are read (detoasted) in the frame's context: a FROM-clause
  // call resets the per-tuple context between rows.
  out += "    MemoryContext keal_caller = MemoryContextSwitchTo(keal_srf->multi_call_memory_ctx);\n";
  // One column: PostgreSQL makes RETURNS TABLE(a T) a SETOF T, so each row
  // is the bare value; more columns: a composite built per row.
  const bool composite = f.columns.size() > 1;
  if (composite) {
    out += "    TupleDesc keal_desc;\n";
    out += "    if (get_call_result_type(fcinfo, NULL, &keal_desc) != TYPEFUNC_COMPOSITE)\n";
    out += "      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg(\"%s:%d: " + f.name +
           " returns rows; call it where a set of rows is accepted\", KEAL_SOURCE_FILE, " + std::to_string(f.line) + ")));\n";
    out += "    keal_srf->tuple_desc = BlessTupleDesc(keal_desc);\n";
  }
  out += "    " + frame + " *fr = palloc0(sizeof(" + frame + "));\n";
  bool strict = true;
  for (int p : f.params) strict = strict && !f.locals[static_cast<std::size_t>(p)].type.nullable;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    const std::string idx = std::to_string(i);
    const std::string read = read_argument(p, i, f.line);
    const std::string field = "fr->" + p.c_name;
    if (p.type.nullable) {
      const std::string t = c_type(p.type);
      out += "    " + field + " = PG_ARGISNULL(" + idx + ") ? (" + t + "){.is_null = true} : (" + t + "){false, " + read + "};\n";
    } else {
      // Not STRICT (another parameter is nullable): NULL here gives no rows, as STRICT would.
      if (!strict) out += "    if (PG_ARGISNULL(" + idx + ")) fr->resume = -1;\n    else ";
      else out += "    ";
      out += field + " = " + read + ";\n";
    }
  }
  out += "    keal_srf->user_fctx = fr;\n";
  out += "    MemoryContextSwitchTo(keal_caller);\n";
  out += "  }\n";
  out += "  keal_srf = SRF_PERCALL_SETUP();\n";
  out += "  " + frame + " *fr = keal_srf->user_fctx;\n";
  out += "  if (fr->resume < 0) SRF_RETURN_DONE(keal_srf);\n";
  out += "  MemoryContext keal_caller = MemoryContextSwitchTo(keal_srf->multi_call_memory_ctx);\n";
  // One SPI connection per call (never held between rows: the caller may
  // be using SPI itself between them).
  if (f.uses_spi) out += "  keal_spi_connect();\n";
  out += "  bool keal_more = kf_" + f.name + "(fr);\n";
  if (f.uses_spi) out += "  SPI_finish();\n";
  out += "  MemoryContextSwitchTo(keal_caller);\n";
  out += "  if (!keal_more) SRF_RETURN_DONE(keal_srf);\n";
  if (!composite) {
    const ir::Type& t = f.columns[0].type;
    if (t.nullable) {
      out += "  if (fr->out.f0.is_null) SRF_RETURN_NEXT_NULL(keal_srf);\n";
      out += "  SRF_RETURN_NEXT(keal_srf, " + column_datum(t, "fr->out.f0.v") + ");\n}\n";
    } else {
      out += "  SRF_RETURN_NEXT(keal_srf, " + column_datum(t, "fr->out.f0") + ");\n}\n";
    }
    return out;
  }
  const std::string n = std::to_string(f.columns.size());
  out += "  Datum keal_values[" + n + "];\n  bool keal_nulls[" + n + "];\n";
  for (std::size_t i = 0; i < f.columns.size(); ++i) {
    const ir::Type& t = f.columns[i].type;
    const std::string idx = std::to_string(i);
    const std::string v = "fr->out.f" + idx;
    if (t.nullable) {
      out += "  keal_nulls[" + idx + "] = " + v + ".is_null;\n";
      out += "  keal_values[" + idx + "] = " + v + ".is_null ? (Datum)0 : " + column_datum(t, v + ".v") + ";\n";
    } else {
      out += "  keal_nulls[" + idx + "] = false;\n";
      out += "  keal_values[" + idx + "] = " + column_datum(t, v) + ";\n";
    }
  }
  out += "  SRF_RETURN_NEXT(keal_srf, HeapTupleGetDatum(heap_form_tuple(keal_srf->tuple_desc, keal_values, keal_nulls)));\n";
  out += "}\n";
  return out;
}

std::string rows_returns_sql(const ir::Function& f) {
  std::string out = "TABLE(";
  for (std::size_t i = 0; i < f.columns.size(); ++i) {
    ir::Type scalar = f.columns[i].type;
    scalar.nullable = false;
    out += (i ? ", " : "") + sql_ident(f.columns[i].name) + " " + ir::sql_type(scalar);
  }
  return out + ")";
}

}  // namespace keal::emit
