#pragma once
// Aggregates (`export agg`) on each target. The parts (init, step, combine,
// inverse, final) are ordinary Keal functions emitted by c_emitter.cpp,
// over a pointer to the state struct (the state's record type); these emit
// what each host calls around them and how each installs the aggregate.

#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// ka_<aggregate>__<part>: the C name of a part.
std::string aggregate_part_c_name(const ir::Module& module, const ir::Function& part);
// The state parameters a part takes before its arguments:
// "S *st" (init, step, inverse), "S *st, const S *other" (combine), "const S *st" (final).
std::string aggregate_part_state_params(const ir::Module& module, const ir::Function& part);
// The C struct of the state.
std::string aggregate_state_c_type(const ir::Aggregate& agg);
// A C expression of the result type made from the state `st` (a pointer):
// the final part's call, or the one state field when there is no final.
std::string aggregate_result(const ir::Module& module, const ir::Aggregate& agg, const std::string& st);

// PostgreSQL: fmgr functions step, final, combine, serial and deserial
// (runtime/keal_pg_aggregate.h), and their CREATE FUNCTION / CREATE AGGREGATE.
std::string pg_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg);
std::string pg_aggregate_install_sql(const ir::Aggregate& agg, const std::string& library_path);

// SQLite: xStep, xFinal (also xValue) and xInverse, and their registration
// inside sqlite3_extension_init.
std::string sqlite_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg);
std::string sqlite_aggregate_registration(const ir::Aggregate& agg);

// MariaDB: an aggregate UDF (f_init, f_clear, f_add, f, f_deinit) and its
// CREATE AGGREGATE FUNCTION.
std::string mariadb_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg);
std::string mariadb_aggregate_install_sql(const ir::Aggregate& agg, const std::string& soname);

}  // namespace keal::emit
