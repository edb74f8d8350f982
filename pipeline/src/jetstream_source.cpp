#include "jetstream_source.hpp"

#include <charconv>
#include <chrono>
#include <stdexcept>

#include "sluice/nats/error.hpp"
#include "sluice/pipeline/run_observer.hpp"

namespace sluice::pipeline {

namespace js = sluice::nats;

bool is_stream_source(const std::string& url) { return url.rfind("nats://", 0) == 0; }

StreamSource parse_stream_source(const std::string& url) {
    const auto q = url.find('?');
    const std::string query = q == std::string::npos ? "" : url.substr(q + 1);
    StreamSource s;
    s.urls = url.substr(0, q);
    std::size_t p = 0;
    while (p <= query.size() && !query.empty()) {
        const auto amp = query.find('&', p);
        const std::string item = query.substr(p, amp == std::string::npos ? std::string::npos : amp - p);
        if (item.rfind("stream=", 0) == 0) s.stream = item.substr(7);
        else if (!item.empty())
            throw Error(ErrorKind::usage, "--source " + url + ": unknown parameter \"" + item + "\" (expected stream=NAME)");
        if (amp == std::string::npos) break;
        p = amp + 1;
    }
    if (s.stream.empty()) throw Error(ErrorKind::usage, "--source " + url + ": expected nats://HOST:PORT?stream=NAME");
    for (char c : s.stream)
        if (c == '.' || c == '*' || c == '>' || c == ' ' || c == '/' || c == '\\')
            throw Error(ErrorKind::usage, "--source " + url + ": \"" + s.stream + "\" is not a stream name");
    if (s.urls.size() <= 7) throw Error(ErrorKind::usage, "--source " + url + ": expected nats://HOST:PORT?stream=NAME");
    return s;
}

std::string partition_state_name(const std::string& sink_table, const Partition& p) {
    return sink_table + "#" + std::to_string(p.index) + "/" + std::to_string(p.count);
}

namespace {

std::string position_text(const std::string& stream, std::uint64_t seq) {
    return "jetstream:" + stream + ":" + std::to_string(seq);
}

std::uint64_t position_seq(const std::string& text, const std::string& stream, const std::string& what) {
    const std::string prefix = "jetstream:" + stream + ":";
    std::uint64_t seq = 0;
    if (text.rfind(prefix, 0) == 0) {
        const char* b = text.data() + prefix.size();
        const char* e = text.data() + text.size();
        auto [p, ec] = std::from_chars(b, e, seq);
        if (ec == std::errc() && p == e && b != e) return seq;
    }
    throw Error(ErrorKind::sink_state, what + " is \"" + text + "\", not a position in stream \"" + stream +
                                           "\" (was this NAME written from another source?)");
}

// A call of the JetStream client. All its failures (nats::Error) but a
// usage error are retried from the sink's state like a lost binlog (for up
// to --retry-for without progress): besides a lost cluster or a leader
// election, a node that was just restarted answers "stream not found" or
// refuses the consumer for a while.
//
// `first_contact`: the connection that starts a run. A NATS that cannot be
// reached there (refused, unknown host: kind io) stays what it is, so that
// run_with_retries' start rule (start_failure.hpp) decides: no five minutes
// of retries for a typo in the URL (issue 32). A cluster that answers but
// has no leader yet is still retried.
template <typename F>
decltype(auto) call_nats(F&& call, bool first_contact = false) {
    try {
        return call();
    } catch (const js::Error& e) {
        if (first_contact && e.kind() == js::ErrorKind::io) throw;
        if (e.kind() != js::ErrorKind::usage) throw Error(ErrorKind::source_ended, std::string("NATS: ") + e.what());
        throw;
    }
}

}  // namespace

JetStreamSource::JetStreamSource(StreamSource stream, JetStreamOptions options, const RunOptions& run)
    : stream_(std::move(stream)), options_(options), run_(run), lines_(run.columns, run.db, run.table) {}

BatchLimits JetStreamSource::batch_limits(const BatchLimits& asked) const {
    BatchLimits l = asked;
    l.catch_up_age = l.age;
    return l;
}

void JetStreamSource::check() {
    client_.emplace(call_nats([&] { return js::JetStreamClient::connect(stream_.urls); }, /*first_contact=*/true));
    state_at_start_ = call_nats([&] { return client_->stream_state(stream_.stream); });
    if (!state_at_start_)
        throw Error(ErrorKind::source_ended, "stream \"" + stream_.stream + "\" does not exist (yet) at " + stream_.urls);
    if (state_at_start_->subjects.empty())
        throw Error(ErrorKind::source_table, "stream \"" + stream_.stream + "\" has no subjects");
}

void JetStreamSource::open(const std::optional<Resume>& resume) {
    const std::string name = state_name();
    if (resume) {
        position_ = position_seq(resume->checkpoint_position, stream_.stream, "the checkpoint's position of \"" + name + "\"");
        const std::uint64_t stored = position_seq(resume->stored_position, stream_.stream, "the position of \"" + name + "\"");
        if (stored != position_) replay_until_ = stored;
    } else {
        // A worker without state reads the stream from its first message.
        position_ = state_at_start_->first_seq > 0 ? state_at_start_->first_seq - 1 : 0;
    }
    if (state_at_start_->messages > 0 && state_at_start_->first_seq > position_ + 1)
        throw Error(ErrorKind::sink_state, "stream \"" + stream_.stream + "\" starts at sequence " +
                                               std::to_string(state_at_start_->first_seq) + ", after " +
                                               std::to_string(position_ + 1) +
                                               ", the next one this worker needs (messages were removed)");
    end_ = state_at_start_->last_seq;
    lines_.forget_parts();  // (a run again after an error inside one)
    reader_.emplace(call_nats([&] {
        return js::StreamReader::open(*client_, stream_.stream, state_at_start_->subjects.front(), position_ + 1);
    }));
}

Error JetStreamSource::ended_before_stored() const {
    return Error(ErrorKind::sink_state, "stream \"" + stream_.stream + "\" ended before the stored position " +
                                            std::to_string(replay_until_) + " of \"" + state_name() + "\"");
}

Step JetStreamSource::next(TransactionMapper& mapper, bool holding) {
    // The last snapshot chunk's rows are applied (the run applies each as
    // it comes, source.hpp): their text may go.
    snapshot_arena_.clear();
    again_reader_.reset();
    again_lines_.reset();
    for (;;) {
        Step step;
        if (run_.until_end && position_ >= end_) {
            step.kind = Step::Kind::end;
            return step;
        }
        // With something to commit, look for input briefly; else block longer.
        const bool briefly = holding && !input_pending();
        auto m = call_nats([&] { return reader_->next(briefly ? std::chrono::milliseconds(20) : std::chrono::milliseconds(500)); });
        if (!m) return step;  // idle, and quiet
        if (m->seq <= position_) continue;  // delivered again after the consumer was recreated
        if (m->seq != position_ + 1)
            throw Error(ErrorKind::source_ended, "stream \"" + stream_.stream + "\" delivered sequence " +
                                                     std::to_string(m->seq) + " after " + std::to_string(position_) +
                                                     "; reading again from the stored position");
        read_seq_ = m->seq;
        step = step_of(*m, mapper);
        if (step.kind != Step::Kind::end) position_ = read_seq_;
        // A message just read may well have a successor on its way.
        step.quiet = false;
        return step;
    }
}

Step JetStreamSource::step_of(const js::DeliveredMessage& m, TransactionMapper& mapper) {
    const std::string where = this->where(m.seq);
    last_transaction_ = nullptr;
    first_part_seq_ = 0;
    const ParsedLine& line = lines_.parse(m.data, where);
    if (snapshot_ && (line.transaction || (line.snapshot != SnapshotPart::none && line.snapshot_gtid != *snapshot_)))
        throw Error(ErrorKind::source_image,
                    where + ": " + (line.transaction ? "a transaction" : "a line of snapshot " + line.snapshot_gtid) +
                        " inside snapshot " + *snapshot_ + " (no done or aborted line between them)");
    Step step;
    if (line.snapshot == SnapshotPart::chunk) {
        if (!snapshot_) {
            snapshot_ = line.snapshot_gtid;
            before_snapshot_ = position_;
        }
        chunk_rows_.clear();
        for (SourceChange c : line.changes) {  // their text views the parser's buffer: copy it
            for (SourceValue& v : *c.after)
                if (v.kind == SourceValue::Kind::text) v.text = snapshot_arena_.store(v.text);
            chunk_rows_.push_back(c);
        }
        step.kind = Step::Kind::snapshot_rows;
        step.rows = chunk_rows_;
    } else if (line.snapshot == SnapshotPart::done || line.snapshot == SnapshotPart::aborted) {
        snapshot_.reset();
        step.kind = line.snapshot == SnapshotPart::done ? Step::Kind::snapshot_done : Step::Kind::snapshot_aborted;
        step.text = line.snapshot_gtid;
    } else if (line.transaction) {
        using Parts = mariadb::cdc::ndjson::PartSequence::Step;
        if (line.part_step == Parts::rolled_back) {  // one part, void
            step.kind = Step::Kind::skipped;
            return step;
        }
        mapper.begin();
        for (const SourceChange& c : line.changes) mapper.add(c);
        if (line.part_step == Parts::opens) {
            first_part_seq_ = m.seq;
            bool ended = false;
            if (!map_parts(mapper, ended)) {
                step.kind = ended ? Step::Kind::end : Step::Kind::skipped;
                return step;
            }
        } else {
            last_transaction_ = &line;
        }
        step.kind = Step::Kind::transaction;
        step.text = line.gtid;  // (the same in every part)
        step.timestamp = line.timestamp;
    } else {
        step.kind = Step::Kind::skipped;  // DDL
    }
    return step;
}

std::string JetStreamSource::where(std::uint64_t seq) const {
    return "stream \"" + stream_.stream + "\" sequence " + std::to_string(seq);
}

bool JetStreamSource::stop_requested() const { return observer_or_none(run_.observer).stop_requested(); }

std::optional<js::DeliveredMessage> JetStreamSource::next_message_after(js::StreamReader& reader, std::uint64_t seq,
                                                                        bool stoppable) {
    for (;;) {
        auto m = call_nats([&] { return reader.next(std::chrono::milliseconds(500)); });
        if (!m && stoppable && stop_requested()) return std::nullopt;
        if (!m || m->seq <= seq) continue;  // not yet; or delivered again
        if (m->seq != seq + 1)
            throw Error(ErrorKind::source_ended, "stream \"" + stream_.stream + "\" delivered sequence " +
                                                     std::to_string(m->seq) + " after " + std::to_string(seq) +
                                                     " inside a transaction in parts; reading again from the stored position");
        return *m;
    }
}

bool JetStreamSource::map_parts(TransactionMapper& mapper, bool& ended) {
    using Parts = mariadb::cdc::ndjson::PartSequence::Step;
    for (;;) {
        // The part's text goes at the next parse: what the mapper holds of
        // it is applied first.
        mapper.end_part();
        if (run_.until_end && read_seq_ >= end_) {
            // The stream ended inside the transaction (its publisher is
            // still to continue it at the next part): the position stays
            // before it, so the next run reads it from part 1.
            lines_.forget_parts();
            ended = true;
            return false;
        }
        // A graceful stop inside the transaction (its next part may be long
        // in coming: the publisher down): as at the end of the stream, the
        // position stays before it and the parts applied are abandoned.
        std::optional<js::DeliveredMessage> next;
        if (!stop_requested()) next = next_message_after(*reader_, read_seq_, /*stoppable=*/true);
        if (!next) {
            lines_.forget_parts();
            ended = true;
            return false;
        }
        const js::DeliveredMessage& m = *next;
        read_seq_ = m.seq;
        const ParsedLine& line = lines_.parse(m.data, where(m.seq));
        if (line.part_step == Parts::rolled_back) return false;
        for (const SourceChange& c : line.changes) mapper.add(c);
        if (line.part_step == Parts::completes) return true;
    }
}

void JetStreamSource::read_transaction_again(TransactionMapper& mapper) {
    if (first_part_seq_ != 0) {
        // Its earlier parts are gone: a reader of its own reads its
        // messages again from part 1 (the run's reader stays after it).
        using Parts = mariadb::cdc::ndjson::PartSequence::Step;
        again_reader_.reset();
        again_lines_.emplace(run_.columns, run_.db, run_.table);
        again_reader_.emplace(call_nats([&] {
            return js::StreamReader::open(*client_, stream_.stream, state_at_start_->subjects.front(), first_part_seq_);
        }));
        mapper.begin();
        for (std::uint64_t seq = first_part_seq_ - 1; seq < read_seq_;) {
            if (seq >= first_part_seq_) mapper.end_part();
            // (The parts are all in the stream: its last part was read once.)
            const js::DeliveredMessage m = *next_message_after(*again_reader_, seq, /*stoppable=*/false);
            seq = m.seq;
            const ParsedLine& line = again_lines_->parse(m.data, where(m.seq));
            for (const SourceChange& c : line.changes) mapper.add(c);
            if (line.part_step == Parts::completes) return;
        }
        throw Error(ErrorKind::source_image, "reading transaction at " + where(first_part_seq_) +
                                                 " again: its last part is not where it was");
    }
    if (last_transaction_ == nullptr) throw std::logic_error("pipeline: read_transaction_again() after a step that was no transaction");
    mapper.begin();
    for (const SourceChange& c : last_transaction_->changes) mapper.add(c);
}

std::string JetStreamSource::position() const {
    return position_text(stream_.stream, snapshot_ ? before_snapshot_ : position_);
}

bool JetStreamSource::input_pending() const {
    return call_nats([&] { return reader_->pending(); });
}

std::string JetStreamSource::progress_where() const {
    return "partition " + std::to_string(options_.partition.index) + "/" + std::to_string(options_.partition.count) +
           ": stream sequence " + std::to_string(position_) + ", ";
}

}  // namespace sluice::pipeline
