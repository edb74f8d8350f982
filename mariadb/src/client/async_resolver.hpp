#pragma once
// AsyncResolver: a host name looked up without blocking the event loop that
// drives an AsyncConnection. getaddrinfo blocks (a DNS lookup can take
// seconds) and has no non-blocking form, so a host that is not a numeric
// address is looked up on a thread of its own, which says it is done
// through an eventfd: AsyncConnection waits for fd() to be readable as it
// waits for its socket, under the connect timeout. A numeric address (any
// form getaddrinfo takes with AI_NUMERICHOST, `127.1` included) is looked up
// at once: that never blocks.
//
// The thread and the resolver share the outcome and the eventfd; whichever
// lets go last closes it, so a connection given up mid-lookup (its deadline
// passed, or it was destroyed) never leaves the thread writing to a
// descriptor number another socket has taken since.
#include <netdb.h>
#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sluice::mariadb::detail {

struct ResolvedAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;
    int family = AF_UNSPEC;
};

class AsyncResolver {
public:
    // getaddrinfo's signature; tests pass a lookup that waits for them.
    using Lookup = std::function<int(const char* host, const char* service, const addrinfo* hints, addrinfo** found)>;

    // Starts looking up host:port for a stream socket. Error{io} when no
    // thread can be started for it.
    AsyncResolver(const std::string& host, std::uint16_t port, Lookup lookup = {});
    AsyncResolver(const AsyncResolver&) = delete;
    AsyncResolver& operator=(const AsyncResolver&) = delete;
    ~AsyncResolver();

    // Readable once the lookup is over; -1 when it was over at the start
    // (a numeric address).
    int fd() const noexcept;
    // Whether the lookup is over (never blocks).
    bool done() const noexcept;
    // Once done(): the addresses in getaddrinfo's order, or Error{io}
    // "cannot resolve HOST:PORT: <getaddrinfo's reason>".
    std::vector<ResolvedAddress> take();

private:
    struct Shared;
    std::shared_ptr<Shared> shared_;
    std::string peer_;
};

// The lookup AsyncConnection's resolvers use: empty for getaddrinfo, or what
// a test put in its place (a lookup that waits for the test, to show that
// the loop never waits for it). Set it before connections start.
AsyncResolver::Lookup& connection_lookup();

}  // namespace sluice::mariadb::detail
