#pragma once
// The C of array expressions (runtime/keal_array.h): literals, checked
// indexing, append, and reading one element. Operands arrive as C text,
// already emitted, left to right.

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace keal::emit {

// The element at `pos` of the keal_array `array` (no check: pos is in range).
std::string array_element(const std::string& array, const std::string& pos, const ir::Type& elem);

// [e1, e2, ...] of type `type`; `temp` is a fresh C name.
std::string array_literal(const ir::Type& type, const std::vector<std::string>& elements, const std::string& temp);

// xs[i]: `simple_array` is the array's C text when it may be read twice
// (a local), else empty and `array` is evaluated once into `temp`.
std::string array_index(const ir::Expr& e, const std::string& simple_array, const std::string& array, const std::string& index,
                        const std::string& temp);

// append(xs, v).
std::string array_append(const ir::Expr& e, const std::string& array, const std::string& value, const std::string& temp,
                         const std::string& value_temp);

}  // namespace keal::emit
