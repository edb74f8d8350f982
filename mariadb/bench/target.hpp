#pragma once
// Where the benchmarks' server is and whom to log in as, read from the
// servers' env file (scripts/servers/start). Shared by mariadb_core_bench,
// mariadb_speed_bench and mariadb_metadata_cpu_bench.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb::bench {

struct Target {
    std::string host;
    std::uint16_t port = 0;
    std::string user;  // the mysql_native_password account
    std::string password;
    std::string database;
    std::string ca;  // for connect + TLS + auth (verify-full)
    std::string unix_socket;  // the server's unix socket, when the env names one (else empty)
};

// A template so that headers including this one need not see EnvFile.
template <typename Env>
Target target_from(const Env& env) {
    Target t;
    t.host = env.require("SLUICE_HOST");
    t.port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
    t.user = env.require("SLUICE_MARIADB_NATIVE_USER");
    t.password = env.require("SLUICE_MARIADB_NATIVE_PASSWORD");
    t.database = env.require("SLUICE_MARIADB_DATABASE");
    t.ca = env.require("SLUICE_CA");
    t.unix_socket = env.get("SLUICE_MARIADB_SOCKET").value_or("");
    return t;
}

// The servers' env file: the --env option, else $SLUICE_ENV_FILE.
inline std::string env_file_path(const std::string& from_option) {
    if (!from_option.empty()) return from_option;
    const char* e = std::getenv("SLUICE_ENV_FILE");
    if (!e) throw std::runtime_error("no --env and no SLUICE_ENV_FILE: start servers with scripts/servers/start");
    return e;
}

// The admin account over plain TCP: table setup, and the workloads that
// measure the protocol without TLS.
template <typename Env>
ConnectOptions admin_options_from(const Env& env) {
    ConnectOptions o;
    o.host = env.require("SLUICE_HOST");
    o.port = static_cast<std::uint16_t>(std::stoi(env.require("SLUICE_MARIADB_PORT")));
    o.user = env.require("SLUICE_MARIADB_ADMIN_USER");
    o.password = env.require("SLUICE_MARIADB_ADMIN_PASSWORD");
    o.database = env.require("SLUICE_MARIADB_DATABASE");
    o.ssl_mode = SslMode::disable;
    return o;
}

}  // namespace sluice::mariadb::bench
