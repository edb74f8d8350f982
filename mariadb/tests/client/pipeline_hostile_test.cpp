// Pipelines against a hostile server: too few replies (closing, or going
// silent), too many, and a reply out of step. Each ends in an Error saying
// how far the pipeline got, with the connection broken, and the results
// delivered before the failure kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hostile_server.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/pipeline.hpp"

namespace sluice::mariadb {
namespace {

using test::HostilePeer;
using test::HostileServer;

// Runs the pipeline's finish(), which must throw; returns the Error.
Error finish_error(Pipeline& p) {
    try {
        p.finish();
    } catch (const Error& e) {
        return e;
    }
    throw std::logic_error("expected finish() to throw");
}

#define EXPECT_MESSAGE_HAS(error, text)                                  \
    EXPECT_NE(std::string((error).what()).find(text), std::string::npos) \
        << "message: " << (error).what()

// The script's side of a pipeline of n one-packet commands: all of them
// arrive (in one write) before any reply is sent.
void read_commands(HostilePeer& peer, int n) {
    for (int i = 0; i < n; ++i) peer.read_packet();
}

TEST(HostilePipeline, TooFewRepliesThenCloseSaysWhichStepsCompleted) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 3);
        peer.send_packet(1, test::ok_payload());
        peer.send_packet(1, test::ok_payload());
        // The third reply never comes: the server hangs up.
    });
    Connection c = Connection::connect(server.options());
    std::vector<std::size_t> delivered;
    Pipeline p(c);
    for (int i = 0; i < 3; ++i) p.ping([&](StepResult& r) { delivered.push_back(r.index()); });
    Error e = finish_error(p);
    EXPECT_EQ(e.kind(), ErrorKind::closed);
    EXPECT_MESSAGE_HAS(e, "2 of 3 steps completed");
    EXPECT_MESSAGE_HAS(e, "1 sent with no reply read");
    EXPECT_MESSAGE_HAS(e, "from step 2");
    EXPECT_MESSAGE_HAS(e, "127.0.0.1:" + std::to_string(server.options().port));
    EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1}));
    EXPECT_TRUE(c.broken());
    server.finish();
}

TEST(HostilePipeline, TooFewRepliesThenSilenceEndsAtThePipelineDeadline) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 2);
        peer.send_packet(1, test::ok_payload());
        peer.wait_for_client_close();  // silent: only the deadline ends it
    });
    Connection c = Connection::connect(server.options());
    PipelineOptions o;
    o.deadline = std::chrono::milliseconds(200);  // well under the 5 s read timeout
    Pipeline p(c, o);
    p.ping();
    p.ping();
    Error e = finish_error(p);
    EXPECT_EQ(e.kind(), ErrorKind::timeout);
    EXPECT_MESSAGE_HAS(e, "1 of 2 steps completed");
    EXPECT_MESSAGE_HAS(e, "the pipeline's deadline is 200 ms");
    EXPECT_TRUE(c.broken());
    c.close();
    server.finish();
}

TEST(HostilePipeline, TooManyRepliesAreAProtocolErrorAtFinish) {
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
    Connection c = Connection::connect(server.options());
    std::size_t delivered = 0;
    Pipeline p(c);
    p.ping([&](StepResult& r) { if (!r.failed()) ++delivered; });
    p.ping([&](StepResult& r) { if (!r.failed()) ++delivered; });
    Error e = finish_error(p);
    EXPECT_EQ(e.kind(), ErrorKind::protocol);
    EXPECT_MESSAGE_HAS(e, "more replies than the pipeline's 2 steps");
    EXPECT_EQ(delivered, 2u);  // both steps had their (first) reply
    EXPECT_TRUE(c.broken());
    server.finish();
}

TEST(HostilePipeline, AReplyOutOfStepIsAProtocolErrorNamingTheSequence) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 2);
        peer.send_packet(1, test::ok_payload());
        peer.send_packet(2, test::ok_payload());  // a reply starts at 1
        peer.wait_for_client_close();
    });
    Connection c = Connection::connect(server.options());
    Pipeline p(c);
    p.ping();
    p.ping();
    Error e = finish_error(p);
    EXPECT_EQ(e.kind(), ErrorKind::protocol);
    EXPECT_MESSAGE_HAS(e, "1 of 2 steps completed");
    EXPECT_MESSAGE_HAS(e, "has sequence id 2, expected 1");
    EXPECT_TRUE(c.broken());
    server.finish();
}

TEST(HostilePipeline, AnErrorReplyFailsOnlyItsStep) {
    HostileServer server([](HostilePeer& peer) {
        test::play_login(peer);
        read_commands(peer, 3);
        peer.send_packet(1, test::ok_payload());
        // ERR 1105, SQLSTATE HY000.
        peer.send_packet(1, test::PacketBuilder{}.u8(0xFF).u16(1105).text("#HY000").text("unknown error").bytes);
        peer.send_packet(1, test::ok_payload());
        peer.wait_for_client_close();
    });
    Connection c = Connection::connect(server.options());
    Pipeline p(c);
    p.ping();
    p.ping();
    p.ping();
    PipelineSummary s = p.finish();
    EXPECT_EQ(s.succeeded, 2u);
    ASSERT_EQ(s.errors.size(), 1u);
    EXPECT_EQ(s.errors[0].first, 1u);
    EXPECT_EQ(s.errors[0].second.server_code(), 1105);
    EXPECT_FALSE(c.broken());
    c.close();
    server.finish();
}

}  // namespace
}  // namespace sluice::mariadb
