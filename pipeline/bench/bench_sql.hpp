#pragma once
// The SQL both pipeline benchmarks run on the source and the sink.
#include <string>
#include <vector>

#include "sluice/mariadb/mariadb.hpp"
#include "sluice/postgres/connection.hpp"

namespace sluice::pipeline_bench {

// The first column of the first row as text ("" for none or NULL); the
// other rows are read and dropped.
std::string scalar(mariadb::Connection& source, const std::string& query);

// The statements in one transaction.
void commit_transaction(mariadb::Connection& source, const std::vector<std::string>& sql);

// A fresh sink: the tables of sink `name` dropped, and its state rows (that
// of a single process, and the workers' "name#I/N") deleted.
void drop_sink(postgres::Connection& sink, const std::string& name);

}  // namespace sluice::pipeline_bench
