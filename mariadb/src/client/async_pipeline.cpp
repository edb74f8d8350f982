#include "async_pipeline.hpp"

#include <string>
#include <utility>

#include "pipeline_read_ahead.hpp"
#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/async_pipeline.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb::detail {

using exchange::Step;
using protocol::Bytes;

Step AsyncPipelineRun::start(exchange::Outbox& out) {
    PipelineReadAhead::begin_run(pipeline_);
    if (PipelineReadAhead::has_unsent(pipeline_)) return send_batch(out);
    if (out.empty()) return Step::done;
    writing_ = Writing::batch;  // the connection's deferred closes alone
    replies_ = 0;
    return Step::write;
}

Step AsyncPipelineRun::send_batch(exchange::Outbox& out) {
    replies_ = PipelineReadAhead::send_batch(pipeline_, out);
    reply_ = 0;
    writing_ = Writing::batch;
    return Step::write;
}

Step AsyncPipelineRun::resume(exchange::Outbox& out, Bytes p, bool is_packet) {
    if (!is_packet) {
        switch (std::exchange(writing_, Writing::none)) {
            case Writing::batch:
                if (replies_ == 0) return after_batch(out);
                begin_reply();
                return Step::read;
            case Writing::refusal: return scanner_->resume(out, {});
            case Writing::none: break;
        }
        throw Error(ErrorKind::usage, "async pipeline resumed after a write it did not ask for");
    }
    replay_.add(p);
    switch (reading_) {
        case Reading::results: {
            const Step step = scanner_->resume(out, p);
            if (step == Step::write) {  // a LOCAL INFILE request, refused with an empty file
                writing_ = Writing::refusal;
                return Step::write;
            }
            if (step == Step::done) return reply_ended(out);
            return Step::read;
        }
        case Reading::prepare_ok: {
            if (protocol::is_err(p)) return reply_ended(out);
            const protocol::PrepareOk ok = protocol::parse_prepare_ok(p);
            // Each list of definitions has its EOF unless deprecate-EOF.
            const std::uint64_t eof = session_.deprecate_eof ? 0 : 1;
            definitions_left_ = (ok.params > 0 ? ok.params + eof : 0) + (ok.columns > 0 ? ok.columns + eof : 0);
            if (definitions_left_ == 0) return reply_ended(out);
            reading_ = Reading::prepare_definitions;
            return Step::read;
        }
        case Reading::prepare_definitions:
            if (--definitions_left_ == 0) return reply_ended(out);
            return Step::read;
        case Reading::ok: return reply_ended(out);
    }
    throw Error(ErrorKind::usage, "async pipeline in an unknown state");
}

void AsyncPipelineRun::begin_reply() {
    const exchange::CommandPipeline& wire = PipelineReadAhead::wire(pipeline_);
    framer_.expect_sequence(wire.reply(reply_).sequence);
    switch (wire.kind(reply_)) {
        case StepKind::execute:
        case StepKind::query:
            scanner_.emplace(session_.capabilities, session_.deprecate_eof);
            reading_ = Reading::results;
            return;
        case StepKind::prepare: reading_ = Reading::prepare_ok; return;
        case StepKind::reset_statement:
        case StepKind::close_statement:
        case StepKind::reset_session:
        case StepKind::ping:
        case StepKind::select_database: reading_ = Reading::ok; return;
    }
}

Step AsyncPipelineRun::reply_ended(exchange::Outbox& out) {
    if (++reply_ < replies_) {
        begin_reply();
        return Step::read;
    }
    deliver();
    if (handler_error_) return Step::done;
    return after_batch(out);
}

void AsyncPipelineRun::deliver() {
    session_.replay = &replay_;
    try {
        PipelineReadAhead::deliver(pipeline_);
    } catch (...) {
        if (session_.is_broken) {  // the pipeline's own breakage, its message made
            session_.replay = nullptr;
            replay_.clear();
            throw;
        }
        // A handler's: the rest of the batch is read without handlers, the
        // stream stays in step (every reply sent is here).
        handler_error_ = std::current_exception();
        PipelineReadAhead::abandon_rest(pipeline_);
    }
    session_.replay = nullptr;
    replay_.clear();
    replies_ = reply_ = 0;
}

Step AsyncPipelineRun::after_batch(exchange::Outbox& out) {
    if (PipelineReadAhead::has_unsent(pipeline_)) return send_batch(out);
    // Every reply was read and the server sends nothing unasked: bytes
    // already here are replies to no step (a hostile or confused server).
    if (framer_.has_buffered_input()) {
        throw Error(ErrorKind::protocol, "server sent more replies than the pipeline's " +
                                             std::to_string(PipelineReadAhead::steps(pipeline_)) +
                                             " steps (bytes left after the last reply)");
    }
    return Step::done;
}

Error AsyncPipelineRun::broken(const Error& cause) {
    session_.replay = nullptr;
    if (session_.is_broken) return cause;  // the pipeline's own message already
    // The replies read whole go to their handlers first, as the blocking
    // pipeline would have delivered them before it met the failure.
    if (reply_ > 0 && !handler_error_) {
        session_.replay = &replay_;
        try {
            PipelineReadAhead::deliver_read(pipeline_, reply_);
        } catch (const Error& e) {
            session_.replay = nullptr;
            if (session_.is_broken) return e;  // one of them broke it (a fatal server error)
        } catch (...) {
            // A handler's exception: the connection's failure is the news.
        }
        session_.replay = nullptr;
    }
    return PipelineReadAhead::broken(pipeline_, cause);
}

PipelineSummary AsyncPipelineRun::finish() { return PipelineReadAhead::finish(pipeline_); }

}  // namespace sluice::mariadb::detail
