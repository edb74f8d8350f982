#pragma once
// Where a command's response ends, without decoding it: the heads (OK, ERR,
// a LOCAL INFILE request, a column count), the column definitions and rows
// (counted and skipped, not parsed), the end of rows and
// SERVER_MORE_RESULTS_EXIST. AsyncConnection reads a whole response with it
// before handing the packets to a ResultSet (src/client/async_connection.cpp),
// so every result is decoded once, by ResultReader.
//
// A LOCAL INFILE request is answered with an empty file (a refusal: the
// async API registers no upload source): Step::write with that packet in
// the outbox, then the server's final OK or ERR is read.
#include <cstdint>
#include <string>

#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::exchange {

class ResponseScanner {
public:
    ResponseScanner(std::uint64_t capabilities, bool deprecate_eof) noexcept
        : capabilities_(capabilities), deprecate_eof_(deprecate_eof) {}

    // Consumes one packet of the response: Step::read until the response is
    // over (Step::done), Step::write to refuse a LOCAL INFILE request (then
    // resume({}) after the write).
    Step resume(Outbox& out, protocol::Bytes packet);

    // The name of the refused LOCAL INFILE request, empty when none came.
    const std::string& refused_local_infile() const noexcept { return refused_; }
    // The server error the response ended with (a head's or mid-rows), 0
    // when it ended in OK or the end of rows.
    std::uint16_t final_error_code() const noexcept { return final_error_code_; }

private:
    enum class State { head, definitions, rows, infile_refused, infile_reply };
    Step after_status(std::uint16_t status);
    Step ended_in_error(protocol::Bytes err);

    std::uint64_t capabilities_;
    bool deprecate_eof_;
    State state_ = State::head;
    std::uint64_t definitions_left_ = 0;
    std::string refused_;
    std::uint16_t final_error_code_ = 0;
};

}  // namespace sluice::mariadb::exchange
