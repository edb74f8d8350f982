#include "sluice/mariadb/options_problem.hpp"

namespace sluice::mariadb {

std::string options_problem(const ConnectOptions& o) {
    const bool verifies = o.ssl_mode && (*o.ssl_mode == SslMode::verify_ca || *o.ssl_mode == SslMode::verify_full);
    if (verifies && o.ssl_ca.empty() && o.ssl_capath.empty())
        return "ssl-mode=" + std::string(to_string(*o.ssl_mode)) + " needs a CA (ssl-ca or ssl-capath)";
    return {};
}

}  // namespace sluice::mariadb
