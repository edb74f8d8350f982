// The PostgreSQL flavour's SQL over SPI: sql.name(...) call sites resolved
// once per backend, and embedded statements with saved plans whose rows are
// read straight from Datums (runtime/keal_pg.h, keal_pg_query_loop.h).
#include <algorithm>
#include <string>

#include "emit/c_names.hpp"
#include "emit/pg_sql.hpp"

namespace keal::emit {

using ir::Base;
using ir::Type;

namespace {

const char* sql_kind(Base b) {
  switch (b) {
    case Base::Int: return "KEAL_SQL_INT";
    case Base::Float: return "KEAL_SQL_FLOAT";
    case Base::Bool: return "KEAL_SQL_BOOL";
    case Base::Char: return "KEAL_SQL_CHAR";
    case Base::Bytes: return "KEAL_SQL_BYTES";
    default: return "KEAL_SQL_TEXT";
  }
}

const char* param_oid(Base b) {
  switch (b) {
    case Base::Int: return "INT8OID";
    case Base::Float: return "FLOAT8OID";
    case Base::Bool: return "BOOLOID";
    case Base::Bytes: return "BYTEAOID";
    default: return "TEXTOID";
  }
}

std::string param_datum(Base b, const std::string& v) {
  switch (b) {
    case Base::Int: return "Int64GetDatum(" + v + ")";
    case Base::Float: return "Float8GetDatum(" + v + ")";
    case Base::Bool: return "BoolGetDatum(" + v + ")";
    case Base::Char: return "keal_sql_char_arg(" + v + ")";
    default: return "keal_sql_text_arg(" + v + ")";
  }
}

std::string column_read(const Type& t, const std::string& target, const std::string& col, const std::string& name,
                               const std::string& line) {
  std::string read = std::string("keal_spi_") + (t.base == Base::Int     ? "int"
                                                 : t.base == Base::Float ? "float"
                                                 : t.base == Base::Bool  ? "bool"
                                                 : t.base == Base::Char  ? "char"
                                                                         : "text") +
                     "(d, TupleDescAttr(td, " + col + ")->atttypid, " + line + ")";
  std::string out = "  d = SPI_getbinval(tup, td, " + std::to_string(std::stoi(col) + 1) + ", &isnull);\n";
  if (t.nullable) {
    out += "  " + target + ".is_null = isnull;\n";
    out += "  if (!isnull) " + target + ".v = " + read + ";\n";
  } else {
    out += "  if (isnull) keal_spi_null(" + line + ", " + c_string(name) + ", " + c_string(ir::to_string(t)) + ");\n";
    out += "  " + target + " = " + read + ";\n";
  }
  return out;
}

// A column of a streamed row, read from the executor's slot by the loop's
// receive function (keal_pg_query_loop.h). A value that cannot become the
// declared type is only marked in `bad` (the first such column: 2c+1 NULL,
// 2c+2 not one char), raised when the loop reaches the row.
std::string slot_column_read(const Type& t, const std::string& target, std::size_t col, const std::string& line) {
  const std::string c = std::to_string(col);
  const std::string datum = "slot->tts_values[" + c + "]";
  const std::string type = "TupleDescAttr(td, " + c + ")->atttypid";
  const std::string value = t.nullable ? target + ".v" : target;
  std::string read;
  if (t.base == Base::Char) {
    read = "if (!keal_spi_char_ok(" + datum + ", " + type + ", &" + value + ") && bad == 0) bad = " +
           std::to_string(2 * col + 2) + ";";
  } else {
    read = value + " = keal_spi_" +
           (t.base == Base::Int ? "int" : t.base == Base::Float ? "float" : t.base == Base::Bool ? "bool" : "text") + "(" +
           datum + ", " + type + ", " + line + ");";
  }
  if (t.nullable) {
    return "  " + target + ".is_null = slot->tts_isnull[" + c + "];\n  if (!slot->tts_isnull[" + c + "]) { " + read + " }\n";
  }
  return "  if (slot->tts_isnull[" + c + "]) {\n    if (bad == 0) bad = " + std::to_string(2 * col + 1) + ";\n  } else {\n    " +
         read + "\n  }\n";
}

// A query loop's statement: the DestReceiver function that reads each row
// the executor produces into the loop's batch, and the error a marked row
// raises when the loop reaches it.
void streamed_rows(std::string& out, const ir::QuerySite& q, const std::string& n, const std::string& value_type, const std::string& line) {
  const bool bad = can_be_bad(q);
  if (bad) {
    out += "static __attribute__((cold, noinline, noreturn)) void keal_q_bad_" + n + "(int32 bad) {\n  switch (bad) {\n";
    for (std::size_t c = 0; c < q.columns.size(); ++c) {
      const Type& t = q.columns[c].type;
      const std::string name = q.single_value ? std::string("value") : q.columns[c].name;
      if (!t.nullable) {
        out += "    case " + std::to_string(2 * c + 1) + ": keal_spi_null(" + line + ", " + c_string(name) + ", " +
                c_string(ir::to_string(t)) + ");\n";
      }
      if (t.base == Base::Char) out += "    case " + std::to_string(2 * c + 2) + ": keal_spi_bad_char(" + line + ");\n";
    }
    out += "  }\n  elog(ERROR, \"%s:%d: unknown row mark %d\", KEAL_SOURCE_FILE, " + line + ", (int)bad);\n  pg_unreachable();\n}\n";
  }
  out += "static bool keal_q_receive_" + n + "(TupleTableSlot *slot, DestReceiver *self) {\n";
  out += "  keal_spi_batch *b = (keal_spi_batch *)self;\n  TupleDesc td = slot->tts_tupleDescriptor;\n";
  out += "  if (__builtin_expect(!b->checked, 0)) {\n    keal_q_check_" + n + "(td);\n    b->checked = true;\n  }\n";
  out += "  slot_getsomeattrs(slot, " + std::to_string(q.columns.size()) + ");\n";
  out += "  " + value_type + " *r = (" + value_type + " *)b->rows + b->n;\n";
  if (bad) out += "  int32 bad = 0;\n";
  const bool texts = reads_text(q);
  if (texts) out += "  MemoryContext caller = MemoryContextSwitchTo(b->texts);\n";
  for (std::size_t c = 0; c < q.columns.size(); ++c) {
    out += slot_column_read(q.columns[c].type, q.single_value ? std::string("(*r)") : "r->f" + std::to_string(c), c, line);
  }
  if (texts) out += "  MemoryContextSwitchTo(caller);\n";
  if (bad) out += "  b->bad[b->n] = bad;\n";
  out += "  b->n++;\n  return true;\n}\n";
}

}  // namespace

bool can_be_bad(const ir::QuerySite& q) {
  return std::any_of(q.columns.begin(), q.columns.end(),
                     [](const ir::Field& c) { return !c.type.nullable || c.type.base == Base::Char; });
}

bool reads_text(const ir::QuerySite& q) {
  return std::any_of(q.columns.begin(), q.columns.end(), [](const ir::Field& c) {
    return c.type.base == Base::Text || c.type.base == Base::Bytes || c.type.base == Base::Char;
  });
}

// sql.name(...) call site i: a static cache and a typed wrapper.
std::string pg_sql_site(const ir::SqlSite& s, std::size_t i) {
  std::string out;
  std::string n = std::to_string(i);
  static const char* kinds[] = {"", "KEAL_SQL_INT", "KEAL_SQL_FLOAT", "KEAL_SQL_BOOL", "KEAL_SQL_TEXT", "KEAL_SQL_CHAR", "KEAL_SQL_BYTES", ""};
  out += "\n/* sql." + s.name + ": " + comment_safe(s.signature) + ", resolved once per backend */\n";
  out += "static keal_sql_fn keal_sql_fn_" + n + ";\n";
  out += "static " + c_type(s.result) + " keal_sql_" + n + "(";
  for (std::size_t a = 0; a < s.arg_types.size(); ++a) out += c_type(s.arg_types[a]) + " a" + std::to_string(a) + ", ";
  out += "int line) {\n";
  out += "  if (!keal_sql_fn_" + n + ".resolved)\n";
  out += "    keal_sql_resolve(&keal_sql_fn_" + n + ", " + c_string(s.signature) + ", " +
          kinds[static_cast<int>(s.result.base)] + ", " + c_string(ir::to_string(s.result)) + ", line);\n";
  out += "  Datum args[" + std::to_string(s.arg_types.empty() ? 1 : s.arg_types.size()) + "];\n";
  for (std::size_t a = 0; a < s.arg_types.size(); ++a) {
    std::string v = "a" + std::to_string(a);
    std::string d;
    switch (s.arg_types[a].base) {
      case Base::Int: d = "keal_sql_int_arg(&keal_sql_fn_" + n + ", " + v + ", line)"; break;
      case Base::Float: d = "Float8GetDatum(" + v + ")"; break;
      case Base::Bool: d = "BoolGetDatum(" + v + ")"; break;
      case Base::Char: d = "keal_sql_char_arg(" + v + ")"; break;
      default: d = "keal_sql_text_arg(" + v + ")"; break;
    }
    out += "  args[" + std::to_string(a) + "] = " + d + ";\n";
  }
  if (s.arg_types.empty()) out += "  args[0] = (Datum)0;\n";
  out += "  bool isnull;\n";
  out += "  Datum r = keal_sql_invoke(&keal_sql_fn_" + n + ", " + std::to_string(s.arg_types.size()) + ", args, &isnull);\n";
  std::string value;
  switch (s.result.base) {
    case Base::Int: value = "keal_sql_int_result(&keal_sql_fn_" + n + ", r)"; break;
    case Base::Float: value = "keal_sql_float_result(&keal_sql_fn_" + n + ", r)"; break;
    case Base::Bool: value = "DatumGetBool(r)"; break;
    case Base::Char: value = "keal_sql_char_result(r, line)"; break;
    default: value = "keal_sql_text_result(r)"; break;
  }
  if (s.result.nullable) {
    out += "  if (isnull) return (" + c_type(s.result) + "){.is_null = true};\n";
    out += "  return (" + c_type(s.result) + "){false, " + value + "};\n";
  } else {
    out += "  if (isnull) keal_sql_null(line, " + c_string(s.name) + ");\n";
    out += "  return " + value + ";\n";
  }
  out += "}\n";
  return out;
}

// Embedded SQL statement i: its saved plan, and typed C functions that
// bind the parameters, run it, and read its rows straight from Datums.
std::string pg_query_site(const ir::QuerySite& q, std::size_t i, const std::string& source_name) {
  std::string out;
  const std::string n = std::to_string(i);
  const std::string line = std::to_string(q.line);
  const std::size_t k = q.params.size();
  const std::string arrays = std::to_string(k == 0 ? 1 : k);
  out += "\n/* " + source_name + ":" + line + " */\n";
  out += "static SPIPlanPtr keal_q_plan_" + n + ";\n";
  out += "static SPIPlanPtr keal_q_prepare_" + n + "(void) {\n";
  out += "  if (keal_q_plan_" + n + " == NULL) {\n";
  out += "    Oid types[" + arrays + "] = {";
  for (std::size_t p = 0; p < k; ++p) out += std::string(p ? ", " : "") + param_oid(q.params[p].base);
  if (k == 0) out += "InvalidOid";
  out += "};\n";
  out += "    keal_q_plan_" + n + " = keal_spi_prepare(" + c_string(q.sql) + ", " + std::to_string(k) + ", types, " + line + ");\n";
  out += "  }\n  return keal_q_plan_" + n + ";\n}\n";
  // The parameters: one C argument per $n, bound as Datums (NULL as 'n').
  std::string params;
  std::string bind = "  Datum values[" + arrays + "];\n  char nulls[" + arrays + "];\n";
  for (std::size_t p = 0; p < k; ++p) {
    const std::string v = "p" + std::to_string(p);
    const std::string at = "[" + std::to_string(p) + "]";
    params += (p ? ", " : "") + c_type(q.params[p]) + " " + v;
    if (q.params[p].nullable) {
      bind += "  nulls" + at + " = " + v + ".is_null ? 'n' : ' ';\n";
      bind += "  values" + at + " = " + v + ".is_null ? (Datum)0 : " + param_datum(q.params[p].base, v + ".v") + ";\n";
    } else {
      bind += "  nulls" + at + " = ' ';\n";
      bind += "  values" + at + " = " + param_datum(q.params[p].base, v) + ";\n";
    }
  }
  if (k == 0) bind += "  values[0] = (Datum)0;\n  nulls[0] = ' ';\n";
  if (params.empty()) params = "void";
  if (q.form == ir::QuerySite::Form::Exec) {
    out += "static void keal_q_exec_" + n + "(" + params + ") {\n" + bind;
    out += "  keal_spi_exec(keal_q_prepare_" + n + "(), values, nulls, " + line + ");\n}\n";
    return out;
  }
  // The declared columns, checked against each result's descriptor.
  const std::string value_type = q.single_value ? c_type(q.columns[0].type) : record_c_name(ir::Record{q.columns});
  out += "static const int keal_q_kinds_" + n + "[] = {";
  for (std::size_t c = 0; c < q.columns.size(); ++c) out += std::string(c ? ", " : "") + sql_kind(q.columns[c].type.base);
  out += "};\n";
  out += "static const char *const keal_q_names_" + n + "[] = {";
  for (std::size_t c = 0; c < q.columns.size(); ++c)
    out += (c ? ", " : "") + c_string(q.single_value ? std::string("value") : q.columns[c].name);
  out += "};\n";
  out += "static void keal_q_check_" + n + "(TupleDesc td) {\n";
  out += "  keal_spi_check_columns(td, " + std::to_string(q.columns.size()) + ", keal_q_kinds_" + n + ", keal_q_names_" + n +
          ", " + line + ");\n}\n";
  if (q.form == ir::QuerySite::Form::One) {
    out += "static " + value_type + " keal_q_row_" + n + "(HeapTuple tup, TupleDesc td) {\n";
    out += "  " + value_type + " r;\n  bool isnull;\n  Datum d;\n";
    for (std::size_t c = 0; c < q.columns.size(); ++c) {
      const std::string target = q.single_value ? "r" : "r.f" + std::to_string(c);
      out += column_read(q.columns[c].type, target, std::to_string(c),
                          q.single_value ? std::string("value") : q.columns[c].name, line);
    }
    out += "  return r;\n}\n";
    out += "static " + value_type + " keal_q_one_" + n + "(" + params + ") {\n" + bind;
    out += "  SPITupleTable *tt = keal_spi_one(keal_q_prepare_" + n + "(), values, nulls, " + line + ");\n";
    out += "  keal_q_check_" + n + "(tt->tupdesc);\n";
    out += "  " + value_type + " v = keal_q_row_" + n + "(tt->vals[0], tt->tupdesc);\n";
    out += "  SPI_freetuptable(tt);\n  return v;\n}\n";
  } else {
    streamed_rows(out, q, n, value_type, line);
    out += "static Portal keal_q_open_" + n + "(" + params + ") {\n" + bind;
    out += "  return keal_spi_open(keal_q_prepare_" + n + "(), values, nulls, " + line + ");\n}\n";
  }
  return out;
}

}  // namespace keal::emit
