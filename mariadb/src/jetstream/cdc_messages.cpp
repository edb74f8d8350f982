#include "sluice/mariadb/jetstream/cdc_messages.hpp"

#include <charconv>
#include <map>
#include <variant>

#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::jetstream {

namespace json = sluice::mariadb::ndjson;

std::string subject_token(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        out += (u <= 0x20 || u == 0x7F || c == '.' || c == '*' || c == '>') ? '_' : c;
    }
    if (out.empty()) out = "_";
    return out;
}

namespace {

std::string gtid_text(const cdc::GtidPosition& g) { return mariadb::binlog::to_string(g); }

char debezium_op(mariadb::binlog::RowsKind k) {
    switch (k) {
        case mariadb::binlog::RowsKind::write: return 'c';
        case mariadb::binlog::RowsKind::update: return 'u';
        case mariadb::binlog::RowsKind::delete_: return 'd';
    }
    return '?';
}

// Debezium's `source` block, shared by change and snapshot-read envelopes.
struct SourceFields {
    const std::string& name;  // the subject prefix (Debezium's topic prefix)
    std::int64_t ts_ms;
    const char* snapshot;     // "false", "true" (4 letters: "last" may replace it)
    const std::string& db;
    const std::string& table;
    std::uint32_t server_id;
    const std::string& gtid;
    std::size_t row;
};

// Appends ,"source":{...}; returns the offset of the snapshot value's text.
std::size_t append_source(std::string& out, const SourceFields& f) {
    out += ",\"source\":{\"version\":\"sluice\",\"connector\":\"mariadb\",\"name\":";
    json::append_string(out, f.name);
    out += ",\"ts_ms\":";
    out += std::to_string(f.ts_ms);
    out += ",\"snapshot\":\"";
    const std::size_t snapshot_at = out.size();
    out += f.snapshot;
    out += "\",\"db\":";
    json::append_string(out, f.db);
    out += ",\"table\":";
    json::append_string(out, f.table);
    out += ",\"server_id\":";
    out += std::to_string(f.server_id);
    out += ",\"gtid\":";
    json::append_string(out, f.gtid);
    out += ",\"file\":\"\",\"pos\":0,\"row\":";
    out += std::to_string(f.row);
    out += ",\"thread\":null,\"query\":null}";
    return snapshot_at;
}

// Debezium's envelope without the schema part (what its JSON converter
// writes with schemas.enable=false), values in Debezium's encodings.
void append_debezium(std::string& out, const cdc::Change& c, const cdc::Transaction& t, std::size_t index,
                     std::size_t table_order, const std::string& prefix, std::int64_t now_ms,
                     const debezium::ValueOptions& values) {
    const std::string gtid = gtid_text(t.gtid);
    out += "{\"before\":";
    if (c.op == mariadb::binlog::RowsKind::write) json::append_null(out);
    else debezium::append_image(out, c.before, *c.table, values);
    out += ",\"after\":";
    if (c.op == mariadb::binlog::RowsKind::delete_) json::append_null(out);
    else debezium::append_image(out, c.after, *c.table, values);
    append_source(out, {prefix, static_cast<std::int64_t>(t.timestamp) * 1000, "false", c.table->db, c.table->table,
                        t.gtid.server_id, gtid, index});
    out += ",\"op\":\"";
    out += debezium_op(c.op);
    out += "\",\"ts_ms\":";
    out += std::to_string(now_ms);
    out += ",\"transaction\":{\"id\":";
    json::append_string(out, gtid);
    out += ",\"total_order\":";
    out += std::to_string(index + 1);
    out += ",\"data_collection_order\":";
    out += std::to_string(table_order);
    out += "}}";
}

// Debezium's schema change event (the connector's schema change topic):
// the statement as logged; tableChanges is left empty (no DDL parser here).
void append_debezium_ddl(std::string& out, const cdc::Ddl& d, const std::string& prefix, std::int64_t now_ms) {
    out += "{\"source\":{\"version\":\"sluice\",\"connector\":\"mariadb\",\"name\":";
    json::append_string(out, prefix);
    out += ",\"ts_ms\":";
    out += std::to_string(static_cast<std::int64_t>(d.timestamp) * 1000);
    out += ",\"snapshot\":\"false\",\"db\":";
    json::append_string(out, d.db);
    out += ",\"table\":null,\"server_id\":";
    out += std::to_string(d.gtid.server_id);
    out += ",\"gtid\":";
    json::append_string(out, gtid_text(d.gtid));
    out += ",\"file\":\"\",\"pos\":0,\"row\":0,\"thread\":null,\"query\":null},\"ts_ms\":";
    out += std::to_string(now_ms);
    out += ",\"databaseName\":";
    json::append_string(out, d.db);
    out += ",\"schemaName\":null,\"ddl\":";
    json::append_string(out, d.sql);
    out += ",\"tableChanges\":[]}";
}

}  // namespace

std::string SnapshotId::to_string() const { return at.to_string() + ":" + std::to_string(started_ms); }

SnapshotId SnapshotId::parse(std::string_view text, const std::string& where) {
    const auto colon = text.rfind(':');
    SnapshotId id;
    bool ok = colon != std::string_view::npos && colon + 1 < text.size();
    if (ok) {
        const std::string_view ms = text.substr(colon + 1);
        auto [p, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), id.started_ms);
        ok = ec == std::errc() && p == ms.data() + ms.size() && id.started_ms >= 0;
    }
    if (!ok) throw Error(ErrorKind::protocol, where + ": expected GTIDSTATE:STARTMS, got \"" + std::string(text) + "\"");
    try {
        id.at = cdc::GtidState::parse(text.substr(0, colon));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage) throw;
        throw Error(ErrorKind::protocol, where + ": " + e.what());
    }
    return id;
}

// A snapshot row is Debezium's read event: no before image, no transaction
// block, server_id 0 and the snapshot's position as the GTID (as Debezium's
// MySQL connector writes its snapshot records).
std::size_t append_debezium_read(std::string& out, const cdc::SnapshotChunk& chunk, std::size_t row,
                                 const SnapshotId& id, const std::string& prefix, std::int64_t now_ms,
                                 const debezium::ValueOptions& values) {
    out += "{\"before\":null,\"after\":";
    debezium::append_snapshot_row(out, chunk, row, values);
    const std::size_t snapshot_at =
        append_source(out, {prefix, id.started_ms, "true", chunk.db, chunk.table, 0, id.at.to_string(), 0});
    out += ",\"op\":\"r\",\"ts_ms\":";
    out += std::to_string(now_ms);
    out += ",\"transaction\":null}";
    return snapshot_at;
}

void for_each_message(const cdc::ChangeEvent& event, const cdc::GtidState& before, const cdc::GtidState& after,
                      Envelope envelope, const std::string& prefix, std::int64_t now_ms,
                      const debezium::ValueOptions& values, const std::function<void(OutMessage&&)>& out) {
    const std::string after_text = after.to_string();
    if (envelope == Envelope::sluice) {
        const cdc::GtidPosition* g = nullptr;
        if (const auto* t = std::get_if<cdc::Transaction>(&event)) g = &t->gtid;
        else if (const auto* d = std::get_if<cdc::Ddl>(&event)) g = &d->gtid;
        if (!g) return;
        OutMessage m;
        m.subject = prefix;
        cdc::ndjson::append_line(m.data, event);
        if (!m.data.empty() && m.data.back() == '\n') m.data.pop_back();
        const std::string gtid = gtid_text(*g);
        m.headers = {{msg_id_header, gtid}, {gtid_header, gtid}, {state_header, after_text}};
        out(std::move(m));
        return;
    }
    if (const auto* d = std::get_if<cdc::Ddl>(&event)) {
        OutMessage m;
        m.subject = prefix;
        append_debezium_ddl(m.data, *d, prefix, now_ms);
        const std::string gtid = gtid_text(d->gtid);
        m.headers = {{msg_id_header, gtid}, {gtid_header, gtid}, {state_header, after_text}};
        out(std::move(m));
        return;
    }
    const auto* t = std::get_if<cdc::Transaction>(&event);
    if (!t) return;
    std::size_t total = 0;
    t->for_each_change([&](const cdc::Change&) { ++total; });
    const std::string gtid = gtid_text(t->gtid);
    const std::string before_text = before.to_string();
    const std::string total_text = std::to_string(total);
    std::map<std::pair<std::string, std::string>, std::size_t> per_table;
    std::size_t index = 0;
    t->for_each_change([&](const cdc::Change& c) {
        OutMessage m;
        m.subject = prefix + "." + subject_token(c.table->db) + "." + subject_token(c.table->table);
        const std::size_t order = ++per_table[{c.table->db, c.table->table}];
        append_debezium(m.data, c, *t, index, order, prefix, now_ms, values);
        ++index;
        m.headers = {{msg_id_header, gtid + ":" + std::to_string(index)},
                     {gtid_header, gtid},
                     {state_header, after_text},
                     {state_before_header, before_text},
                     {change_header, std::to_string(index) + "/" + total_text}};
        out(std::move(m));
    });
}

void messages_of(std::vector<OutMessage>& out, const cdc::ChangeEvent& event, const cdc::GtidState& before,
                 const cdc::GtidState& after, Envelope envelope, const std::string& prefix, std::int64_t now_ms,
                 const debezium::ValueOptions& values) {
    for_each_message(event, before, after, envelope, prefix, now_ms, values,
                     [&out](OutMessage&& m) { out.push_back(std::move(m)); });
}

namespace {

std::size_t parse_count(std::string_view text, const std::string& what) {
    std::size_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty())
        throw Error(ErrorKind::protocol, what + ": \"" + std::string(text) + "\" is not a number");
    return v;
}

// The header of a message the publisher wrote: Error{protocol} when it is
// missing (the message came from another program).
const std::string& header_of(const StoredMessage& m, const std::string& name, const std::string& stream) {
    auto it = m.headers.find(name);
    if (it == m.headers.end())
        throw Error(ErrorKind::protocol, "message " + std::to_string(m.seq) + " of stream \"" + stream + "\" has no " +
                                             name + " header (was it written by sluice-mariadb cdc?)");
    return it->second;
}

}  // namespace

ResumePoint resume_point(const StoredMessage& last, const std::string& stream) {
    const std::string where = "message " + std::to_string(last.seq) + " of stream \"" + stream + "\"";
    auto parse_state = [&](const char* header) {
        try {
            return cdc::GtidState::parse(header_of(last, header, stream));
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::usage) throw;
            throw Error(ErrorKind::protocol, where + ", header " + header + ": " + e.what());
        }
    };
    ResumePoint r;
    if (auto snap = last.headers.find(snapshot_header); snap != last.headers.end()) {
        const SnapshotId id = SnapshotId::parse(snap->second, where + ", header " + std::string(snapshot_header));
        auto end = last.headers.find(snapshot_end_header);
        if (end == last.headers.end()) {
            r.unfinished_snapshot = id;
        } else if (end->second == "done") {
            r.from = parse_state(state_header);
        } else if (end->second != "aborted") {
            throw Error(ErrorKind::protocol, where + ", header " + std::string(snapshot_end_header) +
                                                 ": expected done or aborted, got \"" + end->second + "\"");
        }
        return r;
    }
    if (auto part = last.headers.find(part_header); part != last.headers.end()) {
        // Cut off between parts: resume at the next one (cdc_messages.hpp).
        const std::optional<MessagePart> p = message_part(last, where);
        r.from = parse_state(state_header);
        if (p->last) return r;
        try {
            r.skip_gtid = cdc::parse_gtid(p->gtid);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::usage) throw;
            throw Error(ErrorKind::protocol, where + ", header " + std::string(gtid_header) + ": " + e.what());
        }
        r.skip_changes = parse_count(header_of(last, part_rows_header, stream), where + ", header " + part_rows_header);
        r.parts_published = p->part;
        return r;
    }
    auto change = last.headers.find(change_header);
    if (change == last.headers.end()) {
        r.from = parse_state(state_header);
        return r;
    }
    const std::string what = where + ", header " + std::string(change_header);
    const auto slash = change->second.find('/');
    if (slash == std::string::npos) throw Error(ErrorKind::protocol, what + ": expected I/N, got \"" + change->second + "\"");
    const std::size_t i = parse_count(std::string_view(change->second).substr(0, slash), what);
    const std::size_t n = parse_count(std::string_view(change->second).substr(slash + 1), what);
    if (i == 0 || i > n) throw Error(ErrorKind::protocol, what + ": expected 1 <= I <= N, got \"" + change->second + "\"");
    if (i == n) {
        r.from = parse_state(state_header);
        return r;
    }
    r.from = parse_state(state_before_header);
    try {
        r.skip_gtid = cdc::parse_gtid(header_of(last, gtid_header, stream));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage) throw;
        throw Error(ErrorKind::protocol, where + ", header " + std::string(gtid_header) + ": " + e.what());
    }
    r.skip_changes = i;
    return r;
}

OutMessage part_message(std::string line, const cdc::GtidPosition& gtid, std::size_t part, bool last,
                        std::uint64_t changes_through, const cdc::GtidState& state, const std::string& prefix) {
    OutMessage m;
    m.subject = prefix;
    m.data = std::move(line);
    const std::string g = gtid_text(gtid);
    m.headers = {{msg_id_header, g + "#" + std::to_string(part)},
                 {gtid_header, g},
                 {state_header, state.to_string()},
                 {part_header, std::to_string(part)},
                 {part_rows_header, std::to_string(changes_through)}};
    if (last) m.headers.emplace_back(last_header, "true");
    return m;
}

std::optional<MessagePart> message_part(const StoredMessage& m, const std::string& where) {
    auto part = m.headers.find(part_header);
    if (part == m.headers.end()) {
        if (m.headers.count(last_header))
            throw Error(ErrorKind::protocol, where + ", header " + std::string(last_header) + ": on a message without " +
                                                 part_header);
        return std::nullopt;
    }
    MessagePart p;
    p.part = parse_count(part->second, where + ", header " + part_header);
    if (p.part == 0) throw Error(ErrorKind::protocol, where + ", header " + std::string(part_header) + ": part 0 (parts count from 1)");
    auto gtid = m.headers.find(gtid_header);
    if (gtid == m.headers.end())
        throw Error(ErrorKind::protocol, where + ": a part without a " + std::string(gtid_header) + " header");
    p.gtid = gtid->second;
    auto id = m.headers.find(msg_id_header);
    const std::string want = p.gtid + "#" + part->second;
    if (id == m.headers.end() || id->second != want)
        throw Error(ErrorKind::protocol, where + ", header " + std::string(msg_id_header) + ": expected \"" + want +
                                             "\", got \"" + (id == m.headers.end() ? std::string("(none)") : id->second) + "\"");
    if (auto last = m.headers.find(last_header); last != m.headers.end()) {
        if (last->second != "true")
            throw Error(ErrorKind::protocol, where + ", header " + std::string(last_header) + ": expected \"true\", got \"" +
                                                 last->second + "\"");
        p.last = true;
    }
    return p;
}

}  // namespace sluice::mariadb::jetstream
