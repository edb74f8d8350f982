#pragma once
// The messages of a consistent snapshot published into JetStream
// (`sluice-mariadb cdc --snapshot --to nats://...`; headers in
// cdc_messages.hpp, rules in docs/mariadb-cdc.md, "Snapshots"). Sans-I/O.
//
//   SnapshotMessages s({chunk.at, started_ms}, Envelope::sluice, "SHOP");
//   s.add(out, event, now_ms);   // for every SnapshotChunk and the SnapshotDone
//
// sluice: one message per chunk line and one for the done line, subject
// PREFIX, data the NDJSON line. debezium: one `op:"r"` message per row,
// subject PREFIX.DB.TABLE; the last row is held back until done() so that it
// can say source.snapshot "last" (and carry the done headers); a snapshot
// without rows publishes nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"

namespace sluice::mariadb::jetstream {

class SnapshotMessages {
public:
    SnapshotMessages(SnapshotId id, Envelope envelope, std::string prefix, debezium::ValueOptions values = {});

    const SnapshotId& id() const noexcept { return id_; }
    // Appends the messages of a SnapshotChunk or of the SnapshotDone (its
    // `at` must be the id's: Error{usage} otherwise); true after the done.
    bool add(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, std::int64_t now_ms);

private:
    void chunk(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::SnapshotChunk& chunk,
               std::int64_t now_ms);
    void done(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::SnapshotDone& done);
    std::string msg_id(const std::string& part) const;
    SnapshotId id_;
    std::string id_text_;
    Envelope envelope_;
    std::string prefix_;
    debezium::ValueOptions values_;
    std::uint64_t count_ = 0;  // chunks (sluice) or rows (debezium) so far
    std::optional<OutMessage> held_;  // debezium: the latest row, not yet published
    std::size_t held_snapshot_at_ = 0;  // where its "true" is
};

// The message that closes an unfinished snapshot (sluice envelope): data
// {"snapshot":{"gtid":"...","aborted":true}}, subject PREFIX. Consumers drop
// the chunks they buffered for it.
OutMessage snapshot_abort_message(const SnapshotId& id, const std::string& prefix);

}  // namespace sluice::mariadb::jetstream
