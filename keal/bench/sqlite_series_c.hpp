#pragma once
// The hand-written control for the SQLite rows of keal_servers_bench's
// "srf sqlite" table: series_c(n), an eponymous-only virtual table giving
// (i, i * i) for i in 1..n with the square checked (an overflow is an
// error), n a required hidden column, as a C programmer would write it
// after ext/misc/series.c. No argument type checks, no cancellation poll:
// what the Keal table-valued function does beyond it is its own cost.
#include <sqlite3.h>

namespace keal::bench {

// Registers series_c on db; returns sqlite3_create_module_v2's code.
int register_series_c(sqlite3* db);

}  // namespace keal::bench
