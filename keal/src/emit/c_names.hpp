#pragma once
// How Keal types and literals are spelled in the generated C, shared by the
// emitter's parts (c_emitter.cpp, native_sql.cpp, pg_spi.cpp, pg_entry.cpp).

#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// The C type of a Keal type: int64_t, double, bool, keal_text, ..., the
// keal_opt_* struct of a nullable one, or a record's struct (record_c_name).
std::string c_type(const ir::Type& t);

// A record is a C struct with fields f0, f1, ...; its name spells the field
// types (i int, f float, b bool, t text, c char, y bytes; a trailing q marks
// a nullable field), so equal records share one struct whatever the field
// names.
std::string record_c_name(const ir::Record& r);

// A C string literal holding exactly these bytes: printable ASCII as is,
// everything else (and '?', against trigraphs) as three-digit octal escapes.
std::string c_string(const std::string& bytes);

// Text safe inside a C comment: '*', '/' and control characters as '_'.
std::string comment_safe(const std::string& s);

}  // namespace keal::emit
