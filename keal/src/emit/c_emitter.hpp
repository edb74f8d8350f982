#pragma once
// The C emitter: typed IR to one C translation unit, in two flavours that
// differ only at the edges (entry points, runtime header). Function bodies are
// straight-line C over int64_t/double/bool locals; int arithmetic goes through
// keal_add & co. (__builtin_*_overflow with the error path out of line).

#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// Sqlite and Mariadb: a loadable extension / a UDF library; their entry
// points come from sqlite_entry.cpp / mariadb_entry.cpp (entry_points.hpp).
enum class Flavour : std::uint8_t { Pg, Native, Sqlite, Mariadb };

// The flavour's name as --target spells it.
const char* flavour_name(Flavour flavour);

std::string emit_c(const ir::Module& module, Flavour flavour);

// The C symbol of an exported function's PostgreSQL entry point.
std::string entry_symbol(const ir::Function& fn);

// CREATE OR REPLACE FUNCTION for every exported function, in one transaction.
std::string install_sql(const ir::Module& module, const std::string& library_path);

}  // namespace keal::emit
