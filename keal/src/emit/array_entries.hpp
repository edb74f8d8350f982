#pragma once
// Arrays at the edges: how an entry point reads a `[T]` argument and
// returns a `[T]` result on each server (PostgreSQL: T[]; SQLite and
// MariaDB: JSON array text, runtime/keal_json_array.h).

#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// The C expression reading PostgreSQL argument `idx` of array parameter `p`.
std::string pg_array_argument(const ir::Local& p, const std::string& idx, std::uint32_t line);

// The ArrayType * of array result `v` (a keal_array) of type `ret`.
std::string pg_array_result(const ir::Type& ret, const std::string& v);

// SQLite and MariaDB: the keal_array parsed from the JSON text (a
// keal_text) `json` of array parameter `p`, and the JSON text of result `v`.
std::string json_array_argument(const ir::Local& p, const std::string& json, std::uint32_t line);
std::string json_array_result(const ir::Type& ret, const std::string& v);

// The runtime's element kind of an array type (KEAL_ELEM_INT, ...) and
// whether its elements are nullable, as C arguments: "KEAL_ELEM_INT, false".
std::string elem_kind_args(const ir::Type& array);

}  // namespace keal::emit
