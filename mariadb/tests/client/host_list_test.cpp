// A list of servers in a URL (host_list.hpp), on values alone.
#include <gtest/gtest.h>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/host_list.hpp"

namespace sluice::mariadb {
namespace {

TEST(HostList, AUrlWithSeveralHostsListsThemInOrderWithDefaultPorts) {
    ConnectOptions o = parse_url("mariadb://u:p%40ss@db1:3307,db2,[::1]:3309/app?ssl-mode=require");
    ASSERT_EQ(o.hosts.size(), 3U);
    EXPECT_EQ(o.hosts[0], (ServerAddress{"db1", 3307, ""}));
    EXPECT_EQ(o.hosts[1], (ServerAddress{"db2", 3306, ""}));
    EXPECT_EQ(o.hosts[2], (ServerAddress{"::1", 3309, ""}));
    // The first is also host/port, for code that knows one server only.
    EXPECT_EQ(o.host, "db1");
    EXPECT_EQ(o.port, 3307);
    EXPECT_EQ(o.user, "u");
    EXPECT_EQ(o.password, "p@ss");
    EXPECT_EQ(o.database, "app");
    EXPECT_EQ(o.ssl_mode, SslMode::require);
    EXPECT_EQ(server_name(o.hosts[2]), "[::1]:3309");
}

TEST(HostList, OneHostMakesNoList) {
    ConnectOptions o = parse_url("mariadb://u@db1:3307/app");
    EXPECT_TRUE(o.hosts.empty());
    ASSERT_EQ(servers_of(o).size(), 1U);
    EXPECT_EQ(servers_of(o)[0], (ServerAddress{"db1", 3307, ""}));
}

TEST(HostList, ForServerKeepsEverythingButTheHost) {
    ConnectOptions o = parse_url("mariadb://u:p@a:1,b:2/db?ssl-ca=/ca.pem&connect-timeout=3");
    ConnectOptions second = for_server(o, 1);
    EXPECT_TRUE(second.hosts.empty());
    EXPECT_EQ(second.host, "b");
    EXPECT_EQ(second.port, 2);
    EXPECT_EQ(second.user, "u");
    EXPECT_EQ(second.password, "p");
    EXPECT_EQ(second.database, "db");
    EXPECT_EQ(second.ssl_ca, "/ca.pem");
    EXPECT_EQ(second.timeouts.connect, std::chrono::milliseconds(3000));
    // Per host: the default TLS mode is decided on each host's own peer.
    EXPECT_EQ(second.effective_ssl_mode(PeerLocality::network), SslMode::verify_full);
}

TEST(HostList, BadEntriesAreNamedByTheirPlaceInTheList) {
    auto message = [](const std::string& url) {
        try {
            parse_url(url);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("mariadb://u@a:1,,b:2/").find("host 2 of the list is empty"), std::string::npos);
    EXPECT_NE(message("mariadb://u@a:1,b:99999/").find("port 99999 out of range"), std::string::npos);
    EXPECT_NE(message("mariadb://u@a:1,:5/").find("host 2 of the list has no host name"), std::string::npos);
    EXPECT_NE(message("mariadb://u@a,%2Ftmp%2Fs.sock/").find("host 2 of the list is a socket path"),
              std::string::npos);
    EXPECT_NE(message("mariadb://u@a,[::1/").find("unterminated '[' in host 2 of the list"), std::string::npos);
    EXPECT_NE(message("mariadb://u@a,b/?socket=/tmp/s").find("socket= cannot go with a list of hosts"),
              std::string::npos);
}

}  // namespace
}  // namespace sluice::mariadb
