// AsyncResolver: numeric hosts at once, names on a thread of their own that
// signals an eventfd when getaddrinfo returns.
#include "async_resolver.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::detail {

struct AsyncResolver::Shared {
    int event_fd = -1;
    std::atomic<bool> finished{false};
    int rc = 0;  // getaddrinfo's; published by `finished`
    addrinfo* found = nullptr;

    ~Shared() {
        if (found) ::freeaddrinfo(found);
        if (event_fd >= 0) ::close(event_fd);
    }
};

namespace {
addrinfo stream_hints(int flags) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    return hints;
}
}  // namespace

AsyncResolver::AsyncResolver(const std::string& host, std::uint16_t port, Lookup lookup)
    : shared_(std::make_shared<Shared>()), peer_(host + ":" + std::to_string(port)) {
    const std::string service = std::to_string(port);
    const addrinfo numeric = stream_hints(AI_NUMERICHOST);
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &numeric, &shared_->found);
    if (rc != EAI_NONAME) {  // a numeric address (or a reason that is not the name's)
        shared_->rc = rc;
        shared_->finished.store(true, std::memory_order_release);
        return;
    }
    shared_->found = nullptr;
    shared_->event_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (shared_->event_fd < 0) {
        throw Error(ErrorKind::io, "cannot resolve " + peer_ + ": eventfd: " + std::strerror(errno));
    }
    if (!lookup) lookup = [](const char* h, const char* s, const addrinfo* hints, addrinfo** found) {
        return ::getaddrinfo(h, s, hints, found);
    };
    try {
        std::thread([shared = shared_, host, service, lookup = std::move(lookup)] {
            const addrinfo hints = stream_hints(0);
            addrinfo* found = nullptr;
            const int looked_up = lookup(host.c_str(), service.c_str(), &hints, &found);
            shared->rc = looked_up;
            shared->found = looked_up == 0 ? found : nullptr;
            shared->finished.store(true, std::memory_order_release);
            const std::uint64_t one = 1;
            // Cannot fail short of a closed fd, which the shared_ptr rules out.
            [[maybe_unused]] const ssize_t n = ::write(shared->event_fd, &one, sizeof one);
        }).detach();
    } catch (const std::system_error& e) {
        throw Error(ErrorKind::io, "cannot resolve " + peer_ + ": cannot start a thread for the lookup: " + e.what());
    }
}

AsyncResolver::~AsyncResolver() = default;

int AsyncResolver::fd() const noexcept { return shared_->event_fd; }

bool AsyncResolver::done() const noexcept { return shared_->finished.load(std::memory_order_acquire); }

std::vector<ResolvedAddress> AsyncResolver::take() {
    if (!done()) throw Error(ErrorKind::usage, "the lookup of " + peer_ + " is still under way");
    Shared& s = *shared_;
    if (s.rc != 0) {
        const int rc = std::exchange(s.rc, 0);
        throw Error(ErrorKind::io, "cannot resolve " + peer_ + ": " + ::gai_strerror(rc));
    }
    std::vector<ResolvedAddress> addresses;
    for (const addrinfo* ai = s.found; ai != nullptr; ai = ai->ai_next) {
        ResolvedAddress a;
        std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
        a.length = ai->ai_addrlen;
        a.family = ai->ai_family;
        addresses.push_back(a);
    }
    return addresses;
}

AsyncResolver::Lookup& connection_lookup() {
    static AsyncResolver::Lookup lookup;
    return lookup;
}

}  // namespace sluice::mariadb::detail
