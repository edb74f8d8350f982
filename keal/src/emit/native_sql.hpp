#pragma once
// Embedded SQL in native programs: the C for each statement site, over the
// C ABI of runtime/keal_native_sql.h (libpq through sluice::postgres). The
// function bodies call the same names as in the PostgreSQL flavour
// (keal_q_one_N, keal_q_exec_N); a query loop opens keal_q_open_N, advances
// with keal_nsql_next, reads each row with keal_q_row_N and ends with
// keal_nsql_close (c_emitter.cpp emits the loop itself).

#include <cstddef>
#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// Site `index`'s descriptor (SQL text, line, parameter and column kinds),
// its row reader `keal_q_row_N(rows, copy)` (copy: texts outlive the row),
// and `keal_q_exec_N(...)`, `keal_q_one_N(...)` or
// `keal_q_open_N(..., int cursor)`.
std::string native_query_site(const ir::QuerySite& q, std::size_t index, const std::string& source_name);

// Whether running `block` can run embedded SQL: a statement in it, or a call
// of a function that reaches one. A query loop whose body can must read a
// cursor; one whose body cannot streams its rows.
bool block_runs_sql(const ir::Block& block, const ir::Module& module);

}  // namespace keal::emit
