#pragma once
// A server-side cursor (COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, then
// COM_STMT_FETCH) as an exchange. It owns the cursor's batches: `current`,
// the one the caller walks, and `next`, the reply of the fetch sent ahead
// (batch N+1 is asked for before the caller sees batch N). A fetch goes out
// at once and its reply is read later, by receive(): before the cursor's
// next batch is needed, or before another command uses the connection.
//
//   after the execute's head (the ResultReader's) says rows follow:
//   Step s = cursor.open(opened_in_head, definitions_eof_status);   // read or done
//   ... s = cursor.resume(packet) ...                  // the open's rows, into current
//   s = cursor.send_fetch(out);                        // write, then resume({}): done
//   s = cursor.receive();                              // read: the reply, into next
//   ... s = cursor.resume(packet) ...                  // until Step::done
//
// The framing is the driver's: a fetch's reply starts at sequence 1 even if
// replyless commands (COM_STMT_CLOSE) went out after the fetch.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::exchange {

// One reply's rows: row packets back to back, offsets their starts plus one
// past the last. Both vectors keep their capacity from batch to batch.
struct RowBatch {
    std::vector<std::uint8_t> bytes;
    std::vector<std::size_t> offsets;
    std::size_t rows() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
    void clear() noexcept {
        bytes.clear();
        offsets.clear();
    }
};

// Reads binary row packets until the end of rows. More than max_rows rows
// is a protocol error: a fetch asks for at most that many, and the cursor's
// memory bound (two batches) rests on it.
class RowBatchReader {
public:
    RowBatchReader(std::uint64_t capabilities, bool deprecate_eof) noexcept
        : capabilities_(capabilities), deprecate_eof_(deprecate_eof) {}
    // Rows go into `into` (cleared first); with null they are skipped.
    void expect(RowBatch* into, std::size_t max_rows = std::numeric_limits<std::size_t>::max()) noexcept;
    // Step::read until the end of rows (Step::done); a server ERR throws.
    // Inline: it runs once per row inside the driver's read loop (a call
    // per row here and in the cursor's resume had cost the blocking cursor
    // 9% more instructions than its loop before the exchanges).
    Step resume(protocol::Bytes packet) {
        if (packet.empty() || packet[0] == 0xFF || packet[0] == 0xFE) return resume_not_a_row(packet);
        return append_row(packet);
    }
    // After Step::done: the end-of-rows packet's status flags.
    std::uint16_t status() const noexcept { return status_; }

private:
    // An ERR, the end of the rows (EOF, or OK with 0xFE), or a row starting
    // with 0xFE or empty (which only the full check tells apart).
    Step resume_not_a_row(protocol::Bytes packet);
    Step append_row(protocol::Bytes packet) {
        if (rows_ == max_rows_) too_many_rows();
        ++rows_;
        if (into_) {
            into_->offsets.push_back(into_->bytes.size());
            into_->bytes.insert(into_->bytes.end(), packet.begin(), packet.end());
        }
        return Step::read;
    }
    [[noreturn]] void too_many_rows() const;

    std::uint64_t capabilities_;
    bool deprecate_eof_;
    RowBatch* into_ = nullptr;
    std::size_t max_rows_ = 0;
    std::size_t rows_ = 0;
    std::uint16_t status_ = 0;
};

class CursorFetchExchange {
public:
    CursorFetchExchange(std::uint64_t capabilities, bool deprecate_eof, std::uint32_t statement_id,
                        std::uint32_t fetch_size) noexcept;

    // The execute's head announced a result. opened_in_head (no
    // deprecate-EOF: the definitions' EOF said CURSOR_EXISTS, given as
    // head_status): nothing follows, Step::done. Otherwise the rows follow
    // (all of them, if the server declined to open a cursor) or the end of
    // rows that opens it: Step::read, into `current`.
    Step open(bool opened_in_head, std::uint16_t head_status);
    // COM_STMT_FETCH of fetch_size rows into the outbox: Step::write, then
    // resume({}) (it was sent) gives Step::done with the reply unread
    // (in_flight()).
    Step send_fetch(Outbox& out);
    // The in-flight fetch's reply is next: Step::read, into `next`.
    Step receive();
    Step resume(protocol::Bytes input) {
        if (state_ == State::reading_open || state_ == State::reading_fetch) {
            if (reader_.resume(input) == Step::read) return Step::read;
            return rows_end();
        }
        return resume_sent();
    }

    // The status flags of the last end of rows read (open or fetch).
    std::uint16_t last_status() const noexcept { return last_status_; }
    // True once the server sent its last row (or holds no cursor): nothing
    // more to fetch. Also true after a reply that failed.
    bool server_done() const noexcept { return server_done_; }
    bool in_flight() const noexcept { return in_flight_; }
    std::size_t fetches() const noexcept { return fetches_; }
    std::uint32_t fetch_size() const noexcept { return fetch_size_; }
    // The cursor is closed: nothing is fetched any more.
    void mark_server_done() noexcept { server_done_ = true; }

    RowBatch current;  // the batch being walked
    RowBatch next;     // the reply of the fetch after it, once received

private:
    enum class State { idle, sending, reading_open, reading_fetch };
    Step rows_end();
    Step resume_sent();

    std::uint32_t statement_id_;
    std::uint32_t fetch_size_;
    RowBatchReader reader_;
    State state_ = State::idle;
    bool server_done_ = false;
    bool in_flight_ = false;
    std::size_t fetches_ = 0;
    std::uint16_t last_status_ = 0;
};

}  // namespace sluice::mariadb::exchange
