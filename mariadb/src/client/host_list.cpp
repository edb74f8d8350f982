// A list of servers in one URL, and connecting to the first that answers.
#include "sluice/mariadb/host_list.hpp"

#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "url_parts.hpp"

namespace sluice::mariadb {

std::string server_name(const ServerAddress& server) {
    if (!server.unix_socket.empty()) return server.unix_socket;
    const bool v6 = server.host.find(':') != std::string::npos;
    return (v6 ? "[" + server.host + "]" : server.host) + ":" + std::to_string(server.port);
}

std::vector<ServerAddress> servers_of(const ConnectOptions& options) {
    if (!options.hosts.empty()) return options.hosts;
    return {ServerAddress{options.host, options.port, options.unix_socket}};
}

ConnectOptions for_server(const ConnectOptions& options, std::size_t index) {
    const std::vector<ServerAddress> all = servers_of(options);
    ConnectOptions one = options;
    one.hosts.clear();
    const ServerAddress& s = all.at(index % all.size());
    one.host = s.host.empty() ? options.host : s.host;
    one.port = s.port;
    one.unix_socket = s.unix_socket;
    return one;
}

std::vector<ServerAddress> parse_host_list(std::string_view authority) {
    std::vector<ServerAddress> out;
    for (std::size_t at = 0;;) {
        const std::size_t comma = authority.find(',', at);
        const std::string_view entry = authority.substr(at, comma == std::string_view::npos ? comma : comma - at);
        const std::string what = "host " + std::to_string(out.size() + 1) + " of the list";
        if (entry.empty()) throw Error(ErrorKind::usage, "invalid URL: " + what + " is empty (HOST1:PORT1,HOST2:PORT2)");
        ServerAddress s = detail::parse_server(entry, what);
        // A socket has no place in a list: the list is for servers on
        // different machines (and the TLS name is the host's).
        if (!s.unix_socket.empty())
            throw Error(ErrorKind::usage, "invalid URL: " + what + " is a socket path; a list holds TCP hosts only");
        if (s.host.empty()) throw Error(ErrorKind::usage, "invalid URL: " + what + " has no host name");
        out.push_back(std::move(s));
        if (comma == std::string_view::npos) break;
        at = comma + 1;
    }
    return out;
}

Connection connect_in_order(const ConnectOptions& options, std::size_t first, std::size_t* chosen) {
    const std::vector<ServerAddress> all = servers_of(options);
    std::string failures;
    for (std::size_t n = 0; n < all.size(); ++n) {
        const std::size_t i = (first + n) % all.size();
        try {
            Connection c = Connection::connect(for_server(options, i));
            if (chosen) *chosen = i;
            return c;
        } catch (const Error& e) {
            failures += (failures.empty() ? "" : "; ") + server_name(all[i]) + ": " + e.what();
            if (n + 1 < all.size()) continue;
            const std::string message = all.size() == 1 ? std::string(e.what())
                                                        : "no server of the list answered (" + failures + ")";
            if (e.kind() == ErrorKind::server) throw Error(e.server_code(), std::string(e.sqlstate()), message);
            throw Error(e.kind(), message);
        }
    }
    throw Error(ErrorKind::usage, "a list of no servers");  // servers_of never returns an empty list
}

}  // namespace sluice::mariadb
