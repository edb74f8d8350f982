#include "check/types.hpp"

#include "ir/array_type.hpp"

namespace keal::check {

ir::Type from_ast(const ast::TypeRef& t) {
  ir::Base b = ir::Base::Int;
  switch (t.base) {
    case ast::BaseType::Int: b = ir::Base::Int; break;
    case ast::BaseType::Float: b = ir::Base::Float; break;
    case ast::BaseType::Bool: b = ir::Base::Bool; break;
    case ast::BaseType::Text: b = ir::Base::Text; break;
    case ast::BaseType::Char: b = ir::Base::Char; break;
    case ast::BaseType::Bytes: b = ir::Base::Bytes; break;
  }
  if (t.array) return ir::array_type({b, t.nullable});
  return {b, t.nullable};
}

}  // namespace keal::check
