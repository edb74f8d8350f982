#pragma once
// What AsyncConnection's pipeline run (src/client/async_pipeline.cpp) needs
// of a Pipeline in read-ahead mode (AsyncPipeline's): its steps are queued
// whole without I/O, then sent in batches (the blocking pipeline's depth
// and byte window), and each batch's replies, read ahead into the
// session's replay, are handed to the handlers by the same code as the
// blocking Pipeline's (src/client/command_pipeline.cpp): StepResult, the
// error rule, stop_on_error, the summary and the breakage message.
#include <cstddef>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/exchange/command_pipeline.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/pipeline.hpp"

namespace sluice::mariadb::detail {

struct PipelineReadAhead {
    // A run starts on the (logged-in) session.
    static void begin_run(Pipeline& p);
    static bool has_unsent(const Pipeline& p) noexcept;
    // Steps queued in this run so far.
    static std::size_t steps(const Pipeline& p) noexcept;
    // The next batch's packets into `out`; the number of replies it waits
    // for (0: none, e.g. only closes).
    static std::size_t send_batch(Pipeline& p, exchange::Outbox& out);
    // The sent steps (outstanding, oldest first): kinds and reply starts.
    static const exchange::CommandPipeline& wire(const Pipeline& p) noexcept;
    // Hands the sent steps' replies, read ahead into the session's replay,
    // to their handlers; with stop_on_error after a failure, the unsent
    // steps are skipped. A handler's exception propagates.
    static void deliver(Pipeline& p);
    // Hands the first n sent steps' replies (all that was read before the
    // connection failed) to their handlers.
    static void deliver_read(Pipeline& p, std::size_t n);
    // After a handler threw: the rest of the batch is read without
    // handlers, nothing more is sent, the pipeline is empty.
    static void abandon_rest(Pipeline& p) noexcept;
    // The stream position is lost: the session is broken, and the error
    // names how far the pipeline got (the blocking pipeline's message).
    static Error broken(Pipeline& p, const Error& cause);
    // The run is over: the summary; the pipeline is empty and reusable.
    static PipelineSummary finish(Pipeline& p);
};

}  // namespace sluice::mariadb::detail
