// PostgreSQL entry points: per exported function a fmgr V1 function that
// reads its arguments (NULL handling as STRICT would, for a non-STRICT
// function), opens the SPI connection its embedded SQL needs, calls the Keal
// function and returns its result (runtime/keal_pg.h).
#include <string>
#include <vector>

#include "emit/c_emitter.hpp"
#include "emit/array_entries.hpp"
#include "emit/c_names.hpp"
#include "emit/pg_sql.hpp"

namespace keal::emit {

using ir::Base;

// PostgreSQL fmgr V1 entry point for an exported function.
std::string pg_entry_point(const ir::Function& f) {
  std::string out;
  std::string sym = entry_symbol(f);
  bool strict = true;
  for (int p : f.params) strict = strict && !f.locals[static_cast<std::size_t>(p)].type.nullable;
  out += "\nPG_FUNCTION_INFO_V1(" + sym + ");\n";
  out += "Datum " + sym + "(PG_FUNCTION_ARGS) {\n";
  // Without arguments nothing reads fcinfo (but PG_RETURN_NULL), and the
  // module must build warning-free with -Wextra (unused parameter).
  if (f.params.empty()) out += "  (void)fcinfo;\n";
  std::vector<std::string> names;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    std::string idx = std::to_string(i);
    std::string name = "a" + idx;
    names.push_back(name);
    std::string read;
    switch (p.type.base) {
      case Base::Int: read = "PG_GETARG_INT64(" + idx + ")"; break;
      case Base::Float: read = "PG_GETARG_FLOAT8(" + idx + ")"; break;
      case Base::Bool: read = "PG_GETARG_BOOL(" + idx + ")"; break;
      case Base::Text: read = "keal_pg_text_in(PG_GETARG_TEXT_PP(" + idx + "))"; break;
      case Base::Char: read = "keal_pg_char_in(PG_GETARG_TEXT_PP(" + idx + "), " + std::to_string(f.line) + ")"; break;
      case Base::Bytes: read = "keal_pg_text_in(PG_GETARG_BYTEA_PP(" + idx + "))"; break;
      case Base::Array: read = pg_array_argument(p, idx, f.line); break;
      default: read = "0"; break;
    }
    if (p.type.nullable) {
      std::string t = c_type(p.type);
      out += "  " + t + " " + name + " = PG_ARGISNULL(" + idx + ") ? (" + t + "){.is_null = true} : (" + t + "){false, " + read + "};\n";
    } else {
      // In a non-STRICT function (some other parameter is nullable), NULL
      // for a non-nullable parameter gives NULL, as STRICT would.
      if (!strict) out += "  if (PG_ARGISNULL(" + idx + ")) PG_RETURN_NULL();\n";
      out += "  " + c_type(p.type) + " " + name + " = " + read + ";\n";
    }
  }
  std::string call = "kf_" + f.name + "(";
  for (std::size_t i = 0; i < names.size(); ++i) call += (i ? ", " : "") + names[i];
  call += ")";
  // Embedded SQL runs inside one SPI connection per call; Keal's own
  // values stay in the caller's memory context (SPI_connect would switch
  // to a context SPI_finish deletes), and row values are copied into it.
  const std::string spi_finish = f.uses_spi ? "  SPI_finish();\n" : "";
  if (f.uses_spi) out += "  keal_spi_connect();\n";
  if (f.ret.base == Base::Void) {
    out += "  " + call + ";\n" + spi_finish + "  PG_RETURN_VOID();\n}\n";
    return out;
  }
  out += "  " + c_type(f.ret) + " r = " + call + ";\n" + spi_finish;
  std::string v = "r";
  if (f.ret.nullable) {
    out += "  if (r.is_null) PG_RETURN_NULL();\n";
    v = "r.v";
  }
  switch (f.ret.base) {
    case Base::Int: out += "  PG_RETURN_INT64(" + v + ");\n"; break;
    case Base::Float: out += "  PG_RETURN_FLOAT8(" + v + ");\n"; break;
    case Base::Bool: out += "  PG_RETURN_BOOL(" + v + ");\n"; break;
    case Base::Text: out += "  PG_RETURN_TEXT_P(keal_pg_text_out(" + v + "));\n"; break;
    case Base::Char: out += "  PG_RETURN_TEXT_P(keal_pg_char_out(" + v + "));\n"; break;
    case Base::Bytes: out += "  PG_RETURN_BYTEA_P(keal_pg_text_out(" + v + "));\n"; break;
    case Base::Array: out += "  PG_RETURN_ARRAYTYPE_P(" + pg_array_result(f.ret, v) + ");\n"; break;
    default: break;
  }
  out += "}\n";
  return out;
}

}  // namespace keal::emit
