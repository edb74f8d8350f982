#pragma once
// Finding the private servers from a test: the env file's keys turned into
// ConnectOptions for each account.
#include <string>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"
#include <stdexcept>

namespace sluice::mariadb::test {

inline const EnvFile& env() {
    static const EnvFile file = EnvFile::from_environment();
    return file;
}

// TCP to 127.0.0.1, the `sluice` database, TLS off unless a test asks.
inline ConnectOptions options_for(const std::string& user_key, const std::string& password_key) {
    ConnectOptions o;
    o.host = env().require("SLUICE_HOST");
    o.port = static_cast<std::uint16_t>(std::stoi(env().require("SLUICE_MARIADB_PORT")));
    o.user = env().require(user_key);
    if (!password_key.empty()) o.password = env().require(password_key);
    o.database = env().require("SLUICE_MARIADB_DATABASE");
    o.timeouts.connect = std::chrono::seconds(10);
    o.timeouts.read = std::chrono::seconds(60);
    o.timeouts.write = std::chrono::seconds(60);
    return o;
}

inline ConnectOptions admin_options() {
    return options_for("SLUICE_MARIADB_ADMIN_USER", "SLUICE_MARIADB_ADMIN_PASSWORD");
}

}  // namespace sluice::mariadb::test

namespace sluice::mariadb::test {
// The ErrorKind f throws; fails the test (via exception) if it throws none.
template <class F>
ErrorKind kind_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    throw std::logic_error("expected an Error");
}
}  // namespace sluice::mariadb::test
