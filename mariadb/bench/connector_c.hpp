#pragma once
// The control: the same workloads through MariaDB Connector/C (libmariadb).
#include <memory>

#include "workloads.hpp"

namespace sluice::mariadb::bench {
std::unique_ptr<Client> make_connector_c(const Target& target);
}
