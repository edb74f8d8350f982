#pragma once
// An AsyncPipeline's run on an AsyncConnection, as the connection's
// operation: an exchange over packets (exchange/step.hpp) that the
// connection's readiness loop drives. Each batch of steps goes out in one
// write; its replies are framed where each command says its reply starts
// (exchange/command_pipeline.hpp's ReplyStart), read whole into a replay
// (where each ends is found without decoding: ResponseScanner for results,
// the prepare OK's counts, one packet for an OK), then handed to the
// handlers by the blocking Pipeline's own code (pipeline_read_ahead.hpp),
// reading the replay, before the next batch is sent.
#include <cstdint>
#include <exception>
#include <optional>

#include "session.hpp"
#include "sluice/mariadb/exchange/response_scanner.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"

namespace sluice::mariadb::detail {

class AsyncPipelineRun {
public:
    AsyncPipelineRun(Pipeline& pipeline, Session& session, PacketFramer& framer) noexcept
        : pipeline_(pipeline), session_(session), framer_(framer) {}

    // The first batch into `out` (after what the connection put there
    // already): Step::write, or Step::done for an empty pipeline.
    exchange::Step start(exchange::Outbox& out);
    // After a write (is_packet false) or with the next packet.
    exchange::Step resume(exchange::Outbox& out, protocol::Bytes packet, bool is_packet);

    // The connection failed under the run: the session is broken and the
    // error says how far the pipeline got (unless it said so already).
    Error broken(const Error& cause);
    // After Step::done: the exception a handler threw (the run ended with
    // it), or null; then the summary.
    std::exception_ptr handler_error() const noexcept { return handler_error_; }
    PipelineSummary finish();

private:
    enum class Reading { results, prepare_ok, prepare_definitions, ok };
    enum class Writing { none, batch, refusal };
    exchange::Step send_batch(exchange::Outbox& out);
    exchange::Step after_batch(exchange::Outbox& out);
    void begin_reply();
    exchange::Step reply_ended(exchange::Outbox& out);
    void deliver();

    Pipeline& pipeline_;
    Session& session_;
    PacketFramer& framer_;
    Replay replay_;
    std::size_t replies_ = 0;  // in the batch sent
    std::size_t reply_ = 0;    // the one being read
    Reading reading_ = Reading::ok;
    Writing writing_ = Writing::none;
    std::optional<exchange::ResponseScanner> scanner_;
    std::uint64_t definitions_left_ = 0;
    std::exception_ptr handler_error_;
};

}  // namespace sluice::mariadb::detail
