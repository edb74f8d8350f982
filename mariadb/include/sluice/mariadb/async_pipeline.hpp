#pragma once
// Pipelines on the non-blocking API: the blocking Pipeline's steps,
// handlers, options and results (pipeline.hpp), run as one operation of an
// AsyncConnection (or co_await AsioConnection::async_pipeline).
//
//   AsyncPipeline p(conn);                        // conn: AsyncConnection (asio: conn.async_connection())
//   p.execute(insert, 1, "a");
//   p.query("SELECT name FROM t WHERE id = 1", [&](StepResult& r) {
//       for (const Row& row : r) names.push_back(row.get<std::string>(0));
//   });
//   conn.start_pipeline(p);  ... drive it ...     // asio: co_await conn.async_pipeline(p)
//   PipelineSummary s = conn.take_pipeline_summary();
//
// Queueing sends nothing. The run sends the steps in batches as the
// blocking Pipeline does (at most max_depth steps with replies and
// max_bytes_in_flight request bytes each), reads each batch's replies
// whole, then hands them to the handlers in queue order, from inside the
// operation (on_ready(), or the coroutine's resumption), before the next
// batch goes out. So a handler's StepResult and Rows are the blocking
// pipeline's and read no socket, and a batch's memory is its replies' size
// on the wire. The error rule, stop_on_error, the summary and the
// breakage message ("pipeline broken after 2 of 4 steps completed ...") are
// the blocking Pipeline's. A handler's exception ends the operation with
// it: the rest of its batch is read and dropped (handlers not called), the
// later steps are not sent, the connection stays usable.
//
// Not here: PipelineOptions::deadline (Error{usage}: the transport's
// timeouts bound every wait, and AsioConnection::cancel() kills the
// statement under way); send() and finish() (the run is the operation).
// LIFETIME: the pipeline and every Statement a step uses outlive the run;
// after it the pipeline is empty and can be filled and run again.
#include <cstddef>
#include <span>
#include <string_view>

#include "sluice/mariadb/pipeline.hpp"

namespace sluice::mariadb {

class AsyncConnection;

class AsyncPipeline {
public:
    explicit AsyncPipeline(AsyncConnection& conn, PipelineOptions options = {});

    // The queueing calls of Pipeline (pipeline.hpp), with the same meaning.
    template <class... Args>
    std::size_t execute(Statement& stmt, const Args&... args) {
        return pipeline_.execute(stmt, args...);
    }
    template <class... Args>
    std::size_t execute_then(StepHandler on_result, Statement& stmt, const Args&... args) {
        return pipeline_.execute_then(std::move(on_result), stmt, args...);
    }
    std::size_t execute_values(Statement& stmt, std::span<const protocol::ParamValue> values,
                               StepHandler on_result = {}) {
        return pipeline_.execute_values(stmt, values, std::move(on_result));
    }
    std::size_t query(std::string_view sql, StepHandler on_result = {}) {
        return pipeline_.query(sql, std::move(on_result));
    }
    std::size_t prepare(std::string_view sql, StepHandler on_result) {
        return pipeline_.prepare(sql, std::move(on_result));
    }
    std::size_t reset_statement(Statement& stmt, StepHandler on_result = {}) {
        return pipeline_.reset_statement(stmt, std::move(on_result));
    }
    std::size_t close_statement(Statement& stmt) { return pipeline_.close_statement(stmt); }
    std::size_t reset_session(StepHandler on_result = {}) { return pipeline_.reset_session(std::move(on_result)); }
    std::size_t ping(StepHandler on_result = {}) { return pipeline_.ping(std::move(on_result)); }
    std::size_t select_database(std::string_view db, StepHandler on_result = {}) {
        return pipeline_.select_database(db, std::move(on_result));
    }

    // Steps queued, with a reply to come, not run yet (a close has none).
    std::size_t outstanding() const noexcept { return pipeline_.outstanding(); }
    const PipelineOptions& options() const noexcept { return pipeline_.options(); }

private:
    friend class AsyncConnection;
    detail::Session* session_;  // the connection's, which outlives moves of the AsyncConnection
    Pipeline pipeline_;
};

}  // namespace sluice::mariadb
