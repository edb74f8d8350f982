#pragma once
// The binlog of a MariaDB server as a pipeline Source (source.hpp), through
// mariadb's ChangeStream: DB.TABLE's transactions, its snapshot (chunks,
// then done: one Tideweave transaction), and Idle events when the stream
// went quiet after other tables' transactions. Positions are GTID states;
// a fresh run starts as --from-* says (BinlogOptions).
#include <optional>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/pipeline/binlog_adapter.hpp"
#include "sluice/pipeline/source.hpp"

namespace sluice::pipeline {

class BinlogSource final : public Source {
public:
    // `server`: mariadb::parse_url of --source.
    BinlogSource(mariadb::ConnectOptions server, BinlogOptions options, const RunOptions& run);

    std::string state_name() const override { return run_.sink_table; }
    Partition partition() const override { return {}; }
    bool shares_sink_tables() const override { return false; }
    // Catching up (the newest transaction read committed long ago): bigger
    // batches, as each cut costs PostgreSQL an upsert of every session open
    // at the cut; following: short ones, for the lag.
    BatchLimits batch_limits(const BatchLimits& asked) const override { return asked; }

    void check() override;
    void open(const std::optional<Resume>& resume) override;
    bool before_stored() const override;
    Error ended_before_stored() const override;

    Step next(TransactionMapper& mapper, bool holding) override;
    void read_transaction_again(TransactionMapper& mapper) override;
    bool resumable() const override { return stream_->resumable(); }
    std::string position() const override { return stream_->position().to_string(); }
    // The stream blocks for input: when none is pending, waiting for the
    // writer is better than leaving the batch for an event that may not
    // come.
    bool input_pending() const override { return stream_->input_pending(); }

    std::string progress_where() const override { return ""; }
    bool progress_shows_sink_time() const override { return true; }

private:
    mariadb::ConnectOptions server_;
    BinlogOptions options_;
    RunOptions run_;
    std::optional<mariadb::cdc::ChangeStream> stream_;
    std::optional<mariadb::cdc::GtidState> replay_until_;  // the stored position, when ahead of the checkpoint's
    BinlogAdapter adapter_;
    const mariadb::cdc::Transaction* last_transaction_ = nullptr;  // the last transaction step's (the stream's, until next())
    StringArena scratch_;          // a transaction's cells that are not numbers or text
    StringArena snapshot_arena_;   // the open snapshot's cells
    bool snapshot_ended_ = false;  // its done step was handed out: its cells may go
    std::vector<SourceChange> chunk_rows_;
    std::string text_;  // the last step's text
};

}  // namespace sluice::pipeline
