#pragma once
// Installing a Keal UDF library into a MariaDB server (through sluice's own
// MariaDB client): the library goes into the server's plugin_dir (which
// must be a directory on this machine that we can write: the private test
// server's is, see scripts/servers/lib/mariadb.sh), then CREATE FUNCTION
// ... SONAME for every exported function.

#include <string>

#include "ir/ir.hpp"

namespace keal::driver {

// Whether `url` names a MariaDB server (mariadb:// or mysql://).
bool is_mariadb_url(const std::string& url);

// Copies `so_path` into the server's plugin_dir (`plugin_dir` when not
// empty, else @@plugin_dir) under a content-unique name, and runs the
// install script. Returns the installed file's name; empty on failure, with
// `error` set.
std::string deploy_mariadb(const ir::Module& module, const std::string& so_path, const std::string& url,
                           const std::string& plugin_dir, const std::string& stem, std::string& error);

}  // namespace keal::driver
