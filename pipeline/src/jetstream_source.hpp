#pragma once
// A NATS JetStream stream that `sluice-mariadb cdc --to` fills, as a
// pipeline Source (source.hpp): --source nats://HOST:PORT?stream=NAME,
// --partition I/N (docs/pipeline.md, "Scaling out").
//   - The worker's state is a sluice_pipeline_state row of its own
//     (NAME#I/N), written in the same PostgreSQL transaction as its rows;
//     its position is "jetstream:STREAM:SEQ", the last applied message.
//   - Every start reads the stream in order from the message after the
//     checkpoint's sequence; a run holds its commits back until the stored
//     sequence is passed again.
//   - Every message (every source transaction) is read by every worker: the
//     watermark sees all of them; only the keys of partition I are applied
//     (SessionApplier on the partition).
//   - A snapshot (its chunk lines, then its done line) is one Tideweave
//     transaction, applied a chunk at a time as the lines come and
//     committed at the done line; nothing is committed while it is open
//     (the position stays before its first chunk), so a restart reads it
//     again from its first chunk. An "aborted" line (a publisher killed
//     during the snapshot) takes back what was applied of it.
//   - A transaction in several messages (part lines, docs/mariadb-cdc.md
//     "Transactions in several messages"): its parts are mapped as they
//     are read, each applied (TransactionMapper::end_part) before the next
//     message is parsed, and the step is the transaction at its last part;
//     the position stays before its first part until then. Parts out of
//     order, a gtid or ts changing inside it, or another line before its
//     last part are Error{source_image} naming the sequence (nothing of it
//     is committed). A publisher killed inside it continues at the next part
//     (h25a's resume rule), so the worker waits for it; --until-end at the
//     stream's end inside it is the end step (the run abandons its parts).
//     A part with "rolled_back" voids it: a skipped step.
//   - NATS failures (nats::Error, but a usage error) are
//     Error{source_ended} "NATS: ...": retried from the sink's state like a
//     lost binlog. Besides a lost cluster or a leader election, a node that
//     was just restarted answers "stream not found" or refuses the consumer
//     for a while; the stream's existence and subjects are checked first.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/nats/client.hpp"
#include "sluice/nats/stream_reader.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"
#include "sluice/pipeline/source.hpp"
#include "sluice/pipeline/stream_source.hpp"

namespace sluice::pipeline {

class JetStreamSource final : public Source {
public:
    JetStreamSource(StreamSource stream, JetStreamOptions options, const RunOptions& run);

    std::string state_name() const override { return partition_state_name(run_.sink_table, options_.partition); }
    Partition partition() const override { return options_.partition; }
    bool shares_sink_tables() const override { return true; }
    // One batch age: the worker has no catch-up mode.
    BatchLimits batch_limits(const BatchLimits& asked) const override;

    void check() override;
    void open(const std::optional<Resume>& resume) override;
    bool before_stored() const override { return position_ < replay_until_; }
    Error ended_before_stored() const override;

    Step next(TransactionMapper& mapper, bool holding) override;
    void read_transaction_again(TransactionMapper& mapper) override;
    bool resumable() const override { return !snapshot_; }
    // Every message applied so far, except an open snapshot's chunks.
    std::string position() const override;
    bool input_pending() const override;

    std::string progress_where() const override;
    bool progress_shows_sink_time() const override { return false; }

private:
    // One message, read and checked: the step it is.
    Step step_of(const nats::DeliveredMessage& m, TransactionMapper& mapper);
    const ParsedLine* last_transaction_ = nullptr;  // the last transaction step's line (lines_', until the next parse)
    // The parts after part 1 (read from sequence read_seq_ on): false when
    // the transaction was rolled back, or --until-end or a graceful stop
    // ended inside it (`ended` says which).
    bool map_parts(TransactionMapper& mapper, bool& ended);
    // The message after `seq`, waiting for it as long as it takes; with
    // `stoppable`, nothing once a graceful stop is asked for meanwhile.
    std::optional<nats::DeliveredMessage> next_message_after(nats::StreamReader& reader, std::uint64_t seq,
                                                             bool stoppable);
    bool stop_requested() const;
    std::string where(std::uint64_t seq) const;

    StreamSource stream_;
    JetStreamOptions options_;
    RunOptions run_;
    std::optional<nats::JetStreamClient> client_;
    std::optional<nats::StreamState> state_at_start_;
    std::optional<nats::StreamReader> reader_;  // after client_: it must not outlive it
    NdjsonTransactions lines_;
    std::uint64_t position_ = 0;      // the last message applied
    std::uint64_t read_seq_ = 0;      // the last message read (position_ but inside a transaction in parts)
    std::uint64_t first_part_seq_ = 0;  // the last transaction step's part 1 (0: it was one message)
    // read_transaction_again() of a transaction in parts: its own reader and
    // parser (the mapper's last part views the parser; kept until the next step).
    std::optional<NdjsonTransactions> again_lines_;
    std::optional<nats::StreamReader> again_reader_;
    std::uint64_t replay_until_ = 0;  // the stored position when ahead of the checkpoint's (0: none)
    std::uint64_t end_ = 0;           // --until-end: everything the stream held at the start
    // The open snapshot: its GTID state, the position before its first
    // chunk (what a commit records while it is open).
    std::optional<std::string> snapshot_;
    std::uint64_t before_snapshot_ = 0;
    StringArena snapshot_arena_;  // the last chunk line's text, until the next step
    std::vector<SourceChange> chunk_rows_;
    std::string text_;  // the last step's text
};

}  // namespace sluice::pipeline
