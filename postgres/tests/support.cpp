#include "support.hpp"

#include "sluice/common/env_file.hpp"

namespace sluice::postgres::test {

std::string server_url() { return sluice::EnvFile::from_environment().require("SLUICE_PG_URL"); }

Connection connect() {
    Connection c = Connection::open(server_url());
    c.set_notice_handler({});
    return c;
}

}  // namespace sluice::postgres::test
