// The --metrics server on a real socket, read with cpp-httplib's client.
#include "sluice/service/http_server.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

using namespace sluice::service;

namespace {

struct Fixture {
    Registry registry;
    Health health;
    Figures figures;
    Monitor monitor{{"prog", "mariadb://u:secretpw@h:1/", "stdout"}, registry, health, [this] { return figures; }};
    Fixture() { registry.counter("sluice_cdc_transactions_total", "t").add(7); }
};

}  // namespace

TEST(HttpServer, PortZeroPicksAFreePortAndServesEveryPath) {
    Fixture f;
    HttpServer server(parse_listen_address("127.0.0.1:0"), f.monitor);
    ASSERT_GT(server.port(), 0);
    EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/");
    httplib::Client c("127.0.0.1", server.port());

    auto m = c.Get("/metrics");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->status, 200);
    EXPECT_EQ(m->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_NE(m->body.find("sluice_cdc_transactions_total 7\n"), std::string::npos);

    auto h = c.Get("/healthz");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->status, 200);
    EXPECT_EQ(h->body, "ok\n");
    f.health.problem("source", "cannot connect to mariadb://u:secretpw@h:1/");
    h = c.Get("/healthz");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->status, 503);
    EXPECT_EQ(h->body, "source: cannot connect to mariadb://u:***@h:1/\n");
    f.health.ok("source");
    EXPECT_EQ(c.Get("/healthz")->status, 200);

    auto s = c.Get("/status");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->get_header_value("Content-Type"), "application/json");
    EXPECT_NE(s->body.find("\"transactions\":0"), std::string::npos);
    EXPECT_EQ(s->body.find("secretpw"), std::string::npos);

    auto page = c.Get("/");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(page->body.find("<svg id=\"rows_chart\""), std::string::npos);
    // No external assets: everything the page needs is in it.
    EXPECT_EQ(page->body.find("src=\"http"), std::string::npos);
    EXPECT_EQ(page->body.find("href=\"http"), std::string::npos);

    EXPECT_EQ(c.Get("/nothing")->status, 404);
}

TEST(HttpServer, BindsOnlyTheAddressGiven) {
    Fixture f;
    HttpServer server(parse_listen_address("127.0.0.1:0"), f.monitor);
    // 127.0.0.2 is this machine too (the loopback /8), but not the address bound.
    httplib::Client other("127.0.0.2", server.port());
    other.set_connection_timeout(2);
    EXPECT_FALSE(other.Get("/healthz"));
    httplib::Client same("127.0.0.1", server.port());
    EXPECT_TRUE(same.Get("/healthz"));
}

TEST(HttpServer, ATakenPortIsAClearError) {
    Fixture f;
    HttpServer first(parse_listen_address("127.0.0.1:0"), f.monitor);
    try {
        HttpServer second(parse_listen_address("127.0.0.1:" + std::to_string(first.port())), f.monitor);
        FAIL() << "bound a port already in use";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
                  std::string::npos);
    }
}

TEST(HttpServer, ListenAddressesAreParsedOrRefusedByName) {
    EXPECT_EQ(parse_listen_address("127.0.0.1:9187").port, 9187);
    EXPECT_EQ(parse_listen_address("[::1]:0").host, "::1");
    EXPECT_THROW(parse_listen_address("127.0.0.1"), std::invalid_argument);
    EXPECT_THROW(parse_listen_address(":80"), std::invalid_argument);
    EXPECT_THROW(parse_listen_address("h:99999"), std::invalid_argument);
    EXPECT_THROW(parse_listen_address("h:8x"), std::invalid_argument);
    try {
        parse_listen_address("localhost:port");
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "--metrics \"localhost:port\": port \"port\" is not a number in [0, 65535]");
    }
}
