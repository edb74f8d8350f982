// ReactorSocket (src/asio/reactor_socket.hpp) on a socketpair, no server:
// a read that left the socket empty makes the next read wait for the
// reactor instead of trying at once (the syscall a round trip saves), a read
// that filled its buffer does not, and end of stream, cancellation and
// release end a read as asio's own descriptors do.
#include <gtest/gtest.h>

#include <asio/io_context.hpp>

#include <array>
#include <optional>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reactor_socket.hpp"

namespace {

using sluice::mariadb::detail::ReactorSocket;

struct Pair {
    int ours = -1;
    int peer = -1;
    Pair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::system_error(errno, std::generic_category());
        ours = fds[0];
        peer = fds[1];
        ::fcntl(ours, F_SETFL, ::fcntl(ours, F_GETFL) | O_NONBLOCK);
    }
    ~Pair() {
        if (ours >= 0) ::close(ours);
        if (peer >= 0) ::close(peer);
    }
    void send(const std::string& s) const { ASSERT_EQ(::write(peer, s.data(), s.size()), static_cast<ssize_t>(s.size())); }
    // Bytes waiting on our end, read without taking them.
    ssize_t waiting() const {
        std::array<char, 4096> buf{};
        const ssize_t n = ::recv(ours, buf.data(), buf.size(), MSG_PEEK | MSG_DONTWAIT);
        return n < 0 ? 0 : n;
    }
};

// Runs what is ready (a context that ran out of work stays stopped until
// restarted).
void poll(asio::io_context& io) {
    io.restart();
    io.poll();
}

struct Read {
    std::optional<std::error_code> ec;
    std::size_t n = 0;
    auto handler() {
        return [this](const std::error_code& e, std::size_t bytes) {
            ec = e;
            n = bytes;
        };
    }
    // What it read, or <pending> / <the error>.
    std::string got(const char* buf) const {
        if (!ec) return "<pending>";
        if (*ec) return "<" + ec->message() + ">";
        return std::string(buf, n);
    }
};

// A socketpair whose first end is registered with io's reactor.
struct ReactorSocketTest : ::testing::Test {
    asio::io_context io;
    Pair p;
    ReactorSocket socket{io.get_executor()};
    ReactorSocketTest() { socket.assign(p.ours); }
};

TEST_F(ReactorSocketTest, AReadThatLeftTheSocketEmptyMakesTheNextOneWaitForTheReactor) {
    std::array<char, 100> buf{};

    // A reply read by the reactor, as a round trip's is: the read waits
    // first, the data comes after.
    Read first;
    socket.async_read_some(buf.data(), buf.size(), first.handler());
    poll(io);
    EXPECT_FALSE(first.ec.has_value());
    p.send("hello");
    poll(io);
    EXPECT_EQ(first.got(buf.data()), "hello");  // short: the socket is empty now

    // The reply to a request just sent: already here in this test, but the
    // read must not try before the reactor says so (asio's stream_descriptor
    // takes it at once: waiting() would be 0).
    p.send("world");
    Read second;
    socket.async_read_some(buf.data(), buf.size(), second.handler());
    EXPECT_EQ(p.waiting(), 5);
    EXPECT_FALSE(second.ec.has_value());
    poll(io);  // the reactor sees the edge and reads
    EXPECT_EQ(second.got(buf.data()), "world");
}

TEST_F(ReactorSocketTest, AReadThatFilledItsBufferLetsTheNextOneTryAtOnce) {
    std::array<char, 4> buf{};

    Read first;
    socket.async_read_some(buf.data(), buf.size(), first.handler());
    poll(io);
    p.send("abcdefgh");
    poll(io);
    EXPECT_EQ(first.got(buf.data()), "abcd");  // full: more may be waiting

    Read second;
    socket.async_read_some(buf.data(), buf.size(), second.handler());
    EXPECT_EQ(p.waiting(), 0);  // taken at once
    poll(io);
    EXPECT_EQ(second.got(buf.data()), "efgh");
}

TEST_F(ReactorSocketTest, EndOfStreamCancelAndReleaseEndAPendingRead) {
    std::array<char, 16> buf{};

    Read cancelled;
    socket.async_read_some(buf.data(), buf.size(), cancelled.handler());
    poll(io);
    EXPECT_FALSE(cancelled.ec.has_value());  // nothing came: still waiting
    socket.cancel();
    poll(io);
    ASSERT_TRUE(cancelled.ec.has_value());
    EXPECT_EQ(*cancelled.ec, asio::error::operation_aborted);

    Read released;
    socket.async_read_some(buf.data(), buf.size(), released.handler());
    poll(io);
    socket.release();
    poll(io);
    ASSERT_TRUE(released.ec.has_value());
    EXPECT_EQ(*released.ec, asio::error::operation_aborted);
    EXPECT_GE(::fcntl(p.ours, F_GETFD), 0);  // released, not closed

    socket.assign(p.ours);
    Read ended;
    socket.async_read_some(buf.data(), buf.size(), ended.handler());
    ::close(p.peer);
    p.peer = -1;
    poll(io);
    ASSERT_TRUE(ended.ec.has_value());
    EXPECT_EQ(*ended.ec, asio::error::eof);
    EXPECT_EQ(ended.n, 0u);
}

TEST_F(ReactorSocketTest, AWaitEndsWhenTheSocketIsReadyAndAnUnassignedSocketSaysBadDescriptor) {
    socket.release();
    Read unassigned;
    socket.async_wait(false, unassigned.handler());
    poll(io);
    ASSERT_TRUE(unassigned.ec.has_value());
    EXPECT_EQ(*unassigned.ec, asio::error::bad_descriptor);

    socket.assign(p.ours);
    Read writable;
    socket.async_wait(true, writable.handler());
    poll(io);
    ASSERT_TRUE(writable.ec.has_value());
    EXPECT_FALSE(*writable.ec);

    Read readable;
    socket.async_wait(false, readable.handler());
    poll(io);
    EXPECT_FALSE(readable.ec.has_value());
    p.send("x");
    poll(io);
    ASSERT_TRUE(readable.ec.has_value());
    EXPECT_FALSE(*readable.ec);
    EXPECT_EQ(p.waiting(), 1);  // a wait reads nothing
}

}  // namespace
