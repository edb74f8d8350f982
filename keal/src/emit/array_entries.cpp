#include "emit/array_entries.hpp"

#include "ir/array_type.hpp"

namespace keal::emit {

namespace {

const char* elem_kind(ir::Base base) {
  switch (base) {
    case ir::Base::Int: return "INT";
    case ir::Base::Float: return "FLOAT";
    case ir::Base::Bool: return "BOOL";
    case ir::Base::Text: return "TEXT";
    case ir::Base::Char: return "CHAR";
    default: return "BYTES";
  }
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

std::string elem_kind_args(const ir::Type& array) {
  const ir::Type& elem = ir::elem_type(array);
  return std::string("KEAL_ELEM_") + elem_kind(elem.base) + ", " + (elem.nullable ? "true" : "false");
}

std::string pg_array_argument(const ir::Local& p, const std::string& idx, std::uint32_t line) {
  return "keal_pg_array_in(PG_GETARG_ARRAYTYPE_P(" + idx + "), " + elem_kind_args(p.type) + ", " + std::to_string(line) + ", " +
         quoted(p.name) + ")";
}

std::string json_array_argument(const ir::Local& p, const std::string& json, std::uint32_t line) {
  return "keal_json_array_in(" + json + ", " + elem_kind_args(p.type) + ", " + std::to_string(line) + ", " + quoted(p.name) + ")";
}

std::string json_array_result(const ir::Type& ret, const std::string& v) {
  return "keal_json_array_out(" + v + ", " + elem_kind_args(ret) + ")";
}

std::string pg_array_result(const ir::Type& ret, const std::string& v) {
  return "keal_pg_array_out(" + v + ", " + elem_kind_args(ret) + ")";
}

}  // namespace keal::emit
