#pragma once
// Set-returning functions (`export fn f(...) -> rows(a: int, b: text?)`) on
// PostgreSQL and (emit/sqlite_rows.cpp) SQLite. The C emitter turns the body into a generator over a frame:
// `bool kf_f(kr_f *fr)` runs from where the last call stopped to the next
// `yield` (true, the row in fr->out) or to the end (false). These emit the
// frame's struct, the value-per-call fmgr entry point that keeps the frame
// in the SRF's multi_call_memory_ctx, and the RETURNS TABLE clause.

#include <string>
#include <utility>
#include <vector>

#include "ir/ir.hpp"

namespace keal::emit {

// The C name of f's frame struct.
std::string rows_frame_c_name(const ir::Function& f);

// `struct kr_f { int resume; <row> out; <fields> };`: fields are (C type,
// name) pairs: every local of f, then the loops' hidden counters.
std::string rows_frame_struct(const ir::Function& f, const std::vector<std::pair<std::string, std::string>>& fields);

// The fmgr V1 entry point of a rows function (value-per-call).
std::string pg_rows_entry_point(const ir::Function& f);

// `TABLE("a" bigint, "b" text)`: what the function RETURNS.
std::string rows_returns_sql(const ir::Function& f);

// SQLite: what runtime/keal_sqlite_rows.h's table-valued-function module
// needs of f (its schema, argument binder and column reader: a
// keal_sqlite_rows_info), and the sqlite3_extension_init lines that
// register it as an eponymous-only virtual table named f.
std::string sqlite_rows_entry_points(const ir::Function& f);
std::string sqlite_rows_registration(const ir::Function& f);

}  // namespace keal::emit
