#include <optional>
#include <string>

#include "sluice/postgres/connection.hpp"

namespace sluice::postgres {

std::string resolve_conninfo(const std::optional<std::string>& url, const std::optional<std::string>& database_url) {
    if (url && !url->empty()) return *url;
    if (database_url && !database_url->empty()) return *database_url;
    return "";  // libpq reads the PG* variables
}

}  // namespace sluice::postgres
