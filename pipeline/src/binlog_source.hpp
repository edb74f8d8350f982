#pragma once
// The binlog of a MariaDB server as a pipeline Source (source.hpp), through
// mariadb's ChangeStream: DB.TABLE's transactions, its snapshot (chunks,
// then done: one Tideweave transaction), and Idle events when the stream
// went quiet after other tables' transactions. Positions are GTID states;
// a fresh run starts as --from-* says (BinlogOptions). A transaction comes
// from the stream in parts of about 1 MiB of binlog rows
// (StreamOptions::part_bytes), each mapped and handed to the mapper's part
// handler before the next is read, so the source holds one part of it.
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
    // Maps the parts of the transaction `first` begins (the stream's next
    // events, up to its last part) into `mapper`. `rolled_back`: after parts
    // went out (docs/pipeline.md, "Huge transactions"); `stopped`: a
    // graceful stop was asked for between two parts (`stoppable` only).
    enum class PartsRead { whole, rolled_back, stopped };
    PartsRead map_parts(mariadb::cdc::ChangeStream& stream, const mariadb::cdc::TransactionPart& first,
                        TransactionMapper& mapper, bool stoppable);
    void map(const mariadb::cdc::Transaction& t, TransactionMapper& mapper);

    mariadb::cdc::StreamOptions stream_options_;  // open()'s, for reading a transaction again
    // The last transaction step's: its GTID and the position before it.
    std::optional<mariadb::cdc::GtidState> before_transaction_;
    std::optional<mariadb::cdc::ChangeStream> again_;  // read_transaction_again()'s, until the next step
    StringArena scratch_;          // a part's cells that are not numbers or text
    StringArena snapshot_arena_;   // the last snapshot chunk's cells, until the next step
    std::vector<SourceChange> chunk_rows_;
    std::string text_;  // the last step's text
};

}  // namespace sluice::pipeline
