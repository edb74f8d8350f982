#pragma once
// The private MariaDB with Keal UDF libraries installed by `keal deploy
// --db mariadb://...`, and calls of their functions as prepared statements
// (sluice's own client): the MariaDB side of the three-server tests. UDFs
// are global to the server: the ctest entries that deploy hold one
// RESOURCE_LOCK (CMakeLists.txt).
#include <string>

#include "call_case.hpp"
#include "sluice/mariadb/connection.hpp"

namespace keal::servers {

// $SLUICE_MARIADB_URL of the private servers ($SLUICE_ENV_FILE).
std::string mariadb_url();

// `keal deploy programs/<file_name> --db <mariadb_url()>`, once per process.
void deploy_to_mariadb(const std::string& file_name);

class MariadbSession {
public:
    MariadbSession();

    // SELECT function(?, ...) prepared, the arguments bound by their kinds.
    Outcome run(const Call& call, const std::string& source_file);
    // A text query's first value, or the error.
    Outcome query(const std::string& sql, Kind result, const std::string& source_file);

    sluice::mariadb::Connection& connection() { return conn_; }

private:
    sluice::mariadb::Connection conn_;
};

}  // namespace keal::servers
