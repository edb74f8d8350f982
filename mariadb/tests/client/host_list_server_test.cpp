// A list of servers against the real one: the hosts that do not answer are
// passed over, in order, for Connection and the pool; TLS per host.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include "server_env.hpp"
#include "sluice/mariadb/host_list.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/pool.hpp"

namespace sluice::mariadb {
namespace {

// A loopback port nothing listens on: bound (so nobody else takes it while
// the test runs) but never listening, so a connect is refused.
class RefusingPort {
public:
    RefusingPort() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("bind failed");
        socklen_t n = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
        port_ = ntohs(a.sin_port);
    }
    ~RefusingPort() { ::close(fd_); }
    std::uint16_t port() const { return port_; }

private:
    int fd_ = -1;
    std::uint16_t port_ = 0;
};

std::string list_url(const std::vector<std::string>& hosts, const std::string& query = "") {
    const ConnectOptions a = test::admin_options();
    std::string authority;
    for (const std::string& h : hosts) authority += (authority.empty() ? "" : ",") + h;
    return "mariadb://" + a.user + ":" + a.password + "@" + authority + "/" + a.database + query;
}

std::string real_server() { return "127.0.0.1:" + test::env().require("SLUICE_MARIADB_PORT"); }

std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::string>(0) : "";
    while (rs.next()) {
    }
    return v;
}

TEST(HostListServer, AConnectionPassesOverHostsThatRefuseAndKeepsTheFirstThatAnswers) {
    RefusingPort dead1, dead2;
    const std::string url = list_url({"127.0.0.1:" + std::to_string(dead1.port()),
                                      "127.0.0.1:" + std::to_string(dead2.port()), real_server()});
    Connection c = Connection::connect(url);
    EXPECT_EQ(scalar(c, "SELECT @@port"), test::env().require("SLUICE_MARIADB_PORT"));

    std::size_t chosen = 99;
    Connection again = connect_in_order(parse_url(url), 0, &chosen);
    EXPECT_EQ(chosen, 2U);
    // Starting further along the list (the change stream's failover).
    Connection from_real = connect_in_order(parse_url(url), 2, &chosen);
    EXPECT_EQ(chosen, 2U);
}

TEST(HostListServer, WhenNoHostAnswersTheErrorNamesEachOne) {
    RefusingPort dead1, dead2;
    const std::string a = "127.0.0.1:" + std::to_string(dead1.port());
    const std::string b = "127.0.0.1:" + std::to_string(dead2.port());
    try {
        Connection::connect(list_url({a, b}));
        FAIL() << "connected to no server";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io);  // the kind of the last failure: retry rules still apply
        const std::string m = e.what();
        EXPECT_NE(m.find("no server of the list answered"), std::string::npos) << m;
        EXPECT_NE(m.find(a + ": "), std::string::npos) << m;
        EXPECT_NE(m.find(b + ": "), std::string::npos) << m;
    }
}

TEST(HostListServer, TlsRulesApplyToEachHostOnItsOwn) {
    RefusingPort dead;
    const std::string ca = "&ssl-ca=" + test::env().require("SLUICE_CA");
    // verify-full: the certificate is checked against the name of the host
    // that answered (the server's names 127.0.0.1 and localhost).
    const std::string port = test::env().require("SLUICE_MARIADB_PORT");
    Connection verified = Connection::connect(
        list_url({"127.0.0.1:" + std::to_string(dead.port()), "localhost:" + port}, "?ssl-mode=verify-full" + ca));
    EXPECT_TRUE(verified.is_tls());
    // A failed verification of one host is that host's failure: the next
    // host of the list is tried with its own name.
    const std::string wrong = "&ssl-ca=" + test::env().require("SLUICE_WRONG_CA");
    try {
        Connection::connect(list_url({"localhost:" + port, "127.0.0.1:" + port}, "?ssl-mode=verify-full" + wrong));
        FAIL() << "verified against the wrong CA";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::tls);
        const std::string m = e.what();
        EXPECT_NE(m.find("localhost:" + port + ": "), std::string::npos) << m;
        EXPECT_NE(m.find("127.0.0.1:" + port + ": "), std::string::npos) << m;
    }
}

TEST(HostListServer, APoolConnectsThroughTheList) {
    RefusingPort dead;
    PoolOptions po;
    po.connect = parse_url(list_url({"127.0.0.1:" + std::to_string(dead.port()), real_server()}));
    po.max_size = 2;
    Pool pool(po);
    PooledConnection lease = pool.borrow();
    EXPECT_EQ(scalar(*lease, "SELECT @@port"), test::env().require("SLUICE_MARIADB_PORT"));
}

TEST(HostListServer, SluiceMariadbTakesAList) {
    RefusingPort dead;
    const std::string url = list_url({"127.0.0.1:" + std::to_string(dead.port()), real_server()});
    const std::string command = std::string(SLUICE_MARIADB_CLI) + " --format ndjson '" + url + "' 'SELECT @@port AS p' 2>&1";
    FILE* p = ::popen(command.c_str(), "r");
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    EXPECT_EQ(::pclose(p), 0) << out;
    EXPECT_EQ(out, "{\"p\":" + test::env().require("SLUICE_MARIADB_PORT") + "}\n");
}

}  // namespace
}  // namespace sluice::mariadb
