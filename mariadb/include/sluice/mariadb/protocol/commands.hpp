#pragma once
// Command-phase requests (client to server) and the COM_STMT_PREPARE reply.
#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/wire.hpp"
#include "sluice/mariadb/values.hpp"

namespace sluice::mariadb::protocol {

// COM_QUERY, COM_INIT_DB, COM_STMT_PREPARE: command byte + text to the end.
// COM_PING, COM_QUIT, COM_RESET_CONNECTION: the command byte alone.
void write_command(Writer& w, Command command, std::string_view argument = {});
// COM_STMT_CLOSE and COM_STMT_RESET: command byte + statement id.
void write_statement_command(Writer& w, Command command, std::uint32_t statement_id);
// COM_STMT_SEND_LONG_DATA: one chunk of parameter `param`'s value; the
// server appends chunks and sends no reply.
void write_send_long_data(Writer& w, std::uint32_t statement_id, std::uint16_t param, Bytes chunk);

// COM_STMT_PREPARE's OK: the columns and parameters definitions follow it.
struct PrepareOk {
    std::uint32_t statement_id = 0;
    std::uint16_t columns = 0;
    std::uint16_t params = 0;
    std::uint16_t warnings = 0;
};
PrepareOk parse_prepare_ok(Bytes packet);

// One bound parameter of COM_STMT_EXECUTE. Bytes views must outlive the
// write_stmt_execute call.
struct ParamValue {
    enum class Kind : std::uint8_t { null, int64, uint64, float32, float64, text, blob, decimal, date, time, datetime };
    Kind kind = Kind::null;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    float f = 0;
    double d = 0;
    Bytes bytes;  // text, blob, decimal's text
    DateTime datetime;  // date uses its date part
    Time time;
    // The value was sent with COM_STMT_SEND_LONG_DATA: only its type goes
    // into the execute packet.
    bool long_data = false;

    // Wire type and the unsigned flag byte it is announced with.
    ColumnType wire_type() const noexcept;
};

// COM_STMT_EXECUTE, iteration count 1, types always sent (new-params-bound
// = 1) so a parameter may change type between executions. flags: the cursor
// type (0 = no cursor, 1 = read-only; see result_head.hpp).
void write_stmt_execute(Writer& w, std::uint32_t statement_id, std::span<const ParamValue> params,
                        std::uint8_t flags = 0);
// One parameter's binary value (nothing for NULL), as in COM_STMT_EXECUTE
// and COM_STMT_BULK_EXECUTE.
void write_param_value(Writer& w, const ParamValue& p);

}  // namespace sluice::mariadb::protocol
