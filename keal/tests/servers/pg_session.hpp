#pragma once
// The PostgreSQL side of the three-server tests: the e2e tests' private
// database (keal deploy --db, e2e/keal_database.hpp), calls with the
// arguments bound as typed text parameters.
#include <string>
#include <vector>

#include "call_case.hpp"

namespace keal::servers {

// Deploys programs/<file_name> (--target pg) once per process.
void deploy_to_postgres(const std::string& file_name);

// SELECT function($1::bigint, ...) in the process's database.
Outcome run_on_postgres(const Call& call, const std::string& source_file);

// A query without parameters: its first value rendered as `result`, or the error.
Outcome query_on_postgres(const std::string& sql, Kind result, const std::string& source_file);

// A query without parameters: every row (render_rows), or the error.
Outcome rows_on_postgres(const std::string& sql, const std::vector<Kind>& columns, const std::string& source_file);

}  // namespace keal::servers
