#pragma once
// Entry points of the targets that run Keal inside another database's
// process through a plain C interface: SQLite loadable extensions and
// MariaDB UDF libraries. The C emitter emits the Keal functions (kf_*);
// these emit what the host calls, appended after them.

#include <string>

#include "ir/ir.hpp"

namespace keal::emit {

// One xFunc per exported function and sqlite3_extension_init registering
// them all (runtime/keal_sqlite.h).
std::string sqlite_entry_points(const ir::Module& module);

// f_init, f and f_deinit per exported function (runtime/keal_mariadb.h).
std::string mariadb_entry_points(const ir::Module& module);

// `sqlite3_result_<type>(ctx, v)` for a non-null value of `ret`.
std::string sqlite_result_call(const ir::Type& ret, const std::string& v);

// What a MariaDB UDF of this function returns: INTEGER, REAL or STRING.
const char* mariadb_return_kind(const ir::Type& ret);

// DROP FUNCTION IF EXISTS + CREATE FUNCTION ... SONAME for every exported
// function; `soname` is the library's file name inside the plugin_dir.
std::string mariadb_install_sql(const ir::Module& module, const std::string& soname);

// Shared by both: the C type of a parameter or result (scalars only: the
// checker allows no record parameters), and the kind suffix of the
// runtime's argument readers (int, float, bool, text, char, bytes).
std::string entry_c_type(const ir::Type& type);
const char* entry_reader(ir::Base base);

// A noinline wrapper `keal_call_<f>` around kf_<f>, and its name: the entry
// point calls it under __builtin_setjmp, which would otherwise be inlined
// into the same function and force the Keal function's locals out of
// registers into memory (the Collatz loop ran at half speed).
std::string entry_wrapper(const ir::Function& f);

}  // namespace keal::emit
