// AsyncPipeline against a hostile server: the blocking pipeline's hostile
// cases (pipeline_hostile_test.cpp) through the read-ahead run: too few
// replies, too many, a reply out of step. Each ends in the blocking
// pipeline's Error, with the connection broken and the results read
// before the failure delivered.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "async_drive.hpp"
#include "hostile_server.hpp"
#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/async_pipeline.hpp"

namespace sluice::mariadb {
namespace {

using test::HostilePeer;
using test::HostileServer;

#define EXPECT_MESSAGE_HAS(error, text)                                  \
    EXPECT_NE(std::string((error).what()).find(text), std::string::npos) \
        << "message: " << (error).what()

void read_commands(HostilePeer& peer, int n) {
    for (int i = 0; i < n; ++i) peer.read_packet();
}

AsyncConnection connect_to(const HostileServer& server) {
    AsyncConnection c;
    c.start_connect(server.options());
    test::drive(c);
    c.finish();
    return c;
}

// Runs the pipeline, which must fail; returns the Error.
Error run_error(AsyncConnection& c, AsyncPipeline& p) {
    c.start_pipeline(p);
    test::drive(c);
    try {
        c.take_pipeline_summary();
    } catch (const Error& e) {
        return e;
    }
    throw std::logic_error("expected the pipeline to fail");
}

TEST(HostileAsyncPipeline, TooFewRepliesThenCloseSaysWhichStepsCompleted) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 3);
        peer.send_packet(1, test::ok_payload());
        peer.send_packet(1, test::ok_payload());
        // The third reply never comes: the server hangs up.
    });
    AsyncConnection c = connect_to(server);
    std::vector<std::size_t> delivered;
    AsyncPipeline p(c);
    for (int i = 0; i < 3; ++i) p.ping([&](StepResult& r) { delivered.push_back(r.index()); });
    Error e = run_error(c, p);
    EXPECT_EQ(e.kind(), ErrorKind::closed);
    EXPECT_MESSAGE_HAS(e, "2 of 3 steps completed");
    EXPECT_MESSAGE_HAS(e, "1 sent with no reply read");
    EXPECT_MESSAGE_HAS(e, "from step 2");
    EXPECT_MESSAGE_HAS(e, "127.0.0.1:" + std::to_string(server.options().port));
    EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1}));
    EXPECT_TRUE(c.broken());
    server.finish();
}

TEST(HostileAsyncPipeline, TooManyRepliesAreAProtocolErrorAtTheEnd) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 2);
        // Three OKs for two commands, in one write.
        std::vector<std::uint8_t> replies;
        for (int i = 0; i < 3; ++i) {
            const std::vector<std::uint8_t> ok = test::ok_payload();
            replies.insert(replies.end(), {static_cast<std::uint8_t>(ok.size()), 0, 0, 1});
            replies.insert(replies.end(), ok.begin(), ok.end());
        }
        peer.send_raw(replies);
        peer.wait_for_client_close();
    });
    AsyncConnection c = connect_to(server);
    std::size_t delivered = 0;
    AsyncPipeline p(c);
    p.ping([&](StepResult& r) { if (!r.failed()) ++delivered; });
    p.ping([&](StepResult& r) { if (!r.failed()) ++delivered; });
    Error e = run_error(c, p);
    EXPECT_EQ(e.kind(), ErrorKind::protocol);
    EXPECT_MESSAGE_HAS(e, "more replies than the pipeline's 2 steps");
    EXPECT_EQ(delivered, 2u);  // both steps had their (first) reply
    EXPECT_TRUE(c.broken());
    server.finish();
}

TEST(HostileAsyncPipeline, AReplyOutOfStepIsAProtocolErrorNamingTheSequence) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 2);
        peer.send_packet(1, test::ok_payload());
        peer.send_packet(2, test::ok_payload());  // a reply starts at 1
        peer.wait_for_client_close();
    });
    AsyncConnection c = connect_to(server);
    std::vector<std::size_t> delivered;
    AsyncPipeline p(c);
    p.ping([&](StepResult& r) { delivered.push_back(r.index()); });
    p.ping([&](StepResult& r) { delivered.push_back(r.index()); });
    Error e = run_error(c, p);
    EXPECT_EQ(e.kind(), ErrorKind::protocol);
    EXPECT_MESSAGE_HAS(e, "1 of 2 steps completed");
    EXPECT_MESSAGE_HAS(e, "has sequence id 2, expected 1");
    EXPECT_EQ(delivered, (std::vector<std::size_t>{0}));
    EXPECT_TRUE(c.broken());
    server.finish();
}

}  // namespace
}  // namespace sluice::mariadb
