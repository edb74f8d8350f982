#pragma once
// Pieces of the mariadb:// URL parser (connect_options.cpp) that the host
// list parser (host_list.cpp) shares.
#include <string>
#include <string_view>

#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb::detail {

// %XX escapes decoded; Error{usage} naming `part` for a bad one.
std::string percent_decode(std::string_view s, std::string_view part);

// "host", "host:port", "[v6]:port" or a percent-encoded socket path; an
// empty host stays empty, a missing port is 3306. Error{usage} naming
// `what` (e.g. "host 2 of the list") otherwise.
ServerAddress parse_server(std::string_view authority, std::string_view what);

}  // namespace sluice::mariadb::detail
