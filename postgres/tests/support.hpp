#pragma once
// The private PostgreSQL of the `servers` fixture, for the layer's tests.
#include <string>

#include "sluice/postgres/connection.hpp"

namespace sluice::postgres::test {

// SLUICE_PG_URL from the servers' env file.
std::string server_url();
// A new session on it, notices discarded.
Connection connect();

}  // namespace sluice::postgres::test
