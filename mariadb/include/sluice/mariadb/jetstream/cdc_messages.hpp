#pragma once
// What `sluice-mariadb cdc --to nats://...` puts in a JetStream stream, and
// how a restart finds where to continue (docs/mariadb-cdc.md, "Into NATS
// JetStream"). Sans-I/O: values in, messages and positions out.
//
// Envelope sluice (the default): one message per committed transaction or
// DDL statement, its data the CDC NDJSON line (without the newline), subject
// PREFIX. Envelope debezium: one message per row change, Debezium's JSON
// envelope with Debezium's value encodings (debezium_values.hpp), subject
// PREFIX.DB.TABLE; and one per DDL statement, Debezium's schema change event
// (source, ts_ms, databaseName, schemaName, ddl, tableChanges: []), subject
// PREFIX, its Nats-Msg-Id the GTID.
//
// Transactions in parts (sluice envelope, issue 25): a transaction whose
// line does not fit one message (the server's max_payload less 1 KiB, or
// --max-line-bytes when smaller) is published as several, one per part line
// (ndjson.hpp: {"gtid",...,"part":K[,"last":true],"changes":[...]}), in
// order, nothing between them. Their headers:
//   Nats-Msg-Id               GTID#K
//   Sluice-Part               K (1, 2, ...)
//   Sluice-Last               "true", on the last part only
//   Sluice-Part-Rows          the transaction's changes in parts 1..K (what a
//                             resume skips)
//   Sluice-Gtid-State         on the last part the position after the
//                             transaction; on the others the position before it
// Consumers apply a transaction once its last part has arrived (or stream
// the parts into a transaction of their own and commit at the last).
// Resume: a stream that ends inside a transaction (its last message a part
// without Sluice-Last) is resumed at the next part: the binlog is read again
// from before the transaction, its first Sluice-Part-Rows changes are left
// out, and parts continue at K+1 (de-duplication ids stay unique; no abort
// marker is needed because nothing published is taken back).
// The debezium envelope is one message per row change as before: a
// transaction's row changes are consecutive messages numbered Sluice-Change
// I/N, the last (I = N) closing it (docs/mariadb-cdc.md).
//
// Headers of every message:
//   Nats-Msg-Id               the GTID (sluice, debezium DDL) or GTID:INDEX
//                             (debezium row changes), for JetStream's de-duplication
//   Sluice-Gtid               the transaction's GTID, D-S-N
//   Sluice-Gtid-State         the replication position after the transaction
//                             (every domain: what a restart resumes from)
//   Sluice-Gtid-State-Before  the position before it (debezium row changes only)
//   Sluice-Change             I/N: the change's index (1-based) among the N
//                             published changes of the transaction (debezium
//                             row changes only)
//
// A snapshot (--snapshot) is published as messages of its own
// (snapshot_messages.hpp): sluice, one message per chunk line and one for the
// done line; debezium, one `op:"r"` message per row. Their headers:
//   Nats-Msg-Id               snapshot:ID:N (chunk or row N, 1-based),
//                             snapshot:ID:done, snapshot:ID:aborted
//   Sluice-Snapshot           ID = GTIDSTATE:STARTMS: the snapshot's position
//                             and the time the publisher began it (two
//                             snapshots of an idle server differ in the time)
//   Sluice-Snapshot-Chunk     N, the chunk's index (sluice)
//   Sluice-Snapshot-Row       N, the row's index in the snapshot (debezium)
//   Sluice-Snapshot-End       "done" (the done line; debezium: the last row)
//                             or "aborted" (a snapshot cut off by a kill)
//   Sluice-Gtid-State         on the "done" message only: where the binlog
//                             continues
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/cdc/debezium_values.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::mariadb::jetstream {

// What the stream stores (sluice/nats/client.hpp).
using nats::StoredMessage;
// The Debezium envelope's value encodings (sluice/mariadb/cdc/debezium_values.hpp).
namespace debezium = cdc::debezium;

inline constexpr const char* msg_id_header = "Nats-Msg-Id";
inline constexpr const char* gtid_header = "Sluice-Gtid";
inline constexpr const char* state_header = "Sluice-Gtid-State";
inline constexpr const char* state_before_header = "Sluice-Gtid-State-Before";
inline constexpr const char* change_header = "Sluice-Change";
inline constexpr const char* snapshot_header = "Sluice-Snapshot";
inline constexpr const char* snapshot_chunk_header = "Sluice-Snapshot-Chunk";
inline constexpr const char* snapshot_row_header = "Sluice-Snapshot-Row";
inline constexpr const char* snapshot_end_header = "Sluice-Snapshot-End";
inline constexpr const char* part_header = "Sluice-Part";
inline constexpr const char* last_header = "Sluice-Last";
inline constexpr const char* part_rows_header = "Sluice-Part-Rows";

// Which snapshot: its position and the publisher's wall-clock time (ms) when
// it began. Text: "GTIDSTATE:STARTMS" (a GTID state holds no ':').
struct SnapshotId {
    cdc::GtidState at;
    std::int64_t started_ms = 0;

    std::string to_string() const;
    // Error{protocol} naming `where` when the text is not an id.
    static SnapshotId parse(std::string_view text, const std::string& where);
};

enum class Envelope { sluice, debezium };

struct OutMessage {
    std::string subject;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string data;
};

// A NATS subject token for a database or table name: characters a subject
// cannot hold in a token (space, '.', '*', '>', control characters) become '_'.
std::string subject_token(std::string_view name);

// The messages of one event, in order. `before`/`after`: the stream's
// position before and after it. `now_ms`: the envelope's processing time
// (debezium's top-level ts_ms). `values`: the debezium envelope's value
// encodings. Snapshot events have no messages here.
void messages_of(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::GtidState& before,
                 const cdc::GtidState& after, Envelope envelope, const std::string& prefix, std::int64_t now_ms,
                 const debezium::ValueOptions& values = {});
// The same messages handed to `f` one at a time as they are made: the
// publisher never holds a transaction's messages at once (the debezium
// envelope's are one per row change).
void for_each_message(const cdc::ChangeEvent& event, const cdc::GtidState& before, const cdc::GtidState& after,
                      Envelope envelope, const std::string& prefix, std::int64_t now_ms,
                      const debezium::ValueOptions& values, const std::function<void(OutMessage&&)>& f);

// Debezium's envelope of snapshot row `row` of `chunk` (op "r", before null,
// source.snapshot "true", source.ts_ms the snapshot's start, transaction
// null). Returns the offset in `out` of the 4 letters "true", which the
// caller overwrites with "last" on the snapshot's last row (known only when
// the next chunk or the done event arrives).
std::size_t append_debezium_read(std::string& out, const cdc::SnapshotChunk& chunk, std::size_t row,
                                 const SnapshotId& id, const std::string& prefix, std::int64_t now_ms,
                                 const debezium::ValueOptions& values = {});

// Where to continue after the stream's last message: open the binlog after
// `from`, and skip the first `skip_changes` published changes of the
// transaction `skip_gtid` (a debezium transaction cut off half way).
// `from` is nullopt when the stream holds no position: its last message ends
// an aborted snapshot, or is inside an unfinished one (`unfinished_snapshot`:
// a publisher killed during a snapshot; in the sluice envelope an abort
// message is published for it first). The stream then counts as empty: the
// start options apply (a new snapshot with --snapshot).
// A sluice transaction cut off between its parts: `skip_gtid` and
// `skip_changes` as above, and `parts_published` (K) > 0: continue at part K+1.
struct ResumePoint {
    std::optional<cdc::GtidState> from;
    std::optional<SnapshotId> unfinished_snapshot;
    std::optional<cdc::GtidPosition> skip_gtid;
    std::size_t skip_changes = 0;
    std::size_t parts_published = 0;
};
// Error{protocol} naming the message and header when a header is missing or
// malformed (a message some other program wrote).
ResumePoint resume_point(const StoredMessage& last, const std::string& stream);

// The messages of one part line of a sluice transaction (`line` without its
// newline; `changes_through`: the transaction's changes in this and the
// earlier parts; `state`: the position after the transaction for the last
// part, before it for the others).
OutMessage part_message(std::string line, const cdc::GtidPosition& gtid, std::size_t part, bool last,
                        std::uint64_t changes_through, const cdc::GtidState& state, const std::string& prefix);

// Reading a sluice message's part headers (a consumer's side): nullopt for
// a message of a whole transaction (or DDL, snapshot). Error{protocol}
// naming `where` and the header when they disagree: Sluice-Part not a
// number from 1 up, Nats-Msg-Id not GTID#K for the same K and Sluice-Gtid,
// Sluice-Last other than "true".
struct MessagePart {
    std::string gtid;
    std::size_t part = 0;
    bool last = false;
};
std::optional<MessagePart> message_part(const StoredMessage& m, const std::string& where);

}  // namespace sluice::mariadb::jetstream
