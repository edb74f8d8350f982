#pragma once
// The short exchanges: a command answered by one OK (COM_PING, COM_INIT_DB,
// COM_RESET_CONNECTION, COM_STMT_RESET), and COM_STMT_PREPARE (its OK, the
// parameter definitions, the column definitions). Results of COM_QUERY and
// COM_STMT_EXECUTE are ResultReader's (result_reader.hpp); what goes out for
// them is write_query / write_execute here.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/exchange/column_definitions.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/protocol/commands.hpp"

namespace sluice::mariadb::exchange {

// COM_QUERY into the outbox.
void write_query(Outbox& out, std::string_view sql);
// COM_STMT_EXECUTE into the outbox; text or bytes longer than
// long_data_threshold go first as COM_STMT_SEND_LONG_DATA chunks (each a
// command of its own, without reply), and the execute carries only their
// type. With `chunk_written`, it is called after each chunk is added (the
// blocking runner sends it there, so a huge value is never held twice).
void write_execute(Outbox& out, std::uint32_t statement_id, std::span<const protocol::ParamValue> values,
                   std::size_t long_data_threshold, const std::function<void(Outbox&)>& chunk_written = {});

// A command whose reply is one OK (or ERR).
class SimpleCommand {
public:
    Step start(Outbox& out, protocol::Command command, std::string_view argument = {});
    Step start_statement(Outbox& out, protocol::Command command, std::uint32_t statement_id);
    Step resume(protocol::Bytes input);
    explicit SimpleCommand(std::uint64_t capabilities) noexcept : capabilities_(capabilities) {}

private:
    std::uint64_t capabilities_;
    bool sent_ = false;
};

class PrepareExchange {
public:
    PrepareExchange(std::uint64_t capabilities, bool deprecate_eof) noexcept
        : capabilities_(capabilities), deprecate_eof_(deprecate_eof) {}
    Step start(Outbox& out, std::string_view sql);
    // The request went out already (a pipeline's, exchange/command_pipeline.hpp):
    // the reply is next.
    Step expect_reply() noexcept {
        state_ = State::ok;
        return Step::read;
    }
    Step resume(protocol::Bytes input);

    std::uint32_t statement_id = 0;
    std::vector<Column> params;
    std::vector<Column> columns;

private:
    enum class State { sent, ok, params, columns, finished };
    Step next_definitions();

    std::uint64_t capabilities_;
    bool deprecate_eof_;
    State state_ = State::sent;
    std::size_t column_count_ = 0;
    ColumnDefinitions definitions_;
};

}  // namespace sluice::mariadb::exchange
