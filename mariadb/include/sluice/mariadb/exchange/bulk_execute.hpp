#pragma once
// Native bulk execution (COM_STMT_BULK_EXECUTE) as an exchange: rows are
// packed into as many bulk packets as the packet limit requires, each sent
// and answered by one OK before the next is built. Without an explicit
// limit, the connection's @@max_allowed_packet is used: the exchange asks
// for it first (SELECT @@max_allowed_packet) when the cache it is given
// holds none yet, and fills the cache, so a connection asks once.
//
//   BulkExecuteExchange bulk(capabilities, deprecate_eof, statement_id, rows, row_buffer, 0, cache);
//   Step s = bulk.start(out);                  // write
//   ... s = bulk.resume(out, packet) ...       // until Step::done
//   bulk.result().affected_rows ...
//
// Errors are the blocking execute_bulk's: a server ERR ends the exchange
// (the packets before it were run and are counted in result()), a row that
// alone exceeds the limit is Error{usage} before anything of it is sent.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "sluice/mariadb/bulk.hpp"
#include "sluice/mariadb/exchange/result_reader.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/bulk.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::exchange {

// A connection's @@max_allowed_packet, once asked (0: not yet).
struct MaxAllowedPacket {
    std::size_t bytes = 0;
};

class BulkExecuteExchange {
public:
    // `rows` and `row` (one BulkParam per parameter, the fill buffer) must
    // outlive the exchange. max_packet_bytes 0: the cache's value, capped at
    // one wire frame (16 MiB - 1).
    BulkExecuteExchange(std::uint64_t capabilities, bool deprecate_eof, std::uint32_t statement_id,
                        const BulkRows& rows, std::span<protocol::BulkParam> row, std::size_t max_packet_bytes,
                        MaxAllowedPacket& cache) noexcept;

    Step start(Outbox& out);
    Step resume(Outbox& out, protocol::Bytes input);

    // Summed over the packets answered so far.
    const BulkResult& result() const noexcept { return result_; }
    // The OK of the last packet answered (result().commands > 0); its info
    // points into that reply's packet, valid until the next resume().
    const protocol::OkPacket& last_ok() const noexcept { return last_ok_; }

private:
    enum class State { asking, ask_head, ask_rows, packet_sent, packet_reply, finished };
    Step ask_resume(Outbox& out, protocol::Bytes input);
    Step send_packet(Outbox& out);
    Step on_reply(Outbox& out, protocol::Bytes reply);

    std::uint64_t capabilities_;
    bool deprecate_eof_;
    std::uint32_t statement_id_;
    const BulkRows& rows_;
    std::span<protocol::BulkParam> row_;
    std::size_t max_packet_bytes_;
    MaxAllowedPacket& cache_;
    State state_ = State::asking;
    std::optional<ResultReader> ask_;  // reads SELECT @@max_allowed_packet
    std::size_t asked_value_ = 0;
    bool asked_row_seen_ = false;
    std::size_t limit_ = 0;
    std::size_t next_ = 0;               // first row not yet in a packet
    std::size_t filled_ = 0;             // index of the row in row_ (rows_.count: none)
    std::size_t rows_in_packet_ = 0;     // of the packet in flight
    BulkResult result_;
    protocol::OkPacket last_ok_;
};

}  // namespace sluice::mariadb::exchange
