#pragma once
// The PostgreSQL flavour's parts outside the function bodies, as the SQLite
// and MariaDB entries are (entry_points.hpp): the C of sql.name(...) call
// sites and of embedded SQL statements over SPI (pg_spi.cpp), and the fmgr
// V1 entry points (pg_entry.cpp). The function bodies, the query loops
// among them, stay in c_emitter.cpp; they call what these emit
// (keal_sql_N, keal_q_exec_N / keal_q_one_N / keal_q_open_N,
// keal_q_receive_N).

#include <cstddef>
#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// sql.name(...) call site `index`: a static cache and a typed wrapper
// keal_sql_N(args..., line).
std::string pg_sql_site(const ir::SqlSite& site, std::size_t index);

// Embedded SQL statement `index`: its saved plan, and typed C functions that
// bind the parameters, run it, and read its rows straight from Datums
// (`source_name` comment-safe, for the site's comment).
std::string pg_query_site(const ir::QuerySite& q, std::size_t index, const std::string& source_name);

// Whether a row of q can be refused when read (a NULL for a non-nullable
// column, a text that is not one char), and whether reading one makes texts.
bool can_be_bad(const ir::QuerySite& q);
bool reads_text(const ir::QuerySite& q);

// PostgreSQL fmgr V1 entry point for an exported function.
std::string pg_entry_point(const ir::Function& f);

}  // namespace keal::emit
