#include "binlog_source.hpp"

#include <iostream>
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
    stream_.emplace(cdc::ChangeStream::open(server_, so));
}

bool BinlogSource::before_stored() const { return replay_until_ && !reached(stream_->position(), *replay_until_); }

Error BinlogSource::ended_before_stored() const {
    return Error(ErrorKind::sink_state, "the binlog ended before the stored position " + replay_until_->to_string() +
                                            " of \"" + run_.sink_table + "\" (was the source reset?)");
}

Step BinlogSource::next(TransactionMapper& mapper, bool /*holding: the stream blocks for input*/) {
    if (snapshot_ended_) {
        snapshot_arena_.clear();
        snapshot_ended_ = false;
    }
    const cdc::ChangeEvent* event = stream_->next();
    Step step;
    if (event == nullptr) {
        // Without --until-end the stream only ends when the server went
        // away (ChangeStream hands out nullptr when the server shuts the
        // dump down): a lost source, read again from the sink's state.
        step.kind = run_.until_end ? Step::Kind::end : Step::Kind::lost;
        if (!run_.until_end) step.text = "the binlog stream ended (the source server shut down?)";
    } else if (const auto* t = std::get_if<cdc::Transaction>(event)) {
        mapper.begin();
        scratch_.clear();
        t->for_each_change([&](const cdc::Change& c) { mapper.add(adapter_.change(c, scratch_)); });
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
        snapshot_ended_ = true;
        step.kind = Step::Kind::snapshot_done;
        step.text = text_;
    } else {
        // Ddl, Idle: the position moved past other statements or tables.
        step.kind = Step::Kind::skipped;
    }
    return step;
}

}  // namespace sluice::pipeline
