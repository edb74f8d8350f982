#include "binlog_connection.hpp"

#include <poll.h>

#include <chrono>

#include "../client/access.hpp"
#include "sluice/mariadb/protocol/replica.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::cdc::detail {

using mariadb::detail::Access;
using mariadb::detail::Session;

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

BinlogConnection::BinlogConnection(Connection connection, const DumpRequest& request)
    : connection_(std::move(connection)) {
    {
        ResultSet rs = connection_.query("SELECT @@global.binlog_checksum");
        const Row* r = rs.next();
        checksum_ = r ? r->get<std::string>(0) : "NONE";
        while (rs.next()) {
        }
    }
    protocol::ReplicaSetup setup;
    setup.checksum = checksum_;
    setup.connect_state = request.start.to_string();
    setup.heartbeat_seconds = request.heartbeat_seconds;
    for (const std::string& sql : protocol::replica_setup_statements(setup)) connection_.execute(sql);

    Session& s = Access::session(connection_);
    if (request.heartbeat_seconds > 0) {
        // Three missed heartbeats (plus slack) mean a dead peer.
        Timeouts t = s.chan().timeouts();
        t.read = std::chrono::milliseconds(static_cast<std::int64_t>(request.heartbeat_seconds * 3000)) +
                 std::chrono::seconds(5);
        s.chan().set_timeouts(t);
    } else {
        Timeouts t = s.chan().timeouts();
        t.read = std::chrono::milliseconds(0);
        s.chan().set_timeouts(t);
    }
    try {
        s.guarded([&] {
            s.begin_command();
            s.send([&](protocol::Writer& w) {
                protocol::RegisterReplica r;
                r.server_id = request.server_id;
                protocol::write_register_replica(w, r);
            });
            protocol::Bytes reply = s.read();
            if (protocol::is_err(reply)) protocol::throw_server_error(reply);
        });
    } catch (const Error& e) {
        rethrow_replica_error(e, "COM_REGISTER_SLAVE");
    }
    s.guarded([&] {
        s.begin_command();
        s.send([&](protocol::Writer& w) {
            protocol::BinlogDump d;
            d.server_id = request.server_id;
            d.flags = protocol::binlog_dump_flag::send_annotate_rows;
            if (request.non_blocking) d.flags |= protocol::binlog_dump_flag::non_block;
            protocol::write_binlog_dump(w, d);
        });
    });
}

BinlogConnection::~BinlogConnection() {
    // Mid-dump the server is still sending: there is no idle moment for
    // COM_QUIT, so the socket is just closed.
    if (!ended_) connection_.close();
}

std::optional<protocol::Bytes> BinlogConnection::next_event() {
    if (ended_) return std::nullopt;
    Session& s = Access::session(connection_);
    protocol::DumpPacket p;
    try {
        p = s.guarded([&] { return protocol::classify_dump_packet(s.read()); });
    } catch (const Error& e) {
        rethrow_replica_error(e, "binlog dump");
    }
    switch (p.kind) {
        case protocol::DumpPacketKind::event: return p.event;
        case protocol::DumpPacketKind::end: ended_ = true; return std::nullopt;
        case protocol::DumpPacketKind::error: {
            Error e(p.error.code, std::string(p.error.sqlstate), std::string(p.error.message));
            s.on_error(e);
            s.mark_broken(e.what());  // the dump is over; the stream position is gone
            rethrow_replica_error(e, "binlog dump");
        }
    }
    return std::nullopt;
}

bool BinlogConnection::input_pending() const noexcept {
    Connection& c = const_cast<Connection&>(connection_);
    Session& s = Access::session(c);
    if (!s.channel || s.channel->broken()) return false;
    pollfd p{s.channel->socket().fd(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

}  // namespace sluice::mariadb::cdc::detail
