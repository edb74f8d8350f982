#pragma once
// Pipelines: many commands sent before their replies are read, each with a
// result of its own (what Boost.MySQL calls pipelines; Connector/C has no
// equivalent). The round trip is paid once per batch of steps instead of
// once per statement.
//
//   Pipeline p(conn);                              // or Pipeline p(*pooled)
//   p.execute(insert, 1, "a");                     // no handler: summarized
//   p.query("SELECT name FROM t WHERE id = 1", [&](StepResult& r) {
//       for (const Row& row : r) names.push_back(row.get<std::string>(0));
//   });
//   PipelineSummary s = p.finish();                // every reply read, in order
//
// Steps are encoded when queued and sent in as few writes as the limits
// allow. At most PipelineOptions::max_depth steps are outstanding (queued or
// sent, reply unread), and the request bytes sent but unanswered stay under
// max_bytes_in_flight: queueing a step beyond either limit first reads the
// oldest replies (back-pressure) and hands each to its step's handler, in
// queue order, from inside that queueing call. finish() sends the rest and
// reads every reply. So a pipeline of any length runs in bounded memory, and
// a step's rows stream from the socket to its handler as a ResultSet's do.
//
// The error rule. A server error ends only its own step: the handler sees it
// in StepResult::error() (the error of a step without a handler, or one its
// handler did not see, is recorded in PipelineSummary::errors), the steps
// after it still run, and the
// connection stays usable. With PipelineOptions::stop_on_error, no step is
// sent once a failed reply has been read; the steps already sent by then (at
// most max_depth) still run on the server, which received them before the
// failure; the later ones are skipped (StepResult::skipped(), never sent).
// A step is never retried.
//
// Breakage. Any failure that leaves the stream position unknown (I/O, the
// server closing the connection, a malformed or unexpected reply, the
// pipeline's deadline) marks the connection broken, and the Error names how
// many steps completed (their results were delivered), how many were sent
// with no reply read (the server may or may not have run them) and how many
// were never sent.
//
// LIFETIME: a Pipeline refers to its Connection, and every Statement a step
// uses must stay alive (and unmoved) until that step's result was delivered.
// While a pipeline has steps outstanding, any other command on the
// connection throws Error{usage}: finish() first. Destroying a pipeline
// reads and drops the replies still unread (handlers are not called).
// A StepResult, and every Row it hands out, is valid only inside its
// handler (row.hpp). LOAD DATA LOCAL INFILE cannot run inside a pipeline (the
// server would take the next pipelined command for the file's bytes).
//
// The same steps, handlers and options run on the non-blocking API:
// AsyncPipeline (async_pipeline.hpp). The wire side of both is the command
// pipeline exchange (exchange/command_pipeline.hpp).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/row.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

namespace detail {
struct Session;
struct PipelineReadAhead;
}  // namespace detail

struct PipelineOptions {
    // Steps outstanding (queued or sent, reply unread) at most. When it is
    // reached, the oldest replies are read until half of it is left, so the
    // next half goes out in one write.
    std::size_t max_depth = 64;
    // Request bytes sent whose replies are unread, at most (a larger single
    // step goes alone). Kept well under the kernel's socket buffers: the
    // server stops reading while it writes replies the client does not read
    // yet, and a larger window could block both ends on their writes.
    std::size_t max_bytes_in_flight = 64 * 1024;
    // Send nothing more once a step failed (see the error rule above).
    bool stop_on_error = false;
    // A deadline over the whole pipeline, from its first step to the end of
    // finish() (again from the next step after that): Error{timeout}, and
    // the connection is broken. Zero: only
    // the connection's own read and write timeouts apply (per packet).
    std::chrono::milliseconds deadline{0};
};

enum class StepKind { execute, query, prepare, reset_statement, close_statement, reset_session, ping, select_database };
std::string_view to_string(StepKind kind) noexcept;

class Pipeline;

// One step's reply, as its handler sees it.
class StepResult {
public:
    std::size_t index() const noexcept { return index_; }  // in queue order, from 0
    StepKind kind() const noexcept { return kind_; }
    // The server's error for this step (or, after skipped(), why it was not
    // sent); null when it succeeded.
    const Error* error() const noexcept { return error_ ? &*error_ : nullptr; }
    bool failed() const noexcept { return error_.has_value(); }
    bool skipped() const noexcept { return skipped_; }

    // Columns of the current result (empty without rows).
    const std::vector<Column>& columns() const;
    // The next row of the current result, streamed from the socket; nullptr
    // at its end. A server error in the middle of the rows (KILL QUERY, say)
    // is thrown here and recorded as the step's error; if the handler lets
    // it escape, the pipeline catches it (the step failed, recorded in
    // PipelineSummary::errors) and goes on with the next step.
    const Row* next();
    // Moves to the next result of a multi-statement query; false when none.
    // A later statement's error is thrown here and is the step's error
    // (results the handler does not visit are read for it, and such an
    // error fails the step all the same).
    bool next_result();
    // OK details: of the statement, or of the rows' end once next() returned
    // nullptr.
    const OkInfo& ok() const;
    // A prepare step's statement (once; Error{usage} otherwise).
    Statement take_statement();

    struct Sentinel {};
    class Iterator {
    public:
        explicit Iterator(StepResult* r) : r_(r), row_(r->next()) {}
        const Row& operator*() const { return *row_; }
        const Row* operator->() const { return row_; }
        Iterator& operator++() {
            row_ = r_->next();
            return *this;
        }
        bool operator==(Sentinel) const noexcept { return row_ == nullptr; }

    private:
        StepResult* r_;
        const Row* row_;
    };
    // `for (const Row& row : result)` walks the current result's rows.
    Iterator begin() { return Iterator(this); }
    Sentinel end() const noexcept { return {}; }

private:
    friend class Pipeline;
    StepResult() = default;
    Pipeline* pipeline_ = nullptr;
    std::size_t index_ = 0;
    StepKind kind_ = StepKind::query;
    std::optional<Error> error_;
    bool skipped_ = false;
    std::optional<Statement> statement_;
};

using StepHandler = std::function<void(StepResult&)>;

struct PipelineSummary {
    std::size_t steps = 0;      // queued
    std::size_t succeeded = 0;  // replied without an error (close steps: sent)
    std::size_t failed = 0;     // the server's error
    std::size_t skipped = 0;    // not sent (stop_on_error)
    std::uint64_t affected_rows = 0;  // summed over the OKs of every step
    // By step index, the errors no handler saw: of steps without one, and
    // those found while discarding what a handler left unread.
    std::vector<std::pair<std::size_t, Error>> errors;
    // Writes of queued steps to the socket (a batch of steps each).
    std::size_t writes = 0;
};

class Pipeline {
public:
    explicit Pipeline(Connection& conn, PipelineOptions options = {});
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;
    ~Pipeline();

    // COM_STMT_EXECUTE with typed parameters (statement.hpp's binding).
    // Each queueing call returns the step's index.
    template <class... Args>
    std::size_t execute(Statement& stmt, const Args&... args) {
        const protocol::ParamValue values[sizeof...(Args) + 1] = {bind::value(args)..., {}};
        return execute_values(stmt, std::span(values, sizeof...(Args)), {});
    }
    // The same, its result handed to `on_result`.
    template <class... Args>
    std::size_t execute_then(StepHandler on_result, Statement& stmt, const Args&... args) {
        const protocol::ParamValue values[sizeof...(Args) + 1] = {bind::value(args)..., {}};
        return execute_values(stmt, std::span(values, sizeof...(Args)), std::move(on_result));
    }
    std::size_t execute_values(Statement& stmt, std::span<const protocol::ParamValue> values,
                               StepHandler on_result = {});
    // COM_QUERY (session commands such as SET go here too).
    std::size_t query(std::string_view sql, StepHandler on_result = {});
    // COM_STMT_PREPARE: the handler takes the Statement (take_statement()).
    std::size_t prepare(std::string_view sql, StepHandler on_result);
    // COM_STMT_RESET.
    std::size_t reset_statement(Statement& stmt, StepHandler on_result = {});
    // COM_STMT_CLOSE: the server sends no reply; the step succeeds when
    // sent, and `stmt` is closed (unusable) at once.
    std::size_t close_statement(Statement& stmt);
    // COM_RESET_CONNECTION (Connection::reset_session's effects: Statements
    // prepared before it become invalid on the server).
    std::size_t reset_session(StepHandler on_result = {});
    std::size_t ping(StepHandler on_result = {});
    // COM_INIT_DB.
    std::size_t select_database(std::string_view db, StepHandler on_result = {});

    // Sends what is queued now, reading nothing: the replies wait in the
    // socket for finish() (the pool's return writes its reset this way).
    void send();
    // Sends what is queued and reads every reply; the pipeline is empty (and
    // reusable) afterwards. Throws only when the connection broke (or a
    // handler threw).
    PipelineSummary finish();

    // Steps queued or sent whose replies are unread.
    std::size_t outstanding() const noexcept;
    const PipelineOptions& options() const noexcept;

private:
    friend class StepResult;
    // An AsyncConnection's pipeline: the same steps and handlers, its
    // replies read ahead (async_pipeline.hpp, src/client/pipeline_read_ahead.hpp).
    friend class AsyncPipeline;
    friend struct detail::PipelineReadAhead;
    struct ReadAhead {};
    Pipeline(detail::Session& session, PipelineOptions options, ReadAhead);
    // stmt's session, which must be this pipeline's (else Error{usage}).
    detail::Session& session_of(Statement& stmt);
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace sluice::mariadb
