#pragma once
// The driver of the replica protocol: one Connection turned into a binlog
// dump (session variables as queries, then the dump exchange,
// exchange/binlog_dump.hpp: COM_REGISTER_SLAVE, COM_BINLOG_DUMP), then read
// one event at a time, each packet through the same exchange, run by the
// blocking runner. Once the dump started the connection serves nothing
// else, so this object owns it (as a detail::ExclusiveConnection) and adds
// the CDC's error messages.
#include <cstdint>
#include <optional>
#include <string>

#include "../client/exclusive_connection.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/exchange/binlog_dump.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::cdc::detail {

struct DumpRequest {
    GtidState start;
    std::uint32_t server_id = 0;
    double heartbeat_seconds = 0;
    bool non_blocking = false;
};

class BinlogConnection {
public:
    // Asks the server's @@global.binlog_checksum, sets up the session,
    // registers and starts the dump. Error{server} with the cause named for
    // a missing REPLICATION SLAVE privilege or a GTID state the server
    // cannot serve.
    BinlogConnection(Connection connection, const DumpRequest& request);
    BinlogConnection(const BinlogConnection&) = delete;
    BinlogConnection& operator=(const BinlogConnection&) = delete;
    ~BinlogConnection();

    // The next event's bytes (header to checksum), valid until the next
    // call; std::nullopt at the end of a non-blocking dump. An ERR packet
    // throws its Error{server} (1236 names purged or unknown GTIDs).
    std::optional<protocol::Bytes> next_event();
    // Bytes are waiting on the socket.
    bool input_pending() const noexcept;
    // "CRC32" or "NONE", as the server announced.
    const std::string& checksum() const noexcept { return checksum_; }
    std::uint32_t connection_id() const noexcept { return connection_.connection_id(); }

private:
    // Asks the checksum and sets the session variables (plain queries).
    static Connection set_up(Connection connection, const DumpRequest& request, std::string& checksum);

    std::string checksum_;
    mariadb::detail::ExclusiveConnection connection_;
    exchange::BinlogDumpExchange dump_;
};

// Error{server} 1227 / 1045 / 1236 with a message that says what to do.
[[noreturn]] void rethrow_replica_error(const Error& e, std::string_view step);

}  // namespace sluice::mariadb::cdc::detail
