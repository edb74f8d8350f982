#include "check/array_rules.hpp"

#include "check/types.hpp"

namespace keal::check {

LiteralElements literal_elements(const std::vector<ir::Type>& elements) {
  LiteralElements out;
  out.elem = kNull;
  bool nullable = false;
  std::size_t first = 0;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const ir::Type& t = elements[i];
    if (t.base == ir::Base::Array) {
      out.error = "arrays of arrays are not supported: element " + std::to_string(i + 1) + " is " + quoted(t) +
                  "; an array's elements are scalars";
      out.at = i;
      return out;
    }
    if (t.base == ir::Base::Null) {
      nullable = true;
      continue;
    }
    nullable = nullable || t.nullable;
    if (out.elem.base == ir::Base::Null) {
      out.elem = {t.base, false};
      first = i;
    } else if (out.elem.base != t.base) {
      out.error = "the elements of an array have one type: element " + std::to_string(i + 1) + " is " +
                  quoted({t.base, false}) + ", element " + std::to_string(first + 1) + " is " + quoted(out.elem) +
                  (t.base == ir::Base::Float || out.elem.base == ir::Base::Float ? "; convert with float(..) or int(..)" : "");
      out.at = i;
      return out;
    }
  }
  if (out.elem.base == ir::Base::Null && !elements.empty()) {
    out.error = "cannot infer the element type of an array of nulls; start from a typed array: 'var xs: [int?] = []' "
                "and 'xs = append(xs, null)'";
    out.at = 0;
    return out;
  }
  if (nullable && out.elem.base != ir::Base::Null) out.elem.nullable = true;
  return out;
}

}  // namespace keal::check
