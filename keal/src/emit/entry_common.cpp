#include "emit/entry_points.hpp"

namespace keal::emit {

const char* entry_reader(ir::Base base) {
  switch (base) {
    case ir::Base::Int: return "int";
    case ir::Base::Float: return "float";
    case ir::Base::Bool: return "bool";
    case ir::Base::Text: return "text";
    case ir::Base::Char: return "char";
    case ir::Base::Bytes: return "bytes";
    default: return "int";
  }
}

std::string entry_c_type(const ir::Type& type) {
  static const char* plain[] = {"void", "int64_t", "double", "bool", "keal_text", "keal_char", "keal_bytes", "keal_opt_int", "void"};
  if (type.nullable && type.base != ir::Base::Void) return std::string("keal_opt_") + entry_reader(type.base);
  return plain[static_cast<int>(type.base)];
}

}  // namespace keal::emit
