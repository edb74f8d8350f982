#include "ir/array_type.hpp"

#include <memory>

namespace keal::ir {

Type array_type(Type elem) {
  Type t{Base::Array, false};
  t.elem = std::make_shared<const Type>(std::move(elem));
  return t;
}

}  // namespace keal::ir
