#pragma once
// Checks of the source before anything is read: the table exists, the four
// mapped columns exist with usable types (ts an integer type, value a
// number type), and the server logs full row images.
#include "sluice/mariadb/connection.hpp"
#include "sluice/pipeline/pipeline.hpp"

namespace sluice::pipeline {

void check_source_table(mariadb::Connection& conn, const RunOptions& options);

}  // namespace sluice::pipeline
