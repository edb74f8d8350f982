#pragma once
// Asking the server to cancel what a connection is running (libpq's
// PQcancel), safe to call from a signal handler or another thread: a
// program's SIGINT handler uses it so that an interrupted statement stops
// on the server too, instead of running on after the client is gone.
#include <memory>

namespace sluice::postgres {

class Connection;

class CancelRequest {
public:
    CancelRequest(CancelRequest&&) noexcept;
    CancelRequest& operator=(CancelRequest&&) noexcept;
    ~CancelRequest();

    // Sends the cancel request (a separate connection to the server); true
    // when it was delivered. The running statement then fails with 57014;
    // when nothing is running the server ignores it. Async-signal-safe.
    bool send() const noexcept;

private:
    friend class Connection;
    struct Handle;
    explicit CancelRequest(std::unique_ptr<Handle> handle);

    std::unique_ptr<Handle> handle_;
};

}  // namespace sluice::postgres
