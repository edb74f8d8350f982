#pragma once
#include <memory>

#include "workloads.hpp"

namespace sluice::mariadb::bench {
std::unique_ptr<Client> make_ours(const Target& target);
}
