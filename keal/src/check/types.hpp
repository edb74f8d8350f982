#pragma once
// The checker's vocabulary of types, shared by its rule files.

#include <string>

#include "ir/ir.hpp"
#include "syntax/ast.hpp"

namespace keal::check {

inline const ir::Type kVoid{ir::Base::Void, false};
inline const ir::Type kInt{ir::Base::Int, false};
inline const ir::Type kFloat{ir::Base::Float, false};
inline const ir::Type kBool{ir::Base::Bool, false};
inline const ir::Type kText{ir::Base::Text, false};
inline const ir::Type kChar{ir::Base::Char, false};
inline const ir::Type kBytes{ir::Base::Bytes, false};
inline const ir::Type kNull{ir::Base::Null, true};

// The IR type a written type names.
ir::Type from_ast(const ast::TypeRef& t);

// 'int?' (quoted, for messages).
inline std::string quoted(const ir::Type& t) { return "'" + ir::to_string(t) + "'"; }

// T to T, T to T?, null to T?, the empty literal [] to any [T]; nothing
// else converts implicitly ([int] is not [int?]: their elements differ).
inline bool assignable(const ir::Type& from, const ir::Type& to) {
  if (from == to) return true;
  if (from.base == ir::Base::Array && to.base == ir::Base::Array) return from.elem && from.elem->base == ir::Base::Null;
  if (!to.nullable) return false;
  return from.base == to.base || from.base == ir::Base::Null;
}

}  // namespace keal::check
