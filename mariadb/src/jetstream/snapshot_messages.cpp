#include "sluice/mariadb/jetstream/snapshot_messages.hpp"

#include <cstring>
#include <variant>

#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::jetstream {

namespace json = sluice::mariadb::ndjson;

namespace {

void check_position(const SnapshotId& id, const cdc::GtidState& at, const char* what) {
    if (!(at == id.at))
        throw Error(ErrorKind::usage, std::string(what) + " at " + at.to_string() + " inside snapshot " + id.to_string());
}

}  // namespace

SnapshotMessages::SnapshotMessages(SnapshotId id, Envelope envelope, std::string prefix, debezium::ValueOptions values)
    : id_(std::move(id)),
      id_text_(id_.to_string()),
      envelope_(envelope),
      prefix_(std::move(prefix)),
      values_(values) {}

std::string SnapshotMessages::msg_id(const std::string& part) const { return "snapshot:" + id_text_ + ":" + part; }

bool SnapshotMessages::add(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, std::int64_t now_ms) {
    if (const auto* c = std::get_if<cdc::SnapshotChunk>(&event)) {
        chunk(out, event, *c, now_ms);
        return false;
    }
    if (const auto* d = std::get_if<cdc::SnapshotDone>(&event)) {
        done(out, event, *d);
        return true;
    }
    throw Error(ErrorKind::usage, "a transaction or DDL inside snapshot " + id_text_);
}

void SnapshotMessages::chunk(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::SnapshotChunk& c,
                             std::int64_t now_ms) {
    check_position(id_, c.at, "a snapshot chunk");
    if (envelope_ == Envelope::sluice) {
        OutMessage m;
        m.subject = prefix_;
        cdc::ndjson::append_line(m.data, event);
        if (!m.data.empty() && m.data.back() == '\n') m.data.pop_back();
        const std::string n = std::to_string(++count_);
        m.headers = {{msg_id_header, msg_id(n)}, {snapshot_header, id_text_}, {snapshot_chunk_header, n}};
        out.push_back(std::move(m));
        return;
    }
    const std::string subject = prefix_ + "." + subject_token(c.db) + "." + subject_token(c.table);
    for (std::size_t r = 0; r < c.size(); ++r) {
        if (held_) out.push_back(std::move(*held_));
        OutMessage m;
        m.subject = subject;
        held_snapshot_at_ = append_debezium_read(m.data, c, r, id_, prefix_, now_ms, values_);
        const std::string n = std::to_string(++count_);
        m.headers = {{msg_id_header, msg_id(n)}, {snapshot_header, id_text_}, {snapshot_row_header, n}};
        held_ = std::move(m);
    }
}

void SnapshotMessages::done(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::SnapshotDone& d) {
    check_position(id_, d.at, "the snapshot's end");
    const std::string state = d.at.to_string();
    if (envelope_ == Envelope::sluice) {
        OutMessage m;
        m.subject = prefix_;
        cdc::ndjson::append_line(m.data, event);
        if (!m.data.empty() && m.data.back() == '\n') m.data.pop_back();
        m.headers = {{msg_id_header, msg_id("done")},
                     {snapshot_header, id_text_},
                     {snapshot_end_header, "done"},
                     {state_header, state}};
        out.push_back(std::move(m));
        return;
    }
    if (!held_) return;  // no rows: nothing marks the end (the next transaction's state does)
    std::memcpy(held_->data.data() + held_snapshot_at_, "last", 4);
    held_->headers.emplace_back(snapshot_end_header, "done");
    held_->headers.emplace_back(state_header, state);
    out.push_back(std::move(*held_));
    held_.reset();
}

OutMessage snapshot_abort_message(const SnapshotId& id, const std::string& prefix) {
    OutMessage m;
    m.subject = prefix;
    m.data = "{\"snapshot\":{\"gtid\":";
    json::append_string(m.data, id.at.to_string());
    m.data += ",\"aborted\":true}}";
    const std::string text = id.to_string();
    m.headers = {{msg_id_header, "snapshot:" + text + ":aborted"}, {snapshot_header, text}, {snapshot_end_header, "aborted"}};
    return m;
}

}  // namespace sluice::mariadb::jetstream
