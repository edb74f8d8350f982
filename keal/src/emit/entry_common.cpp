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
    case ir::Base::Array: return "json";  // JSON array text, parsed in the call (array_entries.hpp)
    default: return "int";
  }
}

std::string entry_c_type(const ir::Type& type) {
  static const char* plain[] = {"void", "int64_t", "double", "bool", "keal_text", "keal_char", "keal_bytes", "keal_opt_int", "void",
                                "keal_array"};
  if (type.nullable && type.base != ir::Base::Void) return std::string("keal_opt_") + entry_reader(type.base);
  return plain[static_cast<int>(type.base)];
}

std::string entry_wrapper(const ir::Function& f) {
  std::string params, args;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Local& p = f.locals[static_cast<std::size_t>(f.params[i])];
    params += (i ? ", " : "") + entry_c_type(p.type) + " a" + std::to_string(i);
    args += (i ? ", a" : "a") + std::to_string(i);
  }
  if (params.empty()) params = "void";
  const std::string ret = entry_c_type(f.ret);
  return "\nstatic __attribute__((noinline)) " + ret + " keal_call_" + f.name + "(" + params + ") {\n  " +
         (f.ret.base == ir::Base::Void ? "" : "return ") + "kf_" + f.name + "(" + args + ");\n}\n";
}

}  // namespace keal::emit
