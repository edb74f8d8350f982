#pragma once
// Runs the system's C compiler on emitted C: a PostgreSQL shared object or a
// native executable. A cc failure on checked input is a compiler bug and is
// reported as an internal compiler error.

#include <string>
#include <vector>

#include "emit/c_emitter.hpp"

namespace keal::driver {

struct ProcessResult {
  int exit_code = -1;  // -1: could not start, or killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (looked up in PATH) with the arguments, capturing its output.
ProcessResult run_process(const std::vector<std::string>& argv);

// The folder of keal's runtime headers (runtime/) and archives: KEAL_RESOURCE_RELATIVE
// from the running program's own folder (installed: <bindir>/../lib/sluice/keal).
std::string resource_dir();
// Where the runtime headers are: $KEAL_RUNTIME_DIR, else resource_dir()/runtime.
std::string runtime_dir();
// PostgreSQL's server headers: $KEAL_PG_INCLUDEDIR, else pg_config's at build time.
std::string pg_include_dir();
// Where libpgcommon_shlib.a and libpgport_shlib.a are (KEAL_PG_LIBDIR).
std::string pg_lib_dir();
// MariaDB's mysql.h (UDF_INIT, UDF_ARGS): $KEAL_MARIADB_INCLUDEDIR, else
// Connector/C's include directory found at build time.
std::string mariadb_include_dir();
// The C compiler: $KEAL_CC, else $CC, else "cc".
std::string c_compiler();
// What a native program with embedded SQL links besides -lpq and -lstdc++:
// the runtime archive ($KEAL_NATIVE_SQL_LIB, else resource_dir()'s
// libkeal_native_sql.a) and the libpq layer it uses ($KEAL_PG_LAYER_LIB,
// else resource_dir()'s libsluice_postgres_standalone.a).
std::vector<std::string> native_sql_archives();
// libkeal_json.a (KEAL_JSON_LIB overrides): the JSON reader of array
// parameters on SQLite and MariaDB (runtime/keal_json_array.h).
std::string json_archive();

// Compiles C into `output` (a .so for Pg, Sqlite and Mariadb, an executable
// for Native). On failure `error` holds the compiler's output. A native
// program with `embedded_sql` also links the SQL client runtime
// (native_sql_archives()).
bool compile_c(const std::string& c_code, emit::Flavour flavour, const std::string& output, std::string& error,
               bool embedded_sql = false);

// A fresh private directory under $TMPDIR (or /tmp); removed by the caller.
std::string make_temp_dir();
void remove_tree(const std::string& path);

}  // namespace keal::driver
