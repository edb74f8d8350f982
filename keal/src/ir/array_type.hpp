#pragma once
// Array types `[T]`: T is a scalar type, maybe nullable (`[int?]`); arrays
// of arrays or of rows are not in the language.

#include "ir/ir.hpp"

namespace keal::ir {

// The type `[elem]`.
Type array_type(Type elem);

// The element type of an array type.
inline const Type& elem_type(const Type& array) { return *array.elem; }

inline bool is_array(const Type& t) { return t.base == Base::Array; }

}  // namespace keal::ir
