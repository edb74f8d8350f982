#include "binlog_connection.hpp"

#include <chrono>

#include "sluice/mariadb/protocol/replica.hpp"

namespace sluice::mariadb::cdc::detail {

void rethrow_replica_error(const Error& e, std::string_view step) {
    if (e.kind() != ErrorKind::server) throw e;
    std::string why;
    switch (e.server_code()) {
        case 1227:  // ER_SPECIFIC_ACCESS_DENIED_ERROR
        case 1045:
        case 1044:
            why = "missing privilege: the account needs REPLICATION SLAVE: ";
            break;
        case 1236:  // ER_MASTER_FATAL_ERROR_READING_BINLOG
            why = "the server cannot serve this position (GTIDs purged from its binlogs, or never in them): ";
            break;
        default: break;
    }
    throw Error(e.server_code(), std::string(e.sqlstate()),
                std::string(step) + ": " + why + e.what());
}

Connection BinlogConnection::set_up(Connection connection, const DumpRequest& request, std::string& checksum) {
    {
        ResultSet rs = connection.query("SELECT @@global.binlog_checksum");
        const Row* r = rs.next();
        checksum = r ? r->get<std::string>(0) : "NONE";
        while (rs.next()) {
        }
    }
    protocol::ReplicaSetup setup;
    setup.checksum = checksum;
    setup.connect_state = request.start.to_string();
    setup.heartbeat_seconds = request.heartbeat_seconds;
    for (const std::string& sql : protocol::replica_setup_statements(setup)) connection.execute(sql);
    return connection;
}

BinlogConnection::BinlogConnection(Connection connection, const DumpRequest& request)
    : connection_(set_up(std::move(connection), request, checksum_)) {
    // Three missed heartbeats (plus slack) mean a dead peer; without
    // heartbeats an idle dump waits as long as it takes.
    connection_.set_read_timeout(
        request.heartbeat_seconds > 0
            ? std::chrono::milliseconds(static_cast<std::int64_t>(request.heartbeat_seconds * 3000)) +
                  std::chrono::seconds(5)
            : std::chrono::milliseconds(0));
    exchange::DumpStart start;
    start.server_id = request.server_id;
    start.non_blocking = request.non_blocking;
    exchange::Outbox& out = connection_.outbox();
    try {
        connection_.run(true, dump_.start(out, start), [&](protocol::Bytes p) { return dump_.resume(out, p); });
    } catch (const Error& e) {
        rethrow_replica_error(e, dump_.failed_command());
    }
}

BinlogConnection::~BinlogConnection() {
    // Mid-dump the server is still sending: there is no idle moment for
    // COM_QUIT, so the socket is just closed.
    if (!dump_.ended()) connection_.close();
}

std::optional<protocol::Bytes> BinlogConnection::next_event() {
    if (dump_.ended()) return std::nullopt;
    exchange::Outbox& out = connection_.outbox();
    try {
        connection_.run(false, exchange::Step::read, [&](protocol::Bytes p) { return dump_.resume(out, p); });
    } catch (const Error& e) {
        // The dump is over after its ERR; the stream position is gone.
        if (e.kind() == ErrorKind::server) connection_.mark_broken(e);
        rethrow_replica_error(e, "binlog dump");
    }
    if (dump_.ended()) return std::nullopt;
    return dump_.event();
}

bool BinlogConnection::input_pending() const noexcept { return connection_.input_pending(); }

}  // namespace sluice::mariadb::cdc::detail
