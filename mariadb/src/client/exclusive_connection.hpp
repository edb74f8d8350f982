#pragma once
// A Connection given over to one exchange for the rest of its life (the
// binlog dump, src/cdc/binlog_connection.cpp): once that exchange started,
// the connection serves nothing else, so this object owns it and offers
// only what such an exchange's driver needs: run the exchange with the
// blocking runner under the connection's failure model, its read timeout,
// whether input is waiting, and breaking it. Nothing else of the session is
// reachable from here.
#include <chrono>
#include <cstdint>

#include "session.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/exchange/step.hpp"

namespace sluice::mariadb::detail {

class ExclusiveConnection {
public:
    // Takes the connection (Error{usage} for one moved from).
    explicit ExclusiveConnection(Connection connection);

    // Runs an exchange from `first` to Step::done over the channel.
    // new_command: it starts a command (what the previous one left unread
    // is read or discarded first); without, it continues the running one
    // (the next packets of a dump). A failure that leaves the stream
    // position unknown breaks the connection, as in every blocking call.
    template <class Resume>
    void run(bool new_command, exchange::Step first, Resume&& resume) {
        session_.guarded([&] {
            if (new_command) session_.begin_command();
            session_.run(first, resume);
        });
    }
    // Where the exchange puts what it sends.
    exchange::Outbox& outbox() noexcept { return session_.outbox; }

    // The longest wait for a packet (0: none).
    void set_read_timeout(std::chrono::milliseconds timeout);
    // Bytes are waiting on the socket.
    bool input_pending() const noexcept;
    // The stream position is gone (the server ended the exchange with an
    // error): broken, with this reason.
    void mark_broken(const Error& cause) noexcept;
    std::uint32_t connection_id() const noexcept { return connection_.connection_id(); }
    // COM_QUIT (best effort) and close, as Connection::close.
    void close() noexcept { connection_.close(); }

private:
    static Session& session_of(Connection& c);

    Connection connection_;
    Session& session_;
};

}  // namespace sluice::mariadb::detail
