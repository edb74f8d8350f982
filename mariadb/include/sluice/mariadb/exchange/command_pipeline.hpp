#pragma once
// The command pipeline as an exchange: many commands encoded back to back
// (each a command of its own, from sequence 0), then their replies read in
// queue order, each by the exchange that reads it when it runs alone
// (ResultReader for a query's or an execute's results, PrepareExchange for
// a prepare, SimpleCommand for an OK).
//
// It owns what the wire needs of each outstanding step (kind, the executing
// statement's column cache, its request bytes, where its reply starts); the
// driver keeps what the caller gets (handlers, step indexes) and decides
// when to send and when to read (back-pressure, deadlines): the blocking
// Pipeline (src/client/command_pipeline.cpp) and AsyncConnection's
// pipelines (src/client/async_pipeline.cpp).
//
//   std::size_t bytes = pipe.stage_query(sql);       // encoded, not queued yet
//   while (no room for bytes) read the oldest reply;  // back-pressure
//   pipe.queue(out);                                  // into the outbox (Step::write sends it)
//   ...
//   ReplyStart at = pipe.begin_reply(reader);         // the framing expects the reply there
//   while (pipe.resume(packet) == Step::read) {}      // the head; a server error throws
//   rows (phase rows) and further results: reader.row_packet / expect_head as for a ResultSet
//   pipe.end_reply();
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/exchange/result_reader.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/protocol/commands.hpp"

namespace sluice::mariadb::exchange {

// Where a step's reply begins: its first packet's sequence id (1 for a
// command of one packet) and, under compression, its first frame's (the
// number of frames the command took). Every command restarts both at 0, so
// after a batch the framing's counters are the last command's: the driver
// sets them to this before reading each reply.
struct ReplyStart {
    std::uint8_t sequence = 1;
    std::uint8_t frame = 1;
};

class CommandPipeline {
public:
    // Room for max_depth steps with a reply outstanding (Error{usage} for
    // 0); the blocking driver never queues more, a read-ahead driver that
    // queues a whole pipeline first grows it.
    explicit CommandPipeline(std::size_t max_depth);

    // The negotiated capabilities (after login): the replies' OKs depend on them.
    void set_connection(std::uint64_t capabilities, bool deprecate_eof) noexcept {
        capabilities_ = capabilities;
        deprecate_eof_ = deprecate_eof;
    }

    // ---- staging: one step encoded, waiting for queue() -----------------------
    // Each returns the step's request bytes on the wire (headers included).
    // COM_QUERY.
    std::size_t stage_query(std::string_view sql);
    // COM_STMT_EXECUTE, long values first as COM_STMT_SEND_LONG_DATA (no
    // reply); `statement_columns` is the statement's column cache, updated
    // by the reply (it must outlive the step).
    std::size_t stage_execute(std::uint32_t statement_id, std::span<const protocol::ParamValue> values,
                              std::size_t long_data_threshold,
                              std::shared_ptr<std::vector<Column>>* statement_columns);
    // COM_STMT_PREPARE.
    std::size_t stage_prepare(std::string_view sql);
    // COM_STMT_RESET (reset_statement) or COM_STMT_CLOSE (close_statement:
    // the server sends no reply).
    std::size_t stage_statement_command(StepKind kind, std::uint32_t statement_id);
    // COM_RESET_CONNECTION, COM_PING, COM_INIT_DB (reset_session, ping,
    // select_database).
    std::size_t stage_command(StepKind kind, std::string_view argument = {});

    // Moves the staged packets into `out`. True when the step has a reply to
    // read (it is outstanding until end_reply()); false for close_statement.
    bool queue(Outbox& out);
    // The staged step's packets (a long value's chunks and the execute, or one).
    std::size_t staged_packets() const noexcept { return staged_.packets().size(); }

    // ---- the outstanding steps, oldest first ------------------------------------
    std::size_t outstanding() const noexcept { return size_; }
    // The i-th outstanding step's kind, request bytes and reply start (0:
    // the oldest, whose reply is next).
    StepKind kind(std::size_t i) const noexcept { return at(i).kind; }
    std::size_t bytes(std::size_t i) const noexcept { return at(i).bytes; }
    ReplyStart reply(std::size_t i) const noexcept { return at(i).reply; }
    StepKind oldest_kind() const noexcept { return kind(0); }
    std::size_t oldest_bytes() const noexcept { return bytes(0); }

    // ---- reading a reply --------------------------------------------------------
    // The oldest step's reply is next: where it starts on the wire. Query and
    // execute replies are read into `reader` (the connection's: its result is
    // what a ResultSet or the step's handler reads).
    ReplyStart begin_reply(ResultReader& reader);
    // Consumes one packet of the head: Step::read while it needs more,
    // Step::done when the head is in (for a query or an execute, the reader's
    // phase says whether rows or more results follow). A server error throws
    // Error{server}; the step has failed and the next reply is read the same
    // way (the stream is still in step).
    Step resume(protocol::Bytes packet);
    // A prepare step, once its head is in: the prepared statement's parts.
    PrepareExchange& prepared();
    // The reply was read (the driver read the rest of the results): the next
    // step's reply is next.
    void end_reply() noexcept;
    // Forgets every step (the connection broke, or the pipeline was drained).
    void clear() noexcept;

private:
    struct Outstanding {
        StepKind kind = StepKind::query;
        std::shared_ptr<std::vector<Column>>* statement_columns = nullptr;
        std::size_t bytes = 0;
        ReplyStart reply;
    };
    void stage_begin(StepKind kind, std::shared_ptr<std::vector<Column>>* statement_columns);
    const Outstanding& at(std::size_t i) const noexcept { return slots_[(head_ + i) % slots_.size()]; }
    void grow();
    std::size_t staged_wire_bytes() const noexcept;

    std::uint64_t capabilities_ = 0;
    bool deprecate_eof_ = false;
    // A ring of max_depth slots: a pipeline of any length reuses them (it
    // grows only when a read-ahead driver queues more before sending).
    std::vector<Outstanding> slots_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
    // The step being staged.
    Outbox staged_;
    Outstanding staged_step_;
    // The reply being read.
    enum class Reading { none, results, prepare, ok };
    Reading reading_ = Reading::none;
    ResultReader* reader_ = nullptr;
    std::optional<PrepareExchange> prepare_;
    std::optional<SimpleCommand> simple_;
};

}  // namespace sluice::mariadb::exchange
