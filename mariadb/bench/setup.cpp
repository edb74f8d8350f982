// Creates and fills the benchmark tables (run once per benchmark run, by the
// driver, as the admin user).
#include <string>

#include "sluice/mariadb/connection.hpp"
#include "workloads.hpp"

namespace sluice::mariadb::bench {

std::string wide_create_sql() {
    std::string sql = "CREATE TABLE bench_wide (c0 INT PRIMARY KEY";
    for (int k = 1; k <= wide_int_columns; ++k) sql += ", c" + std::to_string(k) + " INT NOT NULL";
    for (int k = wide_int_columns + 1; k < wide_columns; ++k) sql += ", c" + std::to_string(k) + " VARCHAR(24) NOT NULL";
    return sql + ")";
}

std::string wide_fill_sql() {
    std::string sql = "INSERT INTO bench_wide SELECT seq";
    for (int k = 1; k <= wide_int_columns; ++k) sql += ", seq * " + std::to_string(k) + " % 100000";
    for (int k = wide_int_columns + 1; k < wide_columns; ++k) sql += ", CONCAT('v', seq, '-', " + std::to_string(k) + ")";
    return sql + " FROM seq_1_to_" + std::to_string(wide_rows);
}

}  // namespace sluice::mariadb::bench
