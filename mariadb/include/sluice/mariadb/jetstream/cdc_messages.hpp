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
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/jetstream/client.hpp"
#include "sluice/mariadb/jetstream/debezium_values.hpp"

namespace sluice::mariadb::jetstream {

inline constexpr const char* msg_id_header = "Nats-Msg-Id";
inline constexpr const char* gtid_header = "Sluice-Gtid";
inline constexpr const char* state_header = "Sluice-Gtid-State";
inline constexpr const char* state_before_header = "Sluice-Gtid-State-Before";
inline constexpr const char* change_header = "Sluice-Change";

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

// Where to continue after the stream's last message: open the binlog after
// `from`, and skip the first `skip_changes` published changes of the
// transaction `skip_gtid` (a debezium transaction cut off half way).
struct ResumePoint {
    cdc::GtidState from;
    std::optional<cdc::GtidPosition> skip_gtid;
    std::size_t skip_changes = 0;
};
// Error{protocol} naming the message and header when a header is missing or
// malformed (a message some other program wrote).
ResumePoint resume_point(const StoredMessage& last, const std::string& stream);

}  // namespace sluice::mariadb::jetstream
