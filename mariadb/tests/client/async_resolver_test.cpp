// AsyncResolver (src/client/async_resolver.hpp), no server: numeric
// addresses at once, a host name on a thread of its own that the caller
// never waits for (a lookup held by the test stays unfinished while the
// caller goes on), the lookup's failure in getaddrinfo's words, and a
// resolver given up mid-lookup.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "async_resolver.hpp"
#include "server_env.hpp"  // test::kind_of only: no server here
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {

using detail::AsyncResolver;
using detail::ResolvedAddress;

std::uint16_t port_of(const ResolvedAddress& a) {
    if (a.family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&a.storage)->sin_port);
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&a.storage)->sin6_port);
}

bool readable(int fd, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) == 1;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

// A lookup that waits for the test to let it answer, with 127.0.0.1.
struct HeldLookup {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::promise<void> returned;
    AsyncResolver::Lookup lookup() {
        return [released = released, returned = &returned](const char*, const char* service, const addrinfo* hints,
                                                           addrinfo** found) {
            released.wait();
            addrinfo numeric = *hints;
            numeric.ai_flags |= AI_NUMERICHOST;
            const int rc = ::getaddrinfo("127.0.0.1", service, &numeric, found);
            returned->set_value();
            return rc;
        };
    }
};

TEST(AsyncResolver, NumericAddressesAreResolvedAtOnceWithoutAThread) {
    for (const char* host : {"127.0.0.1", "127.1", "::1"}) {
        AsyncResolver r(host, 3306);
        EXPECT_EQ(r.fd(), -1) << host;
        EXPECT_TRUE(r.done()) << host;
        const std::vector<ResolvedAddress> got = r.take();
        ASSERT_EQ(got.size(), 1U) << host;
        EXPECT_EQ(got[0].family, std::string(host) == "::1" ? AF_INET6 : AF_INET) << host;
        EXPECT_EQ(port_of(got[0]), 3306) << host;
    }
}

TEST(AsyncResolver, AHostNameIsLookedUpOnAThreadWhileTheCallerGoesOn) {
    HeldLookup held;
    AsyncResolver r("db.example.test", 4406, held.lookup());
    // The constructor returned with the lookup still held: nothing waited.
    ASSERT_GE(r.fd(), 0);
    EXPECT_FALSE(r.done());
    EXPECT_FALSE(readable(r.fd(), 0));
    EXPECT_EQ(test::kind_of([&] { r.take(); }), ErrorKind::usage);

    held.release.set_value();
    ASSERT_TRUE(readable(r.fd(), 10000));  // the eventfd says it is over
    EXPECT_TRUE(r.done());
    const std::vector<ResolvedAddress> got = r.take();
    ASSERT_EQ(got.size(), 1U);
    EXPECT_EQ(got[0].family, AF_INET);
    EXPECT_EQ(port_of(got[0]), 4406);
}

TEST(AsyncResolver, ARealNameResolvesThroughTheThread) {
    AsyncResolver r("localhost", 3306);  // /etc/hosts: no DNS server needed
    ASSERT_GE(r.fd(), 0);
    ASSERT_TRUE(readable(r.fd(), 10000));
    const std::vector<ResolvedAddress> got = r.take();
    ASSERT_FALSE(got.empty());
    for (const ResolvedAddress& a : got) EXPECT_EQ(port_of(a), 3306);
}

TEST(AsyncResolver, AFailedLookupSaysWhichHostAndWhy) {
    AsyncResolver r("no-such-host.invalid", 3306, [](const char*, const char*, const addrinfo*, addrinfo**) {
        return EAI_NONAME;
    });
    ASSERT_TRUE(readable(r.fd(), 10000));
    try {
        r.take();
        FAIL() << "a failed lookup gave addresses";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::io);
        EXPECT_EQ(std::string(e.what()), std::string("cannot resolve no-such-host.invalid:3306: ") +
                                             ::gai_strerror(EAI_NONAME));
    }
}

TEST(AsyncResolver, GivenUpMidLookupTheThreadFinishesAndClosesTheEventfd) {
    HeldLookup held;
    std::future<void> returned = held.returned.get_future();
    int event_fd = -1;
    {
        AsyncResolver r("db.example.test", 3306, held.lookup());
        event_fd = r.fd();
        ASSERT_GE(event_fd, 0);
    }  // given up: the thread still holds the eventfd
    EXPECT_TRUE(is_open(event_fd));
    held.release.set_value();
    ASSERT_EQ(returned.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    // The thread writes, then lets go; the last owner closes the eventfd.
    // (Its number, not a count of every descriptor: the threads of earlier
    // tests may still be letting go of theirs.)
    for (int i = 0; i < 10000 && is_open(event_fd); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_FALSE(is_open(event_fd));
}

}  // namespace
}  // namespace sluice::mariadb
