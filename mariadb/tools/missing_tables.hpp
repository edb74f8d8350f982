#pragma once
// `sluice-mariadb cdc --tables`: the listed tables that do not exist when
// the stream starts (issue 32). A warning, not an error: a table may be
// created later, and its changes are delivered from then on. `--tables
// sluice.nosuch` used to run silently (and pass other tables' DDL).
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/table_filter.hpp"
#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb::tools {

// One "--tables ENTRY: ..." text per entry that names nothing existing: a
// DB.TABLE that is not a table, a DB.* whose database does not exist.
// (*.TABLE entries are not checked: any database may hold one later.)
// Throws the connection's Error.
std::vector<std::string> missing_tables(const ConnectOptions& options, const cdc::TableFilter& filter);

}  // namespace sluice::mariadb::tools
