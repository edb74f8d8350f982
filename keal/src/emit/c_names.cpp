#include "emit/c_names.hpp"

#include <cstdio>

namespace keal::emit {

using ir::Base;
using ir::Type;

namespace {

const char* base_c_type(Base b) {
  switch (b) {
    case Base::Void: return "void";
    case Base::Int: return "int64_t";
    case Base::Float: return "double";
    case Base::Bool: return "bool";
    case Base::Text: return "keal_text";
    case Base::Char: return "keal_char";
    case Base::Bytes: return "keal_bytes";
    case Base::Null: return "keal_opt_int";
    case Base::Record: break;  // c_type names records
    case Base::Array: return "keal_array";
  }
  return "void";
}

const char* opt_c_type(Base b) {
  switch (b) {
    case Base::Int: return "keal_opt_int";
    case Base::Float: return "keal_opt_float";
    case Base::Bool: return "keal_opt_bool";
    case Base::Text: return "keal_opt_text";
    case Base::Char: return "keal_opt_char";
    case Base::Bytes: return "keal_opt_bytes";
    default: return "keal_opt_int";
  }
}

}  // namespace

std::string record_c_name(const ir::Record& r) {
  std::string name = "keal_rec";
  for (const ir::Field& f : r.fields) {
    name += '_';
    switch (f.type.base) {
      case Base::Int: name += 'i'; break;
      case Base::Float: name += 'f'; break;
      case Base::Bool: name += 'b'; break;
      case Base::Text: name += 't'; break;
      case Base::Char: name += 'c'; break;
      case Base::Bytes: name += 'y'; break;
      default: name += 'x'; break;  // the checker allows only scalar fields
    }
    if (f.type.nullable) name += 'q';
  }
  return name;
}

std::string c_type(const Type& t) {
  if (t.base == Base::Record) return record_c_name(*t.record);
  return t.nullable ? opt_c_type(t.base) : base_c_type(t.base);
}

std::string c_string(const std::string& bytes) {
  std::string out = "\"";
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '?') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string comment_safe(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '/' || static_cast<unsigned char>(c) < 0x20) out += '_';
    else out += c;
  }
  return out;
}

}  // namespace keal::emit
