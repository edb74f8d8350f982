// nats::Error on values alone (no server): which libnats statuses and
// JetStream API answers are transient, and the common interface.
#include <gtest/gtest.h>
#include <nats/nats.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "sluice/common/error.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/nats/error.hpp"

namespace sluice::nats {
namespace {

Error thrown(int status, int js_code = 0) {
    try {
        throw_nats(status, js_code, "stream info of \"S\"");
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "throw_nats returned";
    return Error(ErrorKind::protocol, "none");
}

TEST(NatsError, LostConnectionsAndTimeoutsAreTransient) {
    EXPECT_EQ(thrown(NATS_TIMEOUT).kind(), ErrorKind::timeout);
    EXPECT_EQ(thrown(NATS_NO_RESPONDERS).kind(), ErrorKind::timeout);  // a leader election
    EXPECT_EQ(thrown(NATS_CONNECTION_CLOSED).kind(), ErrorKind::closed);
    EXPECT_EQ(thrown(NATS_CONNECTION_DISCONNECTED).kind(), ErrorKind::closed);
    EXPECT_EQ(thrown(NATS_STALE_CONNECTION).kind(), ErrorKind::closed);
    EXPECT_EQ(thrown(NATS_NO_SERVER).kind(), ErrorKind::io);
    EXPECT_EQ(thrown(NATS_IO_ERROR).kind(), ErrorKind::io);
    for (int s : {NATS_TIMEOUT, NATS_NO_RESPONDERS, NATS_CONNECTION_CLOSED, NATS_NO_SERVER, NATS_IO_ERROR}) {
        EXPECT_TRUE(thrown(s).transient()) << natsStatus_GetText(static_cast<natsStatus>(s));
        EXPECT_TRUE(common::is_transient(thrown(s)));
    }
}

TEST(NatsError, OnlyTheClustersElectionAnswersAmongApiErrorsAreTransient) {
    for (int code : {JSClusterNotAvailErr, JSClusterNotLeaderErr, JSClusterNoPeersErr, JSInsufficientResourcesErr}) {
        const Error e = thrown(NATS_ERR, code);
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.api_code(), code);
        EXPECT_TRUE(e.transient()) << code;
    }
    for (int code : {JSStreamNotFoundErr, JSStreamWrongLastSequenceErr, JSStreamNameExistErr}) {
        const Error e = thrown(NATS_ERR, code);
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_FALSE(e.transient()) << code;
    }
    EXPECT_NE(std::string(thrown(NATS_ERR, JSStreamNotFoundErr).what()).find("(JetStream error 10059)"),
              std::string::npos);
}

TEST(NatsError, UsageAndUnexpectedAnswersAreNot) {
    EXPECT_EQ(thrown(NATS_INVALID_ARG).kind(), ErrorKind::usage);
    EXPECT_EQ(thrown(NATS_INVALID_SUBJECT).kind(), ErrorKind::usage);
    EXPECT_EQ(thrown(NATS_PROTOCOL_ERROR).kind(), ErrorKind::protocol);
    EXPECT_FALSE(thrown(NATS_INVALID_ARG).transient());
    EXPECT_FALSE(thrown(NATS_PROTOCOL_ERROR).transient());
}

TEST(NatsError, TheCommonInterfaceNamesThePartAndTheKind) {
    const Error e = thrown(NATS_TIMEOUT);
    const common::Error& base = e;
    EXPECT_EQ(base.part(), "nats");
    EXPECT_EQ(base.kind_name(), "timeout");
    EXPECT_EQ(base.describe(), std::string(e.what()) + " (timeout)");
    EXPECT_EQ(std::string(e.what()).rfind("stream info of \"S\": ", 0), 0U) << e.what();
    EXPECT_EQ(to_string(ErrorKind::server), "server");
    EXPECT_EQ(to_string(ErrorKind::usage), "usage");
}

TEST(NatsError, ABadUrlIsAUsageErrorNamingIt) {
    for (const char* urls : {"", " , ", "http://127.0.0.1:4222", "nats://127.0.0.1:4222,127.0.0.1:4223"}) {
        try {
            JetStreamClient::connect(urls);
            ADD_FAILURE() << "connected to \"" << urls << "\"";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage) << urls;
            EXPECT_FALSE(e.transient());
        }
    }
    try {
        JetStreamClient::connect("http://127.0.0.1:4222");
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "\"http://127.0.0.1:4222\": expected a nats://HOST:PORT URL");
    }
}

// No server on the port (a socket bound there, not listening, so that
// nothing else takes it meanwhile): io, worth retrying.
TEST(NatsError, NoServerListeningIsATransientIoError) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    const std::string url = "nats://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    try {
        JetStreamClient::connect(url);
        ADD_FAILURE() << "connected to " << url;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io) << e.what();
        EXPECT_TRUE(e.transient());
        EXPECT_NE(std::string(e.what()).find("connecting to NATS at " + url), std::string::npos) << e.what();
    }
    ::close(fd);
}

}  // namespace
}  // namespace sluice::nats
