#pragma once
// A MariaDB binlog (ChangeStream) into a NATS JetStream stream, each
// transaction exactly once, in binlog order (docs/mariadb-cdc.md, "Into NATS
// JetStream").
//
//   PublishStats s = publish_changes(mariadb_options, {.start = StartAt::oldest},
//                                    {.urls = "nats://127.0.0.1:4222", .stream = "SHOP"}, std::cerr);
//
// The stream is the only state. At start, and after any failure, the
// publisher reads the stream's last message and opens the binlog after the
// position its Sluice-Gtid-State header names (an empty stream: after
// StreamOptions' own start). Every message is published with
// Nats-Expected-Last-Sequence = the sequence the previous one must have got,
// so a message the cluster did not store (a node lost, a leader change, a
// timeout) makes every later one fail too: nothing is ever stored out of
// order or with a gap, and the publisher resynchronises from the stream
// instead of retrying blindly. Nats-Msg-Id (the GTID) adds JetStream's own
// de-duplication. Publishing is asynchronous: at most `window` messages
// wait for their acknowledgment.
//
// Snapshots (StartAt::snapshot, which like every start option applies only
// to a stream without a position): one message per chunk and one for the
// end (snapshot_messages.hpp). A stream whose last message is inside an
// unfinished snapshot (a publisher killed during it) gets an abort message
// (sluice envelope) and then counts as empty: the start options apply again.
//
// The stream must have no other writer (another writer's message makes the
// next expected-sequence check fail, and a message without the Sluice
// headers at the end of the stream stops the publisher with an error).
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"

namespace sluice::mariadb::jetstream {

// Told what the publisher does, for `sluice-mariadb cdc --metrics`
// (counters, lag, health). acknowledged() is called on libnats's thread,
// the rest on the publishing thread.
class PublishObserver {
public:
    virtual ~PublishObserver() = default;
    // A source transaction went out: its messages end at stream sequence
    // `last_seq`; `position` is the binlog position after it.
    virtual void published(std::uint32_t commit_time, std::uint64_t row_changes, std::uint64_t bytes,
                           std::uint64_t last_seq, const cdc::GtidState& position) = 0;
    virtual void acknowledged(std::uint64_t seq) = 0;
    // A failure: `part` is "source" (the binlog could not be opened) or
    // "sink" (NATS); the publisher resynchronises from the stream.
    virtual void resynchronising(const std::string& part, const std::string& why) = 0;
    // The stream answered and the binlog is open: both parts work again.
    virtual void running() = 0;
};

struct PublisherOptions {
    std::string urls;            // nats://HOST:PORT[,nats://...]
    std::string stream;          // the stream's name
    std::string subject_prefix;  // default: the stream's name
    // Replicas of a stream created here; default 3 when the connection knows
    // at least three servers (a cluster), else 1. An existing stream is kept
    // as it is.
    std::optional<std::int64_t> replicas;
    Envelope envelope = Envelope::sluice;
    debezium::ValueOptions debezium_values;  // the debezium envelope's encodings (DECIMAL)
    std::int64_t window = 1000;  // unacknowledged messages at most
    // Keep retrying a lost cluster (no server, no leader) this long since
    // the last progress.
    std::chrono::milliseconds retry_for{std::chrono::minutes(5)};
    // Before NATS and the source both worked once, failures are retried
    // only this long (0: not at all): at start, an unreachable server is a
    // mistake to report, not an outage (issue 32).
    std::chrono::milliseconds connect_timeout{0};
    // A progress line on the log at most once per progress_interval (the
    // CLI's --progress: 1 s; 0: after every event), naming the transaction
    // in flight and its rows read so far.
    bool progress = false;
    std::chrono::milliseconds progress_interval{1000};
    // Sluice envelope: a transaction line longer than this, or than the
    // server's max_payload less 1 KiB, is published as part messages
    // (cdc_messages.hpp).
    std::size_t max_line_bytes = std::size_t{8} << 20;
    // Debezium envelope: a transaction is read whole (its row images, as
    // binlog bytes) before its first message, to number its changes I/N; one
    // whose selected Rows events exceed this many bytes stops the publisher
    // with an error naming it (0: no bound). Memory: about this much.
    std::size_t max_transaction_bytes = std::size_t{256} << 20;
    // May be null; must outlive publish_changes().
    PublishObserver* observer = nullptr;
    // Polled after each event: true stops publishing (graceful stop), once
    // what was published is acknowledged. May be null.
    bool (*stop_requested)() = nullptr;
};

struct PublishStats {
    std::uint64_t transactions = 0;  // source transactions published (this process)
    std::uint64_t messages = 0;      // messages acknowledged
    std::uint64_t resyncs = 0;       // restarts from the stream's last message after a failure
    std::uint64_t last_seq = 0;      // the stream's last sequence at the end
};

// Publishes until the binlog stream ends (StreamOptions::until_end, or the
// server shut the dump down) and every message is acknowledged. Throws
// Error for what retrying cannot fix (the binlog's errors, an API error, a
// foreign message at the end of the stream), or once retry_for passed
// without progress.
PublishStats publish_changes(const ConnectOptions& source, const cdc::StreamOptions& start,
                             const PublisherOptions& options, std::ostream& log);

}  // namespace sluice::mariadb::jetstream
