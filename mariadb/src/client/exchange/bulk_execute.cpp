#include "sluice/mariadb/exchange/bulk_execute.hpp"

#include <algorithm>
#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"

namespace sluice::mariadb::exchange {

using namespace protocol;

BulkExecuteExchange::BulkExecuteExchange(std::uint64_t capabilities, bool deprecate_eof, std::uint32_t statement_id,
                                         const BulkRows& rows, std::span<BulkParam> row,
                                         std::size_t max_packet_bytes, MaxAllowedPacket& cache) noexcept
    : capabilities_(capabilities),
      deprecate_eof_(deprecate_eof),
      statement_id_(statement_id),
      rows_(rows),
      row_(row),
      max_packet_bytes_(max_packet_bytes),
      cache_(cache),
      filled_(rows.count) {
    result_.native = true;
}

Step BulkExecuteExchange::start(Outbox& out) {
    if (max_packet_bytes_ == 0 && cache_.bytes == 0) {
        write_query(out, "SELECT @@max_allowed_packet");
        ask_.emplace();
        ask_->set_connection(capabilities_, deprecate_eof_);
        state_ = State::asking;
        return Step::write;
    }
    return send_packet(out);
}

Step BulkExecuteExchange::resume(Outbox& out, Bytes input) {
    switch (state_) {
        case State::asking:
        case State::ask_head:
        case State::ask_rows: return ask_resume(out, input);
        case State::packet_sent: state_ = State::packet_reply; return Step::read;
        case State::packet_reply: return on_reply(out, input);
        case State::finished: break;
    }
    throw Error(ErrorKind::usage, "bulk exchange resumed after it finished");
}

// SELECT @@max_allowed_packet: its first row's value; every result read to
// its end before the first bulk packet goes out.
Step BulkExecuteExchange::ask_resume(Outbox& out, Bytes p) {
    ResultReader& reader = *ask_;
    if (state_ == State::asking) {  // the query went out
        reader.expect_head(false);
        state_ = State::ask_head;
        return Step::read;
    }
    if (state_ == State::ask_head) {
        if (reader.resume(p) == Step::read) return Step::read;
        if (reader.phase == Phase::rows) {
            state_ = State::ask_rows;
            return Step::read;
        }
    } else if (reader.row_packet(p)) {
        if (!asked_row_seen_) asked_value_ = static_cast<std::size_t>(reader.row.get<std::uint64_t>(0));
        asked_row_seen_ = true;
        return Step::read;
    }
    if (!asked_row_seen_) throw Error(ErrorKind::protocol, "SELECT @@max_allowed_packet returned no row");
    if (reader.phase == Phase::more_results) {
        reader.expect_head(false);
        state_ = State::ask_head;
        return Step::read;
    }
    cache_.bytes = asked_value_;
    ask_.reset();
    return send_packet(out);
}

Step BulkExecuteExchange::send_packet(Outbox& out) {
    if (limit_ == 0) {
        limit_ = max_packet_bytes_ ? max_packet_bytes_ : std::min(cache_.bytes, PacketFramer::max_packet_piece - 1);
    }
    out.add_whole(true, [&](std::vector<std::uint8_t>& buffer) {
        BulkPacket packet(buffer, statement_id_, row_.size());
        while (next_ < rows_.count) {
            if (filled_ != next_) {
                rows_.fill(rows_.ctx, next_, row_);
                filled_ = next_;
            }
            if (packet.append(row_, limit_) == BulkPacket::Append::added) {
                ++next_;
                continue;
            }
            if (packet.rows() == 0) {
                throw Error(ErrorKind::usage, "bulk row " + std::to_string(next_) + " does not fit a packet of " +
                                                  std::to_string(limit_) + " bytes (max_allowed_packet); execute it alone");
            }
            break;  // the row opens the next packet
        }
        rows_in_packet_ = packet.rows();
    });
    state_ = State::packet_sent;
    return Step::write;
}

Step BulkExecuteExchange::on_reply(Outbox& out, Bytes reply) {
    if (is_err(reply)) throw_server_error(reply);
    if (!is_ok(reply)) throw Error(ErrorKind::protocol, "bulk execute answered with a result set");
    last_ok_ = parse_ok(reply, capabilities_);
    result_.affected_rows += last_ok_.affected_rows;
    if (result_.first_insert_id == 0) result_.first_insert_id = last_ok_.last_insert_id;
    result_.warnings += last_ok_.warnings;
    result_.rows += rows_in_packet_;
    ++result_.commands;
    if (next_ < rows_.count) return send_packet(out);
    state_ = State::finished;
    return Step::done;
}

}  // namespace sluice::mariadb::exchange
