// The blocking Pipeline (pipeline.hpp): the command pipeline exchange
// (exchange/command_pipeline.hpp) encodes the steps and reads each reply's
// head; this driver decides when to send (batches, back-pressure), runs the
// exchange over the channel with the blocking runner, hands each reply to
// its step's handler and keeps the error rule and the breakage messages.
//
// What it needs from the session is narrow: the channel (send the outbox,
// expect_sequence before each reply), the result-reading functions a
// ResultSet uses, and one hook, Session::pending_reply (the cursor's
// PendingReply): while steps are outstanding it points at the pipeline, so
// any other command's begin_command() refuses with Error{usage} instead of
// reading replies that belong to the steps.
//
// Frame numbering under compression is PacketChannel's (reset_sequence()
// before each command marks where it begins; expect_sequence() before each
// reply, where the exchange says it starts), the same mechanism the cursor
// and the pool use. One rule keeps it simple: replies are read only when
// nothing is buffered unsent (every read is preceded by a flush), so the
// channel's single frame counter is never needed for a write and a read at
// once.
#include "sluice/mariadb/pipeline.hpp"

#include <algorithm>
#include <deque>
#include <string>

#include "blocking_runner.hpp"
#include "session.hpp"
#include "pipeline_read_ahead.hpp"
#include "sluice/mariadb/exchange/command_pipeline.hpp"
#include "sluice/mariadb/exchange/local_infile.hpp"

namespace sluice::mariadb {

using protocol::Bytes;
using protocol::ParamValue;

std::string_view to_string(StepKind kind) noexcept {
    switch (kind) {
        case StepKind::execute: return "execute";
        case StepKind::query: return "query";
        case StepKind::prepare: return "prepare";
        case StepKind::reset_statement: return "reset statement";
        case StepKind::close_statement: return "close statement";
        case StepKind::reset_session: return "reset session";
        case StepKind::ping: return "ping";
        case StepKind::select_database: return "select database";
    }
    return "unknown";
}

namespace {

// What the caller gets of a step with a reply to come (what the wire needs
// of it is the exchange's).
struct Step {
    std::size_t index = 0;
    StepKind kind = StepKind::query;
    StepHandler handler;
};

// The outstanding steps' handlers, oldest first: a ring of max_depth slots,
// so a pipeline of any length reuses the same few (a read-ahead pipeline,
// queued whole before it runs, grows it).
class StepRing {
public:
    explicit StepRing(std::size_t capacity) : slots_(capacity) {}
    std::size_t size() const noexcept { return size_; }
    bool full() const noexcept { return size_ == slots_.size(); }
    Step& front() noexcept { return slots_[head_]; }
    Step& at(std::size_t i) noexcept { return slots_[(head_ + i) % slots_.size()]; }
    Step& push() {
        if (full()) {
            std::vector<Step> bigger(slots_.size() * 2);
            for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(at(i));
            slots_ = std::move(bigger);
            head_ = 0;
        }
        return slots_[(head_ + size_++) % slots_.size()];
    }
    void pop() noexcept {
        slots_[head_].handler = nullptr;
        head_ = (head_ + 1) % slots_.size();
        --size_;
    }
    void clear() noexcept {
        while (size_ > 0) pop();
        head_ = 0;
    }

private:
    std::vector<Step> slots_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

// A step of a read-ahead pipeline not sent yet (AsyncConnection's: queued
// whole, then sent in batches by detail::PipelineReadAhead).
struct Unsent {
    std::size_t index = 0;
    StepKind kind = StepKind::query;
    std::size_t packets = 0;  // in queued_packets, in order
    std::size_t bytes = 0;
    bool has_reply = true;
};

}  // namespace

struct Pipeline::State final : detail::PendingReply {
    Pipeline* owner;
    detail::Session* session;
    PipelineOptions options;
    // Read ahead (an AsyncConnection's pipeline): queueing never reads, the
    // driver sends batches and reads their replies into the session's
    // replay before the handlers run; no channel is touched here.
    bool read_ahead = false;
    std::deque<Unsent> unsent_steps;
    std::size_t next_packet = 0;  // queued_packets' first unsent packet
    exchange::CommandPipeline wire;
    StepRing ring;
    // ring.at(0 .. sent-1) are written and flushed; the rest are buffered
    // in the outbox, unsent.
    std::size_t sent = 0;
    std::size_t bytes_sent = 0;
    std::size_t bytes_unsent = 0;
    std::size_t next_index = 0;
    std::size_t completed = 0;  // replies read (and no-reply steps sent)
    bool active = false;        // begun: owns the connection until finish()
    bool stop = false;          // stop_on_error saw a failure
    bool in_handler = false;
    PipelineSummary summary;
    // The queued steps' packets, unsent until flush().
    exchange::Outbox queued_packets;
    // Deadline over the pipeline (options.deadline > 0): the connection's
    // own timeouts are kept here and narrowed to what is left before each
    // blocking step, restored after.
    Deadline deadline = Deadline::max();
    Timeouts connection_timeouts;

    State(Pipeline* p, detail::Session& s, PipelineOptions o, bool reads_ahead)
        : owner(p), session(&s), options(o), read_ahead(reads_ahead), wire(o.max_depth),
          ring(std::max<std::size_t>(o.max_depth, 1)) {
        if (read_ahead && options.deadline.count() > 0) {
            throw Error(ErrorKind::usage,
                        "PipelineOptions::deadline is the blocking Pipeline's: an async pipeline is bounded by the "
                        "connection's timeouts (and the front end's cancel())");
        }
    }

    // Another command wants the connection while steps are outstanding.
    void read(detail::Session& s) override {
        s.pending_reply = this;  // still ours: refused, not taken over
        throw Error(ErrorKind::usage, "the connection is running a pipeline with " + std::to_string(ring.size()) +
                                          " steps outstanding: finish() it before other commands");
    }

    detail::Session& s() { return *session; }

    // ---- begin / end ------------------------------------------------------

    // Every queueing call and finish() starts here.
    void enter() {
        if (in_handler) {
            throw Error(ErrorKind::usage,
                        "a step handler cannot queue steps or finish its own pipeline: queue them after it returns");
        }
    }

    void begin() {
        enter();
        if (active) return;
        detail::Session& ss = s();
        if (read_ahead) {
            // The connection is taken when the pipeline runs, not now.
            ss.check_usable();
            active = true;
            return;
        }
        ss.guarded([&] { ss.begin_command(); });
        wire.set_connection(ss.capabilities, ss.deprecate_eof);
        active = true;
        ss.pending_reply = this;
        if (options.deadline.count() > 0) {
            connection_timeouts = ss.chan().timeouts();
            deadline = Clock::now() + options.deadline;
        }
    }

    void end() noexcept {
        if (!active) return;
        active = false;
        detail::Session& ss = s();
        if (ss.pending_reply == this) ss.pending_reply = nullptr;
        if (deadline != Deadline::max()) {
            if (ss.channel) ss.chan().set_timeouts(connection_timeouts);
            deadline = Deadline::max();
        }
        ring.clear();
        wire.clear();
        queued_packets.clear();
        unsent_steps.clear();
        next_packet = 0;
        sent = bytes_sent = bytes_unsent = 0;
        stop = false;
    }

    // ---- failure ----------------------------------------------------------

    // The stream position is lost: the connection is broken and the error
    // says how far the pipeline got.
    [[noreturn]] void fail(const Error& cause) { throw broken(cause); }

    Error broken(const Error& cause) {
        const std::size_t unanswered = sent;
        const std::size_t unsent = read_ahead ? unsent_steps.size() : ring.size() - sent;
        std::string message = "pipeline broken after " + std::to_string(completed) + " of " +
                              std::to_string(next_index) + " steps completed (their results were delivered); " +
                              std::to_string(unanswered) + " sent with no reply read (the server may have run them)";
        if (unanswered > 0) message += ", from step " + std::to_string(ring.front().index);
        message += "; " + std::to_string(unsent) + " queued but not sent: " + cause.what();
        if (cause.kind() == ErrorKind::timeout && deadline != Deadline::max()) {
            message += " (the pipeline's deadline is " + std::to_string(options.deadline.count()) + " ms)";
        }
        const ErrorKind kind = cause.kind() == ErrorKind::server ? ErrorKind::broken : cause.kind();
        detail::Session& ss = s();
        ss.mark_broken(message);
        end();
        return Error(kind, message);
    }

    // Runs f; a failure other than a (non-fatal) server error fails the
    // pipeline. Server errors propagate to the caller.
    template <class F>
    decltype(auto) io(F&& f) {
        detail::Session& ss = s();
        try {
            return f();
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::server) {
                ss.on_error(e);  // a fatal one (KILL, shutdown) breaks the session
                if (!ss.is_broken) throw;
            } else if (e.kind() == ErrorKind::usage || e.kind() == ErrorKind::conversion) {
                throw;
            } else if (!ss.is_broken) {
                ss.on_error(e);
            }
            if (ss.lacks_peer(e)) fail(ss.naming_peer(e));
            fail(e);
        }
    }

    // Narrows the connection's timeouts to what is left of the deadline
    // (no-op without one).
    void arm() {
        if (deadline == Deadline::max()) return;
        const auto now = Clock::now();
        if (now >= deadline) {
            fail(Error(ErrorKind::timeout, "the pipeline's deadline of " + std::to_string(options.deadline.count()) +
                                               " ms passed"));
        }
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        auto narrow = [&](std::chrono::milliseconds own) { return own.count() > 0 ? std::min(own, left) : left; };
        Timeouts t = connection_timeouts;
        t.read = narrow(t.read);
        t.write = narrow(t.write);
        s().chan().set_timeouts(t);
    }

    // ---- sending ----------------------------------------------------------

    // Sends every queued step (one write).
    void flush() {
        if (sent == ring.size() && bytes_unsent == 0) return;
        arm();
        io([&] { detail::send_outbox(s().chan(), queued_packets); });
        ++summary.writes;
        sent = ring.size();
        bytes_sent += bytes_unsent;
        bytes_unsent = 0;
    }

    // Makes room for a step of `bytes`: reads the oldest replies while the
    // depth or the byte window is full.
    void make_room(std::size_t bytes) {
        if (ring.full()) {
            flush();
            const std::size_t low_water = options.max_depth / 2;
            while (ring.size() > low_water) read_oldest();
        }
        while (ring.size() > 0 && bytes_sent + bytes_unsent + bytes > options.max_bytes_in_flight) {
            flush();
            read_oldest();
        }
    }

    // Queues the step the exchange staged (`bytes` on the wire):
    // back-pressure, then into the outbox (sent later).
    std::size_t queue(StepKind kind, std::size_t bytes, StepHandler handler) {
        const std::size_t index = next_index;
        if (stop) {
            deliver_skipped(index, kind, std::move(handler));
            return index;
        }
        if (read_ahead) return queue_unsent(index, kind, bytes, std::move(handler));
        make_room(bytes);
        if (stop) {  // a reply read just now failed
            deliver_skipped(index, kind, std::move(handler));
            return index;
        }
        ++next_index;
        ++summary.steps;
        bytes_unsent += bytes;
        if (!wire.queue(queued_packets)) {  // close_statement: no reply
            ++completed;
            ++summary.succeeded;
            return index;
        }
        Step& step = ring.push();
        step.index = index;
        step.kind = kind;
        step.handler = std::move(handler);
        return index;
    }

    // Read ahead: the step waits in queued_packets for its batch.
    std::size_t queue_unsent(std::size_t index, StepKind kind, std::size_t bytes, StepHandler handler) {
        ++next_index;
        ++summary.steps;
        bytes_unsent += bytes;
        Unsent u;
        u.index = index;
        u.kind = kind;
        u.bytes = bytes;
        u.packets = wire.staged_packets();
        u.has_reply = wire.queue(queued_packets);
        unsent_steps.push_back(u);
        if (u.has_reply) {
            Step& step = ring.push();
            step.index = index;
            step.kind = kind;
            step.handler = std::move(handler);
        }
        return index;
    }

    // Read ahead: the next batch into `out`, as the blocking pipeline sends
    // them: at most max_depth steps with replies and max_bytes_in_flight
    // request bytes (a larger step alone). The number of replies to read.
    std::size_t send_batch(exchange::Outbox& out) {
        std::size_t replies = 0;
        std::size_t bytes = 0;
        std::size_t steps = 0;
        while (!unsent_steps.empty()) {
            const Unsent& u = unsent_steps.front();
            if (u.has_reply && replies == options.max_depth) break;
            if (steps > 0 && bytes + u.bytes > options.max_bytes_in_flight) break;
            const std::vector<exchange::Outbox::Packet>& packets = queued_packets.packets();
            for (std::size_t i = 0; i < u.packets; ++i) {
                const exchange::Outbox::Packet& p = packets[next_packet + i];
                out.add_bytes(p.new_command, queued_packets.payload(p));
            }
            next_packet += u.packets;
            bytes += u.bytes;
            ++steps;
            if (u.has_reply) {
                ++replies;
            } else {
                ++completed;
                ++summary.succeeded;
            }
            unsent_steps.pop_front();
        }
        if (unsent_steps.empty()) {
            queued_packets.clear();
            next_packet = 0;
        }
        if (steps > 0) ++summary.writes;
        sent += replies;
        bytes_sent += bytes;
        bytes_unsent -= bytes;
        return replies;
    }

    // Read ahead, stop_on_error: the steps never sent are skipped, in order.
    void skip_unsent() {
        while (!unsent_steps.empty()) {
            const Unsent u = unsent_steps.front();
            unsent_steps.pop_front();
            ++summary.skipped;
            StepHandler handler;
            if (u.has_reply) {
                handler = std::move(ring.front().handler);
                ring.pop();
                wire.end_reply();
            }
            skipped(u.index, u.kind, std::move(handler));
        }
        queued_packets.clear();
        next_packet = 0;
        bytes_unsent = 0;
    }

    // stop_on_error: the step is not sent; earlier replies are delivered
    // first, so handlers still run in queue order.
    void deliver_skipped(std::size_t index, StepKind kind, StepHandler handler) {
        flush();
        while (ring.size() > 0) read_oldest();
        ++next_index;
        ++summary.steps;
        ++summary.skipped;
        skipped(index, kind, std::move(handler));
    }

    // Tells the handler its step was not sent.
    void skipped(std::size_t index, StepKind kind, StepHandler handler) {
        Error why(ErrorKind::usage, "step " + std::to_string(index) +
                                        " was not sent: an earlier step failed and the pipeline stops at the first error");
        if (handler) {
            StepResult r;
            r.index_ = index;
            r.kind_ = kind;
            r.skipped_ = true;
            r.error_ = std::move(why);
            handler(r);
        }
    }

    // ---- receiving --------------------------------------------------------

    // Reads the head of the oldest step's reply into the session's result
    // (and, for a prepare, its statement into `r`): the exchange run to its
    // head by the blocking runner.
    void read_head(StepResult& r) {
        detail::Session& ss = s();
        const exchange::ReplyStart at = wire.begin_reply(ss.result);
        // Read ahead, the replies are packets already (AsyncConnection's
        // framer checked their sequence ids).
        if (!read_ahead) ss.chan().expect_sequence(at.sequence, at.frame);
        ss.run(exchange::Step::read, [&](Bytes p) { return wire.resume(p); });
        if (ss.result.phase == detail::Phase::local_infile && read_ahead) {
            // The read-ahead refused it with an empty file; its final reply
            // is next.
            ss.result.phase = detail::Phase::idle;
            const Bytes reply = ss.read();
            if (protocol::is_err(reply)) protocol::throw_server_error(reply);
            throw Error(ErrorKind::usage, "server requested LOCAL INFILE '" + ss.result.local_infile_name +
                                              "' in a pipeline: refused, nothing was read (LOAD DATA LOCAL INFILE "
                                              "cannot run inside a pipeline)");
        }
        if (ss.result.phase == detail::Phase::local_infile) {
            // No source is registered inside a pipeline: refused with an
            // empty file, then the server's OK/ERR, as a query's head does.
            ss.result.phase = detail::Phase::idle;
            exchange::LocalInfileExchange refusal(ss.capabilities, std::move(ss.result.local_infile_name), nullptr);
            ss.run(refusal.start(ss.outbox), [&](Bytes p) { return refusal.resume(ss.outbox, p); });
            ss.set_ok(refusal.ok());
            refusal.finish();
        }
        if (r.kind_ == StepKind::prepare) {
            exchange::PrepareExchange& prepared = wire.prepared();
            r.statement_.emplace(&ss, prepared.statement_id, std::move(prepared.params),
                                 std::move(prepared.columns));
        }
    }

    // Discards what the handler left of the reply (rows, further results).
    // A later result of a multi-statement query that fails is this step's
    // failure (Session::drain would swallow it).
    void drain_rest(StepResult& r) {
        detail::Session& ss = s();
        while (ss.result.phase != detail::Phase::idle) {
            try {
                io([&] { ss.next_result(); });
            } catch (const Error& e) {
                if (e.kind() != ErrorKind::server) throw;
                if (!r.error_) r.error_ = e;
            }
        }
    }

    void read_oldest() {
        Step& step = ring.front();
        StepResult r;
        r.pipeline_ = owner;
        r.index_ = step.index;
        r.kind_ = step.kind;
        arm();
        try {
            io([&] { read_head(r); });
        } catch (const Error& e) {
            // Read ahead, a refused LOCAL INFILE request fails its step: its
            // reply was read whole, the stream is in step.
            if (e.kind() != ErrorKind::server && !(read_ahead && e.kind() == ErrorKind::usage)) throw;
            r.error_ = e;
        }
        StepHandler handler = std::move(step.handler);
        --sent;
        bytes_sent -= wire.oldest_bytes();
        wire.end_reply();
        ring.pop();
        bool handled = static_cast<bool>(handler);
        if (handler) {
            in_handler = true;
            try {
                handler(r);
            } catch (const Error& e) {
                in_handler = false;
                // The step's own server error (from next() or next_result())
                // left the handler: it is that step's failure, recorded as
                // unhandled, and the pipeline goes on. Anything else
                // propagates after the step's reply is consumed.
                const bool own_failure = e.kind() == ErrorKind::server && r.error_ && !s().is_broken;
                if (!own_failure) {
                    finish_step(r, false);
                    throw;
                }
                handled = false;
            } catch (...) {
                in_handler = false;
                finish_step(r, false);
                throw;
            }
            in_handler = false;
        }
        finish_step(r, handled);
    }

    void finish_step(StepResult& r, bool handled) {
        const bool seen_by_handler = handled && r.error_.has_value();
        drain_rest(r);
        ++completed;
        if (r.error_) {
            ++summary.failed;
            // An error the handler did not see (none, or found while the
            // rest of the reply was discarded) goes to the summary.
            if (!seen_by_handler) summary.errors.emplace_back(r.index_, *r.error_);
            if (options.stop_on_error) stop = true;
        } else {
            ++summary.succeeded;
            summary.affected_rows += s().result.ok.affected_rows;
        }
    }

    void send() {
        enter();
        if (active) flush();
    }

    PipelineSummary finish() {
        enter();
        if (active) {
            flush();
            while (ring.size() > 0) read_oldest();
            // Every reply was read and the server sends nothing unasked:
            // bytes already here are replies to no step (a hostile or
            // confused server), and the stream is out of step.
            if (s().chan().has_buffered_input()) {
                fail(Error(ErrorKind::protocol, "server sent more replies than the pipeline's " +
                                                    std::to_string(next_index) + " steps (bytes left after the last reply)"));
            }
        }
        end();
        PipelineSummary out = std::move(summary);
        summary = PipelineSummary{};
        next_index = completed = 0;
        return out;
    }

    // The destructor's finish: replies read and dropped, handlers skipped.
    void abandon() noexcept {
        if (!active) return;
        if (read_ahead) {  // nothing of it is on the wire between runs
            end();
            return;
        }
        try {
            for (std::size_t i = 0; i < ring.size(); ++i) ring.at(i).handler = nullptr;
            flush();
            while (ring.size() > 0) read_oldest();
        } catch (...) {
            // fail() broke the connection already; nothing else to do here.
        }
        end();
    }
};

// ---- StepResult ---------------------------------------------------------

const std::vector<Column>& StepResult::columns() const {
    static const std::vector<Column> none;
    if (!pipeline_) return none;
    return *pipeline_->state_->s().result.result_columns;
}

const Row* StepResult::next() {
    if (!pipeline_) return nullptr;
    Pipeline::State& st = *pipeline_->state_;
    detail::Session& s = st.s();
    if (s.result.phase != detail::Phase::rows) return nullptr;
    st.arm();
    try {
        return st.io([&]() -> const Row* { return s.next_row() ? &s.result.row : nullptr; });
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::server) error_ = e;
        throw;
    }
}

bool StepResult::next_result() {
    if (!pipeline_) return false;
    Pipeline::State& st = *pipeline_->state_;
    detail::Session& s = st.s();
    st.arm();
    try {
        return st.io([&] { return s.next_result(); });
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::server) error_ = e;
        throw;
    }
}

const OkInfo& StepResult::ok() const {
    static const OkInfo none;
    if (!pipeline_) return none;
    return pipeline_->state_->s().result.ok;
}

Statement StepResult::take_statement() {
    if (!statement_) {
        throw Error(ErrorKind::usage, "step " + std::to_string(index_) + " (" + std::string(to_string(kind_)) +
                                          ") has no statement to take");
    }
    Statement out = std::move(*statement_);
    statement_.reset();
    return out;
}

// ---- Pipeline -----------------------------------------------------------

Pipeline::Pipeline(Connection& conn, PipelineOptions options)
    : state_(std::make_unique<State>(this, conn.session(), options, false)) {}

Pipeline::Pipeline(detail::Session& session, PipelineOptions options, ReadAhead)
    : state_(std::make_unique<State>(this, session, options, true)) {}

// ---- read ahead (src/client/pipeline_read_ahead.hpp) --------------------

namespace detail {

void PipelineReadAhead::begin_run(Pipeline& p) {
    Pipeline::State& st = *p.state_;
    st.enter();
    st.wire.set_connection(st.s().capabilities, st.s().deprecate_eof);
}
bool PipelineReadAhead::has_unsent(const Pipeline& p) noexcept { return !p.state_->unsent_steps.empty(); }
std::size_t PipelineReadAhead::steps(const Pipeline& p) noexcept { return p.state_->next_index; }
std::size_t PipelineReadAhead::send_batch(Pipeline& p, exchange::Outbox& out) { return p.state_->send_batch(out); }
const exchange::CommandPipeline& PipelineReadAhead::wire(const Pipeline& p) noexcept { return p.state_->wire; }

void PipelineReadAhead::deliver(Pipeline& p) {
    Pipeline::State& st = *p.state_;
    while (st.sent > 0) st.read_oldest();
    if (st.stop) st.skip_unsent();
}

void PipelineReadAhead::deliver_read(Pipeline& p, std::size_t n) {
    Pipeline::State& st = *p.state_;
    for (std::size_t i = 0; i < n && st.sent > 0; ++i) st.read_oldest();
}

void PipelineReadAhead::abandon_rest(Pipeline& p) noexcept {
    Pipeline::State& st = *p.state_;
    try {
        for (std::size_t i = 0; i < st.ring.size(); ++i) st.ring.at(i).handler = nullptr;
        while (st.sent > 0) st.read_oldest();
    } catch (...) {
        // broken() already ended it; nothing else to do here.
    }
    st.end();
    st.summary = PipelineSummary{};
    st.next_index = st.completed = 0;
}

Error PipelineReadAhead::broken(Pipeline& p, const Error& cause) {
    Pipeline::State& st = *p.state_;
    Error e = st.broken(cause);
    st.summary = PipelineSummary{};
    st.next_index = st.completed = 0;
    return e;
}

PipelineSummary PipelineReadAhead::finish(Pipeline& p) {
    Pipeline::State& st = *p.state_;
    st.end();
    PipelineSummary out = std::move(st.summary);
    st.summary = PipelineSummary{};
    st.next_index = st.completed = 0;
    return out;
}

}  // namespace detail

Pipeline::~Pipeline() { state_->abandon(); }

std::size_t Pipeline::outstanding() const noexcept { return state_->ring.size(); }
const PipelineOptions& Pipeline::options() const noexcept { return state_->options; }

detail::Session& Pipeline::session_of(Statement& stmt) {
    detail::Session& s = stmt.session();  // Error{usage} when closed
    if (&s != &state_->s()) {
        throw Error(ErrorKind::usage, "statement belongs to another connection than the pipeline's");
    }
    return s;
}

std::size_t Pipeline::execute_values(Statement& stmt, std::span<const ParamValue> values, StepHandler on_result) {
    State& st = *state_;
    detail::Session& s = session_of(stmt);
    if (values.size() != stmt.param_count()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(stmt.param_count()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    st.begin();
    // Long text/blob values go first as COM_STMT_SEND_LONG_DATA commands
    // (no reply), as Statement::execute sends them.
    const std::size_t bytes = st.wire.stage_execute(stmt.id(), values, s.options.long_data_threshold,
                                                    &stmt.columns_);
    return st.queue(StepKind::execute, bytes, std::move(on_result));
}

std::size_t Pipeline::query(std::string_view sql, StepHandler on_result) {
    State& st = *state_;
    st.begin();
    return st.queue(StepKind::query, st.wire.stage_query(sql), std::move(on_result));
}

std::size_t Pipeline::prepare(std::string_view sql, StepHandler on_result) {
    State& st = *state_;
    st.begin();
    return st.queue(StepKind::prepare, st.wire.stage_prepare(sql), std::move(on_result));
}

std::size_t Pipeline::reset_statement(Statement& stmt, StepHandler on_result) {
    State& st = *state_;
    session_of(stmt);
    st.begin();
    const std::size_t bytes = st.wire.stage_statement_command(StepKind::reset_statement, stmt.id());
    return st.queue(StepKind::reset_statement, bytes, std::move(on_result));
}

std::size_t Pipeline::close_statement(Statement& stmt) {
    State& st = *state_;
    session_of(stmt);
    st.begin();
    const std::size_t bytes = st.wire.stage_statement_command(StepKind::close_statement, stmt.id());
    const std::size_t index = st.queue(StepKind::close_statement, bytes, {});
    stmt.detach();  // closed by this step: its destructor must not close it again
    return index;
}

std::size_t Pipeline::reset_session(StepHandler on_result) {
    State& st = *state_;
    st.begin();
    return st.queue(StepKind::reset_session, st.wire.stage_command(StepKind::reset_session), std::move(on_result));
}

std::size_t Pipeline::ping(StepHandler on_result) {
    State& st = *state_;
    st.begin();
    return st.queue(StepKind::ping, st.wire.stage_command(StepKind::ping), std::move(on_result));
}

std::size_t Pipeline::select_database(std::string_view db, StepHandler on_result) {
    State& st = *state_;
    st.begin();
    return st.queue(StepKind::select_database, st.wire.stage_command(StepKind::select_database, db),
                    std::move(on_result));
}

void Pipeline::send() { state_->send(); }
PipelineSummary Pipeline::finish() { return state_->finish(); }

}  // namespace sluice::mariadb
