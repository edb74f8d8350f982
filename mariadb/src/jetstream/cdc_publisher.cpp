// The publisher's loop: resynchronise from the stream, publish in order
// with chained expected sequences, and on any failure wait for (or drop)
// what is in flight and resynchronise again. Why this is exactly once is in
// the header and docs/mariadb-cdc.md.
#include "sluice/mariadb/jetstream/cdc_publisher.hpp"

#include <nats/nats.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "sluice/common/error.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/jetstream/snapshot_messages.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::mariadb::jetstream {

namespace {

using Clock = std::chrono::steady_clock;

// The bound of a transaction's part messages. A transaction that fits one
// message of the full bound (--max-line-bytes or the server's max_payload)
// is one message, so the publisher holds up to that much of it; once it
// needs parts, every part, the first included (TransactionLines::
// split_first_line), is at most this: a JetStream worker decodes a part
// whole, and a subscription queues several (8 MiB parts cost a worker 2.8x
// the single process's peak on a 1M-row transaction; docs/mariadb-cdc.md
// "Transactions in several messages").
constexpr std::size_t later_part_message_bytes = std::size_t{1} << 20;

// Shared with libnats's acknowledgment thread.
struct AckState {
    std::atomic<bool> failed{false};
    std::atomic<std::uint64_t> acked{0};
    std::atomic<std::uint64_t> last_seq{0};
    std::mutex mutex;
    std::string first_error;
    PublishObserver* observer = nullptr;

    void fail(std::string why) {
        std::lock_guard lock(mutex);
        if (first_error.empty()) first_error = std::move(why);
        failed = true;
    }
    std::string take_error() {
        std::lock_guard lock(mutex);
        std::string e = std::move(first_error);
        first_error.clear();
        failed = false;
        return e;
    }
};

std::uint64_t expected_last(natsMsg* m) {
    const char* v = nullptr;
    if (natsMsgHeader_Get(m, "Nats-Expected-Last-Sequence", &v) != NATS_OK || !v) return 0;
    std::uint64_t n = 0;
    std::from_chars(v, v + std::strlen(v), n);
    return n;
}

void on_ack(jsCtx*, natsMsg* m, jsPubAck* pa, jsPubAckErr* pae, void* closure) {
    auto* s = static_cast<AckState*>(closure);
    const std::uint64_t expected = expected_last(m) + 1;
    if (pae) {
        std::string why = std::string("publish of sequence ") + std::to_string(expected) + ": " +
                          natsStatus_GetText(pae->Err);
        if (pae->ErrCode) why += " (JetStream error " + std::to_string(static_cast<int>(pae->ErrCode)) + ")";
        if (pae->ErrText && *pae->ErrText && std::strcmp(pae->ErrText, natsStatus_GetText(pae->Err)) != 0)
            why += ": " + std::string(pae->ErrText);
        s->fail(std::move(why));
    } else if (pa) {
        if (pa->Duplicate || pa->Sequence != expected) {
            s->fail("publish expected sequence " + std::to_string(expected) + ", the stream answered " +
                    std::to_string(pa->Sequence) + (pa->Duplicate ? " (duplicate)" : ""));
        } else {
            s->last_seq = pa->Sequence;
            ++s->acked;
            if (s->observer) s->observer->acknowledged(pa->Sequence);
        }
    }
    natsMsg_Destroy(m);
}

// Worth resynchronising: a NATS failure its client calls transient (a lost
// connection, a timeout, a leader election), or a lost binlog connection.
// NATS and MariaDB failures answer for themselves (sluice::common::Error).
bool retryable(const std::exception& e) { return common::is_transient(e); }

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

class Publisher {
public:
    Publisher(const ConnectOptions& source, const cdc::StreamOptions& start, const PublisherOptions& o, std::ostream& log)
        : source_(source), start_(start), o_(o), log_(log) {
        prefix_ = o.subject_prefix.empty() ? o.stream : o.subject_prefix;
        acks_.observer = o.observer;
    }

    PublishStats run() {
        const auto started = Clock::now();
        auto failing_since = started;
        auto backoff = std::chrono::milliseconds(100);
        std::uint64_t acked_seen = 0;
        for (;;) {
            std::string why;
            try {
                if (!client_) connect();
                if (attempt()) break;  // the binlog ended and everything is acknowledged
                settle();
                why = acks_.take_error();
            } catch (const std::exception& e) {
                if (!retryable(e)) throw;
                // Refused or unknown host (io) before both worked: a wrong
                // URL. A cluster that answers but is not ready is waited for.
                const common::Error* failure = common::as_error(e);
                if (!connected_ && failure != nullptr && failure->kind_name() == "io" &&
                    Clock::now() - started >= o_.connect_timeout)
                    throw Error(ErrorKind::io, std::string(e.what()) + start_failure_note());
                why = e.what();
                if (client_) settle();
                acks_.take_error();
            }
            ++stats_.resyncs;
            if (o_.observer) o_.observer->resynchronising(source_failed_ ? "source" : "sink", why);
            source_failed_ = false;
            if (acks_.acked != acked_seen) {
                acked_seen = acks_.acked;
                failing_since = Clock::now();
                backoff = std::chrono::milliseconds(100);
            }
            if (Clock::now() - failing_since > o_.retry_for)
                throw Error(ErrorKind::timeout, why + " (gave up after retrying for " +
                                                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(o_.retry_for).count()) +
                                                    " s without progress)");
            log_ << "sluice-mariadb cdc: " << why << "; resynchronising from stream \"" << o_.stream << "\" in "
                 << backoff.count() << " ms\n"
                 << std::flush;
            std::this_thread::sleep_for(backoff);
            backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
        }
        stats_.messages = acks_.acked;
        stats_.last_seq = acks_.last_seq;
        return stats_;
    }

private:
    std::string start_failure_note() const {
        if (o_.connect_timeout.count() == 0)
            return " (at start: not retried, a connection that never worked is not an outage; pass "
                   "--connect-timeout SECONDS to wait for a server that is still starting)";
        return " (at start: no connection within --connect-timeout " +
               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(o_.connect_timeout).count()) + " s)";
    }
    bool connected_ = false;

    void connect() {
        nats::ClientOptions co;
        co.max_pending = o_.window;
        co.ack_handler = &on_ack;
        co.ack_closure = &acks_;
        client_.emplace(nats::JetStreamClient::connect(o_.urls, co));
        max_payload_ = client_->max_payload();
    }

    // The stream's state, creating the stream when it is missing. (Right
    // after a node restarts, a stream just created can be reported missing
    // once more: creating it again is then a no-op or creates it for real.)
    nats::StreamState ensure_stream() {
        if (auto state = client_->stream_state(o_.stream)) return *state;
        const std::int64_t replicas = o_.replicas.value_or(client_->known_servers() >= 3 ? 3 : 1);
        client_->add_stream({o_.stream, {prefix_, prefix_ + ".>"}, replicas});
        log_ << "sluice-mariadb cdc: created stream \"" << o_.stream << "\" (subjects " << prefix_ << ", " << prefix_
             << ".>; file storage, " << replicas << " replicas)\n"
             << std::flush;
        if (auto state = client_->stream_state(o_.stream)) return *state;
        throw Error(ErrorKind::timeout, "stream \"" + o_.stream + "\" not found right after creating it");
    }

    // Waits for every acknowledgment in flight; drops what did not come in
    // time (the expected-sequence chain makes a late arrival harmless: it
    // lands only where it belongs, or is refused).
    void settle() {
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MaxWait = 15000;
        if (js_PublishAsyncComplete(client_->context(), &po) == NATS_OK) return;
        natsMsgList pending{};
        if (js_PublishAsyncGetPendingList(&pending, client_->context()) == NATS_OK) natsMsgList_Destroy(&pending);
        acks_.fail("acknowledgments did not arrive within 15 s");
    }

    // One pass from the stream's last message. True when the binlog ended
    // and everything was acknowledged; false after a publish failure (the
    // caller resynchronises).
    bool attempt() {
        settle();
        if (acks_.failed) return false;
        const std::optional<nats::StreamState> state = ensure_stream();
        cdc::StreamOptions so = start_;
        // The sluice envelope reads transactions in parts and publishes
        // them line by line: memory does not grow with a transaction. (The
        // debezium envelope numbers a transaction's changes I/N, so it
        // needs the whole transaction's count first.)
        if (o_.envelope == Envelope::sluice) so.part_bytes = std::size_t{1} << 20;
        else {
            // Held whole, so bounded: a bigger transaction stops the
            // publisher naming it (docs/mariadb-cdc.md, "Debezium envelope").
            so.max_transaction_bytes = o_.max_transaction_bytes;
            so.whole_transaction_hint =
                "the debezium envelope reads a transaction whole to number its changes Sluice-Change I/N: raise "
                "--max-transaction-bytes (memory: about that much), or publish with --format sluice, which "
                "streams a transaction in parts";
        }
        const std::size_t payload_room =
            static_cast<std::size_t>(std::max<std::int64_t>(max_payload_ - 1024, 256));
        const std::size_t first_line_bytes = std::min(o_.max_line_bytes, payload_room);
        cdc::ndjson::TransactionLines lines(first_line_bytes, std::min(first_line_bytes, later_part_message_bytes));
        lines.split_first_line();
        InFlight in_flight;
        ResumePoint resume;
        std::uint64_t expected = state->last_seq;  // the sequence of the last stored message
        std::int64_t not_before_ms = 0;  // a new snapshot's id must differ from an aborted one's
        if (state->last_seq > 0) {
            resume = resume_point(client_->message(o_.stream, state->last_seq), o_.stream);
            if (resume.unfinished_snapshot) {
                // Killed (or failed) during a snapshot: the database has moved
                // on, that snapshot cannot be finished. Close it so that
                // consumers drop what they buffered (debezium: nothing to
                // close, its consumers hold the rows already).
                not_before_ms = resume.unfinished_snapshot->started_ms + 1;
                log_ << "sluice-mariadb cdc: stream \"" << o_.stream << "\" ends inside snapshot "
                     << resume.unfinished_snapshot->to_string() << "; "
                     << (o_.envelope == Envelope::sluice ? "aborting it, " : "") << "then "
                     << (so.start == cdc::StartAt::snapshot ? "taking a new snapshot" : "starting as for an empty stream")
                     << "\n"
                     << std::flush;
                if (o_.envelope == Envelope::sluice)
                    publish(snapshot_abort_message(*resume.unfinished_snapshot, prefix_), expected++);
            }
            // No position (an aborted or unfinished snapshot): the stream
            // counts as empty and the start options apply.
            if (resume.from) {
                so.start = cdc::StartAt::gtid;
                so.gtid = *resume.from;
            }
        }
        const std::int64_t opened_ms = std::max(now_ms(), not_before_ms);
        std::optional<cdc::ChangeStream> opened;
        try {
            opened.emplace(cdc::ChangeStream::open(source_, so));
        } catch (const Error&) {
            source_failed_ = true;  // for the observer: the binlog, not NATS
            throw;
        }
        cdc::ChangeStream& cs = *opened;
        connected_ = true;  // NATS and the source both answered: from here on, failures are outages
        if (o_.observer) o_.observer->running();
        cdc::GtidState before = so.start == cdc::StartAt::gtid ? so.gtid : cdc::GtidState{};
        std::vector<OutMessage> batch;
        std::optional<SnapshotMessages> snapshot;
        auto last_progress = Clock::now();
        while (const cdc::ChangeEvent* e = cs.next()) {
            if (acks_.failed) return false;
            batch.clear();
            const bool snapshot_event =
                std::holds_alternative<cdc::SnapshotChunk>(*e) || std::holds_alternative<cdc::SnapshotDone>(*e);
            if (snapshot_event) {
                if (!snapshot) snapshot.emplace(SnapshotId{cs.position(), opened_ms}, o_.envelope, prefix_, o_.debezium_values);
                if (snapshot->add(batch, *e, now_ms())) snapshot.reset();
            }
            if (const auto* part = std::get_if<cdc::TransactionPart>(e)) {
                if (resume.skip_gtid) {
                    if (!part->first() || !(part->changes.gtid == *resume.skip_gtid))
                        throw Error(ErrorKind::protocol, "stream \"" + o_.stream + "\" ends inside transaction " +
                                                             binlog::to_string(*resume.skip_gtid) +
                                                             ", but the binlog continues with another event there");
                    log_ << "sluice-mariadb cdc: stream \"" << o_.stream << "\" ends inside transaction "
                         << binlog::to_string(*resume.skip_gtid) << " after part " << resume.parts_published
                         << "; continuing at part " << resume.parts_published + 1 << "\n"
                         << std::flush;
                    lines.resume_after(resume.skip_changes, resume.parts_published);
                    in_flight.rows = in_flight.read = resume.skip_changes;
                    resume.skip_gtid.reset();
                }
                publish_part(*part, lines, in_flight, before, cs.position(), expected);
                if (part->last) {
                    ++stats_.transactions;
                    if (o_.observer)
                        o_.observer->published(part->changes.timestamp, in_flight.rows_published, in_flight.bytes,
                                               expected, cs.position());
                    in_flight = InFlight{};
                    before = cs.position();
                }
                if (o_.progress && Clock::now() - last_progress >= o_.progress_interval) {
                    last_progress = Clock::now();
                    log_progress(part->last ? nullptr : part, in_flight);
                }
                if (o_.stop_requested && o_.stop_requested()) break;
                continue;
            }
            std::size_t first = 0;
            if (resume.skip_gtid) {
                const auto* t = std::get_if<cdc::Transaction>(e);
                if (!t || !(t->gtid == *resume.skip_gtid))
                    throw Error(ErrorKind::protocol, "stream \"" + o_.stream + "\" ends inside transaction " +
                                                         binlog::to_string(*resume.skip_gtid) +
                                                         ", but the binlog continues with another event there");
                first = resume.skip_changes;
                resume.skip_gtid.reset();
            }
            if (snapshot_event) {
                for (const OutMessage& m : batch) publish(m, expected++);
            } else {
                // Published as they are made (a transaction's messages are
                // never all held: the debezium envelope has one per change).
                std::size_t index = 0;
                std::uint64_t rows = 0, bytes = 0;
                for_each_message(*e, before, cs.position(), o_.envelope, prefix_, now_ms(), o_.debezium_values,
                                 [&](OutMessage&& m) {
                                     if (index++ < first) return;  // published before the resume
                                     bytes += m.data.size();
                                     rows += o_.envelope == Envelope::debezium ? 1 : cdc::ndjson::count_row_changes(m.data);
                                     publish(m, expected++);
                                 });
                if (const auto* t = std::get_if<cdc::Transaction>(e)) {
                    ++stats_.transactions;
                    if (o_.observer) o_.observer->published(t->timestamp, rows, bytes, expected, cs.position());
                }
            }
            before = cs.position();
            if (o_.progress && Clock::now() - last_progress >= o_.progress_interval) {
                last_progress = Clock::now();
                log_progress(nullptr, in_flight);
            }
            if (o_.stop_requested && o_.stop_requested()) break;
        }
        settle();
        return !acks_.failed;
    }

    // A sluice transaction being published in parts.
    struct InFlight {
        std::uint64_t rows = 0;            // its changes in lines published (a resume's skipped ones too)
        std::uint64_t rows_published = 0;  // ... by this process
        std::uint64_t bytes = 0;
        std::uint64_t read = 0;            // its changes read from the binlog so far (a resume's skipped ones too)
    };

    // The part's complete lines as messages: one whole transaction's
    // message (as before parts existed), or part messages GTID#K.
    void publish_part(const cdc::TransactionPart& part, cdc::ndjson::TransactionLines& lines, InFlight& in_flight,
                      const cdc::GtidState& before, const cdc::GtidState& after, std::uint64_t& expected) {
        line_buffer_.clear();
        in_flight.read += lines.add(line_buffer_, part);
        std::string_view text = line_buffer_.view();
        std::size_t count = 0;
        for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) ++count;
        std::size_t index = 0;
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            std::string line(text.substr(0, nl));
            text.remove_prefix(nl + 1);
            ++index;
            const bool last_line = part.last && index == count;
            const std::uint64_t rows = cdc::ndjson::count_row_changes(line);
            in_flight.rows += rows;
            in_flight.rows_published += rows;
            in_flight.bytes += line.size();
            // The line says which part it is (a resumed transaction's
            // numbering continues where the stream ended).
            const std::size_t part_at = line.find(",\"part\":");
            const bool whole = part_at > line.find(",\"changes\":[");
            if (whole) {
                OutMessage m;
                m.subject = prefix_;
                m.data = std::move(line);
                const std::string g = binlog::to_string(part.changes.gtid);
                m.headers = {{msg_id_header, g}, {gtid_header, g}, {state_header, after.to_string()}};
                publish(m, expected++);
            } else {
                std::size_t number = 0;
                const char* digits = line.data() + part_at + 8;
                std::from_chars(digits, line.data() + line.size(), number);
                publish(part_message(std::move(line), part.changes.gtid, number, last_line, in_flight.rows,
                                     last_line ? after : before, prefix_),
                        expected++);
            }
        }
    }

    void log_progress(const cdc::TransactionPart* open, const InFlight& in_flight) {
        log_ << "sluice-mariadb cdc: " << stats_.transactions << " transactions, " << acks_.acked
             << " messages acknowledged, stream at " << acks_.last_seq;
        if (open) log_ << ", transaction " << binlog::to_string(open->changes.gtid) << ": " << in_flight.read << " rows in flight";
        log_ << "\n" << std::flush;
    }

    void publish(const OutMessage& m, std::uint64_t expected_last) {
        // Headers take a few hundred bytes of the server's limit too.
        if (static_cast<std::int64_t>(m.data.size()) + 1024 > max_payload_)
            throw Error(ErrorKind::usage, "a message for " + m.subject + " (" +
                                              (m.headers.size() > 1 ? m.headers[1].first + " " + m.headers[1].second
                                                                    : std::string("?")) +
                                              ") is " +
                                              std::to_string(m.data.size()) + " bytes, over the server's max_payload of " +
                                              std::to_string(max_payload_) +
                                              " (raise max_payload in nats-server's configuration, or use --format "
                                              "debezium: one message per row change; for a snapshot chunk, a smaller "
                                              "--snapshot-chunk-rows)");
        natsMsg* msg = nullptr;
        nats::check_nats(natsMsg_Create(&msg, m.subject.c_str(), nullptr, m.data.data(), static_cast<int>(m.data.size())), 0,
                   "message for " + m.subject);
        for (const auto& [k, v] : m.headers) natsMsgHeader_Set(msg, k.c_str(), v.c_str());
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MaxWait = 10000;
        po.ExpectLastSeq = expected_last;
        // 0 (an empty stream) is not checked by the server; the first
        // message is guarded by its de-duplication id and by on_ack, which
        // insists on sequence 1.
        natsStatus s = js_PublishMsgAsync(client_->context(), &msg, &po);
        natsMsg_Destroy(msg);  // a no-op when the library took it
        if (s != NATS_OK) {
            acks_.fail(std::string("publishing to ") + m.subject + ": " + natsStatus_GetText(s));
        }
    }

    const ConnectOptions& source_;
    const cdc::StreamOptions& start_;
    const PublisherOptions& o_;
    std::ostream& log_;
    std::string prefix_;
    AckState acks_;
    std::optional<nats::JetStreamClient> client_;
    PublishStats stats_;
    std::int64_t max_payload_ = 1 << 20;
    mariadb::ndjson::Buffer line_buffer_;  // a part's lines
    bool source_failed_ = false;  // the last failure was opening the binlog
};

}  // namespace

PublishStats publish_changes(const ConnectOptions& source, const cdc::StreamOptions& start,
                             const PublisherOptions& options, std::ostream& log) {
    Publisher p(source, start, options, log);
    return p.run();
}

}  // namespace sluice::mariadb::jetstream
