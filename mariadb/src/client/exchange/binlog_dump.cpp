#include "sluice/mariadb/exchange/binlog_dump.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/replica.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

Step BinlogDumpExchange::start(Outbox& out, const DumpStart& request) {
    request_ = request;
    event_ = {};
    out.add(true, [&](Writer& w) {
        RegisterReplica r;
        r.server_id = request.server_id;
        write_register_replica(w, r);
    });
    state_ = State::register_sent;
    return Step::write;
}

Step BinlogDumpExchange::resume(Outbox& out, Bytes p) {
    switch (state_) {
        case State::register_sent: state_ = State::register_reply; return Step::read;
        case State::register_reply:
            // Anything but an ERR registers the replica (the server answers OK).
            if (is_err(p)) throw_server_error(p);
            out.add(true, [&](Writer& w) {
                BinlogDump d;
                d.server_id = request_.server_id;
                d.flags = binlog_dump_flag::send_annotate_rows;
                if (request_.non_blocking) d.flags |= binlog_dump_flag::non_block;
                write_binlog_dump(w, d);
            });
            state_ = State::dump_sent;
            return Step::write;
        case State::dump_sent: state_ = State::streaming; return Step::done;
        case State::streaming: {
            const DumpPacket packet = classify_dump_packet(p);
            switch (packet.kind) {
                case DumpPacketKind::event: event_ = packet.event; return Step::done;
                case DumpPacketKind::end:
                    event_ = {};
                    state_ = State::ended;
                    return Step::done;
                case DumpPacketKind::error:
                    throw Error(packet.error.code, std::string(packet.error.sqlstate), std::string(packet.error.message));
            }
            break;
        }
        case State::ended: throw Error(ErrorKind::usage, "binlog dump resumed after the server ended it");
    }
    throw Error(ErrorKind::usage, "binlog dump in an unknown state");
}

std::string_view BinlogDumpExchange::failed_command() const noexcept {
    return state_ == State::register_sent || state_ == State::register_reply ? "COM_REGISTER_SLAVE" : "binlog dump";
}

}  // namespace sluice::mariadb::exchange
