#include "emit/array_exprs.hpp"

#include "emit/c_names.hpp"
#include "ir/array_type.hpp"

namespace keal::emit {

std::string array_element(const std::string& array, const std::string& pos, const ir::Type& elem) {
  return "((" + c_type(elem) + " *)" + array + ".data)[" + pos + "]";
}

std::string array_literal(const ir::Type& type, const std::vector<std::string>& elements, const std::string& temp) {
  if (elements.empty()) return "keal_array_empty()";
  const std::string elem = c_type(ir::elem_type(type));
  // Element by element in statements: C leaves the order of an
  // initializer list's expressions open, Keal evaluates left to right.
  std::string out = "({ keal_array " + temp + "; " + elem + " *" + temp + "_d = (" + elem + " *)keal_array_new(&" + temp +
                    ", " + std::to_string(elements.size()) + ", sizeof(" + elem + ")); ";
  for (std::size_t i = 0; i < elements.size(); ++i) out += temp + "_d[" + std::to_string(i) + "] = " + elements[i] + "; ";
  return out + temp + "; })";
}

std::string array_index(const ir::Expr& e, const std::string& simple_array, const std::string& array, const std::string& index,
                        const std::string& temp) {
  const std::string line = std::to_string(e.line);
  if (!simple_array.empty()) {
    return array_element(simple_array, "keal_array_at(" + simple_array + ", " + index + ", " + line + ")", e.type);
  }
  return "({ keal_array " + temp + " = " + array + "; " +
         array_element(temp, "keal_array_at(" + temp + ", " + index + ", " + line + ")", e.type) + "; })";
}

std::string array_append(const ir::Expr& e, const std::string& array, const std::string& value, const std::string& temp,
                         const std::string& value_temp) {
  const std::string elem = c_type(ir::elem_type(e.type));
  return "({ keal_array " + temp + " = " + array + "; " + elem + " " + value_temp + " = " + value + "; keal_array_push(" +
         temp + ", &" + value_temp + ", sizeof(" + elem + ")); })";
}

}  // namespace keal::emit
