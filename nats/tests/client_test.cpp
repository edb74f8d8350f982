// The JetStream client against a three-node NATS cluster of the program's
// own (no other server): streams, stored messages, publishing with an
// expected sequence, ordered reads, and the errors' kinds on a live server.
#include <gtest/gtest.h>
#include <nats/nats.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "jetstream_reads.hpp"
#include "nats_cluster.hpp"
#include "sluice/common/error.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/nats/error.hpp"
#include "sluice/nats/stream_reader.hpp"

namespace sluice::nats {
namespace {

class NatsClient : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cluster_ = new test::NatsCluster("nats-client"); }
    static void TearDownTestSuite() {
        delete cluster_;
        cluster_ = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(cluster_->started()) << cluster_->log();
        client_.emplace(JetStreamClient::connect(cluster_->urls()));
        // A cluster just started answers the JetStream API only once it has
        // elected its meta leader.
        test::last_seq(*client_, "NOT_A_STREAM");
    }
    // A new, empty stream of one subject, its name.
    std::string fresh(const std::string& name) {
        client_->delete_stream(name);
        client_->add_stream({name, {name}, 1});
        return name;
    }
    // The error a call throws (FAIL when it throws none).
    template <typename F>
    static Error error_of(F&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e;
        }
        ADD_FAILURE() << "no nats::Error thrown";
        return Error(ErrorKind::protocol, "none");
    }

    static test::NatsCluster* cluster_;
    std::optional<JetStreamClient> client_;
};
test::NatsCluster* NatsClient::cluster_ = nullptr;

TEST_F(NatsClient, AStreamHoldsWhatIsPublishedWithItsHeadersInOrder) {
    const std::string s = fresh("NATS_STORE");
    auto empty = client_->stream_state(s);
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->messages, 0U);
    EXPECT_EQ(empty->last_seq, 0U);
    EXPECT_EQ(empty->subjects, std::vector<std::string>{s});
    EXPECT_EQ(empty->replicas, 1);
    EXPECT_EQ(client_->publish(s, "one", {{"H-A", "a1"}, {"H-B", "b1"}}), 1U);
    EXPECT_EQ(client_->publish(s, "two", {}), 2U);
    auto state = client_->stream_state(s);
    ASSERT_TRUE(state);
    EXPECT_EQ(state->messages, 2U);
    EXPECT_EQ(state->first_seq, 1U);
    EXPECT_EQ(state->last_seq, 2U);
    const StoredMessage first = client_->message(s, 1);
    EXPECT_EQ(first.seq, 1U);
    EXPECT_EQ(first.subject, s);
    EXPECT_EQ(first.data, "one");
    EXPECT_EQ(first.header("H-A", s), "a1");
    EXPECT_EQ(first.header("H-B", s), "b1");
    const auto stored = test::stored_messages(*client_, s);
    ASSERT_EQ(stored.size(), 2U);
    EXPECT_EQ(stored[1].data, "two");
    EXPECT_TRUE(stored[1].headers.empty());
    // A header the writer did not set: a protocol error naming it and the message.
    const Error missing = error_of([&] { (void)stored[1].header("H-A", s); });
    EXPECT_EQ(missing.kind(), ErrorKind::protocol);
    EXPECT_FALSE(missing.transient());
    EXPECT_STREQ(missing.what(), "message 2 of stream \"NATS_STORE\" has no H-A header");
    EXPECT_TRUE(client_->delete_stream(s));
    EXPECT_FALSE(client_->delete_stream(s));
    EXPECT_FALSE(client_->stream_state(s));
}

// The publisher's chain: each message expects the stream's last sequence;
// the stream refuses one that expects another (JetStream error 10071, not
// transient: resynchronise, do not retry the same message).
TEST_F(NatsClient, AnExpectedLastSequenceIsEnforcedByTheStream) {
    const std::string s = fresh("NATS_EXPECT");
    auto publish_expecting = [&](const std::string& data, std::uint64_t expected_last) {
        natsMsg* m = nullptr;
        check_nats(natsMsg_Create(&m, s.c_str(), nullptr, data.data(), static_cast<int>(data.size())), 0, "message");
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.ExpectLastSeq = expected_last;
        jsPubAck* pa = nullptr;
        jsErrCode jerr = static_cast<jsErrCode>(0);
        const natsStatus st = js_PublishMsg(&pa, client_->context(), m, &po, &jerr);
        natsMsg_Destroy(m);
        if (pa) jsPubAck_Destroy(pa);
        check_nats(st, jerr, "publishing to " + s);
    };
    EXPECT_EQ(client_->publish(s, "first", {}), 1U);
    publish_expecting("second", 1);
    EXPECT_EQ(client_->stream_state(s)->last_seq, 2U);
    const Error wrong = error_of([&] { publish_expecting("stale", 1); });
    EXPECT_EQ(wrong.kind(), ErrorKind::server);
    EXPECT_EQ(wrong.api_code(), JSStreamWrongLastSequenceErr);
    EXPECT_FALSE(wrong.transient());
    EXPECT_NE(std::string(wrong.what()).find("publishing to NATS_EXPECT"), std::string::npos) << wrong.what();
    EXPECT_EQ(client_->stream_state(s)->last_seq, 2U);
    EXPECT_TRUE(client_->delete_stream(s));
}

TEST_F(NatsClient, AnOrderedReaderDeliversFromItsSequenceOn) {
    const std::string s = fresh("NATS_READ");
    for (int i = 1; i <= 5; ++i) client_->publish(s, "m" + std::to_string(i), {});
    StreamReader r = StreamReader::open(*client_, s, s, 3);
    for (std::uint64_t seq = 3; seq <= 5; ++seq) {
        auto m = r.next(std::chrono::seconds(10));
        ASSERT_TRUE(m) << "sequence " << seq;
        EXPECT_EQ(m->seq, seq);
        EXPECT_EQ(m->data, "m" + std::to_string(seq));
    }
    EXPECT_FALSE(r.pending());
    EXPECT_FALSE(r.next(std::chrono::milliseconds(200)));  // nothing more: nullopt, not an error
    client_->publish(s, "m6", {});
    auto later = r.next(std::chrono::seconds(10));
    ASSERT_TRUE(later);
    EXPECT_EQ(later->seq, 6U);
    EXPECT_TRUE(client_->delete_stream(s));
}

// Issue 25: a worker holds at most 32 MiB of NATS buffers. A stream of
// 48 MiB, not read for a moment and then read whole: the library never
// holds more than the bound, and no message is dropped as a slow consumer
// (flow control keeps the server from sending ahead), every one in order.
TEST_F(NatsClient, AReaderHoldsAtMostItsBoundOfUnreadMessagesAndReadsALargerStreamWhole) {
    const std::string s = fresh("NATS_BOUND");
    const std::size_t size = std::min<std::size_t>(512 * 1024, static_cast<std::size_t>(client_->max_payload()) - 1024);
    const std::uint64_t messages = (48U * 1024 * 1024) / size;
    const std::string body(size, 'b');
    for (std::uint64_t i = 0; i < messages; ++i) ASSERT_EQ(client_->publish(s, body, {}), i + 1);
    StreamReader r = StreamReader::open(*client_, s, s, 1);
    EXPECT_EQ(r.pending_limits().bytes, 32 * 1024 * 1024);
    EXPECT_EQ(r.pending_limits().messages, StreamReader::max_pending_messages);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the server send what it will; no assert on time
    int most = 0;
    for (std::uint64_t seq = 1; seq <= messages; ++seq) {
        most = std::max(most, r.pending_now().bytes);
        auto m = r.next(std::chrono::seconds(30));
        ASSERT_TRUE(m) << "sequence " << seq;
        ASSERT_EQ(m->seq, seq);
        ASSERT_EQ(m->data.size(), size);
    }
    EXPECT_LE(most, StreamReader::max_pending_bytes);
    EXPECT_TRUE(client_->delete_stream(s));
}

// A stream that does not exist: stream_state says so; asking it for a
// message is an error that retrying does not cure (libnats answers "not
// found" without the API's code: kind protocol).
TEST_F(NatsClient, AMissingStreamIsNotFoundAndNotTransient) {
    EXPECT_FALSE(client_->stream_state("NATS_NEVER"));
    const Error e = error_of([&] { client_->message("NATS_NEVER", 1); });
    EXPECT_EQ(e.kind(), ErrorKind::protocol) << e.what();
    EXPECT_FALSE(e.transient());
    EXPECT_FALSE(common::is_transient(e));
    EXPECT_NE(std::string(e.what()).find("message 1 of stream \"NATS_NEVER\": "), std::string::npos) << e.what();
    EXPECT_EQ(e.part(), "nats");
}

// Creating a stream whose name another stream holds with other subjects:
// a JetStream API error with its code, not transient.
TEST_F(NatsClient, AStreamNameInUseIsAnApiErrorWithItsCode) {
    const std::string s = fresh("NATS_TAKEN");
    const Error e = error_of([&] { client_->add_stream({s, {"OTHER_SUBJECT"}, 1}); });
    EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
    EXPECT_EQ(e.api_code(), JSStreamNameExistErr) << e.what();
    EXPECT_FALSE(e.transient());
    EXPECT_EQ(e.kind_name(), "server");
    EXPECT_NE(std::string(e.what()).find("(JetStream error 10058)"), std::string::npos) << e.what();
    EXPECT_TRUE(client_->delete_stream(s));
}

TEST_F(NatsClient, TheClientKnowsEveryNodeOfTheCluster) {
    EXPECT_GE(client_->known_servers(), 3U);
    EXPECT_GT(client_->max_payload(), 0);
}

// A reader dropped while the stream is still pouring messages into it (a
// worker's retry, or its end) with the client kept: libnats 3.4's read loop
// could hand a message to the freed subscription (a SIGSEGV in
// natsConn_processMsg, seen once in ~30 runs of the scaled-out kill test).
// Large messages keep the read loop busy between its lookup and its lock.
// The window is the read loop being descheduled there, so this does not
// reproduce the crash on demand (3 runs without the fix passed): it keeps
// the path exercised under ASan; the fix is by construction (client.hpp).
TEST_F(NatsClient, ReadersDroppedWhileMessagesPourInLeaveTheClientWorking) {
    JetStreamClient& c = *client_;
    c.delete_stream("DROPS");
    c.add_stream({"DROPS", {"DROPS"}, 1});
    const std::string big(256 * 1024, 'x');
    constexpr std::uint64_t messages = 60;
    for (std::uint64_t i = 0; i < messages; ++i) ASSERT_EQ(c.publish("DROPS", big, {}), i + 1);
    std::uint64_t read = 0;
    for (std::uint64_t round = 0; round < 60; ++round) {
        StreamReader r = StreamReader::open(c, "DROPS", "DROPS", 1 + round % 20);
        auto m = r.next(std::chrono::seconds(10));
        ASSERT_TRUE(m) << "round " << round;
        EXPECT_EQ(m->seq, 1U + round % 20);
        EXPECT_EQ(m->data.size(), big.size());
        ++read;
    }
    EXPECT_EQ(read, 60U);
    // The client still answers after all those readers.
    EXPECT_EQ(c.stream_state("DROPS")->last_seq, messages);
    EXPECT_TRUE(c.delete_stream("DROPS"));
}

}  // namespace
}  // namespace sluice::nats
