#include "binlog_source.hpp"

#include <iostream>
#include <stdexcept>
#include <variant>

#include "sluice/mariadb/connection.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "source_table.hpp"

namespace sluice::pipeline {

namespace cdc = sluice::mariadb::cdc;

namespace {

// Every domain of `target` reached by `position`.
bool reached(const cdc::GtidState& position, const cdc::GtidState& target) {
    for (const auto& g : target.gtids()) {
        auto p = position.domain(g.domain_id);
        if (!p || p->seq_no < g.seq_no) return false;
    }
    return true;
}

}  // namespace

BinlogSource::BinlogSource(mariadb::ConnectOptions server, BinlogOptions options, const RunOptions& run)
    : server_(std::move(server)), options_(std::move(options)), run_(run), adapter_(run.columns) {}

void BinlogSource::check() {
    mariadb::Connection conn = mariadb::Connection::connect(server_);
    check_source_table(conn, run_);
}

void BinlogSource::open(const std::optional<Resume>& resume) {
    cdc::StreamOptions so;
    so.tables = cdc::TableFilter::parse(run_.db + "." + run_.table);
    // An Idle event when the stream goes quiet after other tables'
    // transactions: the run then commits a batch it held back while their
    // bytes were pending (else it would wait for this table's next
    // transaction, however long that takes).
    so.idle_events = true;
    so.until_end = run_.until_end;
    // --metrics: the stream's reconnects, which happen inside next().
    so.observer = run_.observer;
    // A source URL with several servers: failover (docs/mariadb-cdc.md).
    so.failover_after = options_.failover_after;
    so.on_lost_transactions =
        options_.continue_after_lost ? cdc::OnLostTransactions::continue_ : cdc::OnLostTransactions::stop;
    so.log = &std::cerr;
    so.log_prefix = "sluice-pipeline: source: ";
    if (resume) {
        so.start = cdc::StartAt::gtid;
        so.gtid = cdc::GtidState::parse(resume->checkpoint_position);
        if (resume->stored_position != resume->checkpoint_position)
            replay_until_ = cdc::GtidState::parse(resume->stored_position);
    } else {
        switch (options_.start) {
            case StartMode::from_start: so.start = cdc::StartAt::oldest; break;
            case StartMode::from_gtid:
                so.start = cdc::StartAt::gtid;
                so.gtid = cdc::GtidState::parse(options_.from_gtid);
                break;
            case StartMode::from_now: so.start = cdc::StartAt::now; break;
            case StartMode::snapshot: so.start = cdc::StartAt::snapshot; break;
        }
    }
    // A transaction in parts of about this many bytes of binlog rows: what
    // the source holds of a huge one (issue 25).
    so.part_bytes = std::size_t{1} << 20;
    stream_options_ = so;
    stream_.emplace(cdc::ChangeStream::open(server_, so));
}

void BinlogSource::map(const cdc::Transaction& t, TransactionMapper& mapper) {
    t.for_each_change([&](const cdc::Change& c) { mapper.add(adapter_.change(c, scratch_)); });
}

BinlogSource::PartsRead BinlogSource::map_parts(cdc::ChangeStream& stream, const cdc::TransactionPart& first,
                                                TransactionMapper& mapper, bool stoppable) {
    const cdc::TransactionPart* part = &first;
    mapper.begin();
    scratch_.clear();
    for (;;) {
        if (part->rolled_back) return PartsRead::rolled_back;
        map(part->changes, mapper);
        if (part->last) return PartsRead::whole;
        // The part's bytes go at the next read: what the mapper holds of
        // them is applied first.
        mapper.end_part();
        scratch_.clear();
        if (stoppable && observer_or_none(run_.observer).stop_requested()) return PartsRead::stopped;
        const cdc::ChangeEvent* event = stream.next();
        part = event ? std::get_if<cdc::TransactionPart>(event) : nullptr;
        if (part == nullptr)
            throw Error(ErrorKind::source_ended, "the binlog stream ended inside transaction " +
                                                     mariadb::binlog::to_string(first.changes.gtid) + " after part " +
                                                     std::to_string(first.part));
    }
}

bool BinlogSource::before_stored() const { return replay_until_ && !reached(stream_->position(), *replay_until_); }

Error BinlogSource::ended_before_stored() const {
    return Error(ErrorKind::sink_state, "the binlog ended before the stored position " + replay_until_->to_string() +
                                            " of \"" + run_.sink_table + "\" (was the source reset?)");
}

Step BinlogSource::next(TransactionMapper& mapper, bool /*holding: the stream blocks for input*/) {
    // The last snapshot chunk's rows are applied (the run applies each as
    // it comes, source.hpp): their text may go.
    snapshot_arena_.clear();
    before_transaction_.reset();
    again_.reset();
    // Before the next event: a transaction that comes as one part (its
    // last) has moved position() past it by the time next() returns it, and
    // reading it again from there found the transaction after it (a
    // transaction of more mapper parts than stream parts, refused: seen
    // with 20,000 rows, under the 1 MiB stream part). From here, the next
    // transaction of the table is the one next() returns.
    const cdc::GtidState before = stream_->position();
    const cdc::ChangeEvent* event = stream_->next();
    Step step;
    if (event == nullptr) {
        // Without --until-end the stream only ends when the server went
        // away (ChangeStream hands out nullptr when the server shuts the
        // dump down): a lost source, read again from the sink's state.
        step.kind = run_.until_end ? Step::Kind::end : Step::Kind::lost;
        if (!run_.until_end) step.text = "the binlog stream ended (the source server shut down?)";
    } else if (const auto* part = std::get_if<cdc::TransactionPart>(event)) {
        const std::string gtid = mariadb::binlog::to_string(part->changes.gtid);
        const std::uint32_t timestamp = part->changes.timestamp;
        switch (map_parts(*stream_, *part, mapper, /*stoppable=*/true)) {
            case PartsRead::whole:
                before_transaction_ = before;
                text_ = gtid;
                step.kind = Step::Kind::transaction;
                step.text = text_;
                step.timestamp = timestamp;
                break;
            case PartsRead::rolled_back:
                // Its parts are void (the run abandons what it applied of them).
                step.kind = Step::Kind::skipped;
                break;
            case PartsRead::stopped:
                // A graceful stop inside a huge transaction, which could take
                // longer than the stop's grace: as at the end of the source,
                // its parts are abandoned and the position stays before it
                // (the stream covers a transaction only at its last part),
                // so the next run reads it from its start.
                step.kind = Step::Kind::end;
                break;
        }
    } else if (const auto* t = std::get_if<cdc::Transaction>(event)) {
        // (Only without part_bytes; kept for a stream opened so.)
        before_transaction_.reset();
        mapper.begin();
        scratch_.clear();
        map(*t, mapper);
        text_ = mariadb::binlog::to_string(t->gtid);
        step.kind = Step::Kind::transaction;
        step.text = text_;
        step.timestamp = t->timestamp;
    } else if (const auto* chunk = std::get_if<cdc::SnapshotChunk>(event)) {
        chunk_rows_.clear();
        for (std::size_t r = 0; r < chunk->size(); ++r) {
            SourceChange c;
            c.op = SourceChange::Op::insert;
            c.after = adapter_.snapshot_row(*chunk, r, snapshot_arena_);
            chunk_rows_.push_back(c);
        }
        step.kind = Step::Kind::snapshot_rows;
        step.rows = chunk_rows_;
    } else if (const auto* done = std::get_if<cdc::SnapshotDone>(event)) {
        text_ = done->at.to_string();
        step.kind = Step::Kind::snapshot_done;
        step.text = text_;
    } else if (std::holds_alternative<cdc::Idle>(*event) && stream_->position() == before) {
        // A heartbeat of a quiet server: nothing read, and the loop looks at
        // its other work (a commit that failed, a stop).
        step.kind = Step::Kind::idle;
    } else {
        // Ddl, Idle: the position moved past other statements or tables.
        step.kind = Step::Kind::skipped;
    }
    return step;
}

void BinlogSource::read_transaction_again(TransactionMapper& mapper) {
    if (!before_transaction_)
        throw std::logic_error("pipeline: read_transaction_again() after a step that was no transaction in parts");
    // Its earlier parts are gone: a stream of its own reads it again from
    // the position before it (the next transaction of the table there is
    // this one), while the run's stream stays after it.
    cdc::StreamOptions so = stream_options_;
    so.start = cdc::StartAt::gtid;
    so.gtid = *before_transaction_;
    so.until_end = true;
    so.observer = nullptr;
    so.idle_events = false;
    // Kept until the next step: the mapper's last part views its bytes.
    again_.emplace(cdc::ChangeStream::open(server_, so));
    cdc::ChangeStream& again = *again_;
    for (;;) {
        const cdc::ChangeEvent* event = again.next();
        if (event == nullptr)
            throw Error(ErrorKind::source_ended, "reading transaction " + text_ + " again from " +
                                                     before_transaction_->to_string() + ": the binlog ended before it");
        const auto* part = std::get_if<cdc::TransactionPart>(event);
        if (part == nullptr) continue;  // Idle
        if (mariadb::binlog::to_string(part->changes.gtid) != text_)
            throw Error(ErrorKind::source_image, "reading transaction " + text_ + " again from " +
                                                     before_transaction_->to_string() + ": found " +
                                                     mariadb::binlog::to_string(part->changes.gtid) + " there");
        if (map_parts(again, *part, mapper, /*stoppable=*/false) != PartsRead::whole)
            throw Error(ErrorKind::source_image, "reading transaction " + text_ + " again: it was rolled back");
        return;
    }
}

}  // namespace sluice::pipeline
