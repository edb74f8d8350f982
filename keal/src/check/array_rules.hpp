#pragma once
// The checker's rules for arrays `[T]`: what an array literal's element type
// is, and which uses of arrays are refused (with the message to report).
// Rules only; the checker reports the diagnostics and builds the nodes.

#include <cstddef>
#include <string>
#include <vector>

#include "ir/array_type.hpp"

namespace keal::check {

struct LiteralElements {
  ir::Type elem;              // the element type; null for `[]`
  std::string error;          // set when the elements do not make an array
  std::size_t at = 0;         // the element the error is about
};

// The element type of `[e1, e2, ...]` from the elements' types: one scalar
// base for all, nullable when any element is `T?` or `null`.
LiteralElements literal_elements(const std::vector<ir::Type>& elements);

// Whether `t` is the type of the literal `[]` (no element type yet).
inline bool is_empty_literal_type(const ir::Type& t) {
  return t.base == ir::Base::Array && t.elem && t.elem->base == ir::Base::Null;
}

}  // namespace keal::check
