// Decoder: checks the header and checksum of each event, dispatches its
// body to the parser of its type, and keeps the stream state later events
// need (FORMAT_DESCRIPTION, TABLE_MAPs, schema hints, position). Any
// Error from a parser is re-thrown naming the event type, file and offset.
#include "sluice/mariadb/binlog/decoder.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "detail.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {

namespace {

std::string hex32(std::uint32_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 15];
    return s;
}

std::string type_name(std::uint8_t code) {
    std::string_view known = to_string(static_cast<EventType>(code));
    if (known != "UNKNOWN_EVENT" || code == 0) return std::string(known);
    return "UNKNOWN_EVENT(" + std::to_string(code) + ")";
}

bool is_known_event(std::uint8_t code) noexcept {
    return code <= static_cast<std::uint8_t>(EventType::mysql_partial_update_rows) ||
           (code >= static_cast<std::uint8_t>(EventType::annotate_rows) &&
            code <= static_cast<std::uint8_t>(EventType::delete_rows_compressed));
}

// Post-header lengths MariaDB 10.x writes, for events seen before any
// FORMAT_DESCRIPTION (or types it does not list).
std::uint8_t default_post_header_length(EventType t) noexcept {
    switch (t) {
        case EventType::query:
        case EventType::query_compressed: return 13;
        case EventType::rotate: return 8;
        case EventType::table_map: return 8;
        case EventType::write_rows_v1:
        case EventType::update_rows_v1:
        case EventType::delete_rows_v1:
        case EventType::write_rows_compressed_v1:
        case EventType::update_rows_compressed_v1:
        case EventType::delete_rows_compressed_v1: return 8;
        case EventType::write_rows_v2:
        case EventType::update_rows_v2:
        case EventType::delete_rows_v2:
        case EventType::write_rows_compressed:
        case EventType::update_rows_compressed:
        case EventType::delete_rows_compressed: return 10;
        case EventType::gtid: return 19;
        case EventType::gtid_list:
        case EventType::binlog_checkpoint: return 4;
        case EventType::incident: return 2;
        default: return 0;
    }
}

std::string schema_key(std::string_view db, std::string_view table) {
    std::string k(db);
    k += '\0';
    k += table;
    return k;
}

}  // namespace

struct Decoder::State {
    DecoderOptions options;
    Checksum checksum = Checksum::undefined;  // from the last FORMAT_DESCRIPTION
    Checksum expected = Checksum::undefined;  // before any FORMAT_DESCRIPTION
    bool have_format = false;
    std::vector<std::uint8_t> post_header_lengths;
    std::shared_ptr<const std::string> file = std::make_shared<const std::string>();
    std::uint64_t offset = 0;
    std::unordered_map<std::uint64_t, std::shared_ptr<TableMap>> tables;
    // The body of the last TABLE_MAP per table id: the server re-sends the
    // same map before every statement, so an identical one is not parsed
    // again (one compare instead of a parse and its allocations).
    std::unordered_map<std::uint64_t, std::vector<std::uint8_t>> table_map_bytes;
    std::map<std::string, TableSchema> schemas;
    std::vector<std::uint8_t> inflated;

    std::uint8_t post_header_length(EventType t) const noexcept {
        auto code = static_cast<std::uint8_t>(t);
        if (have_format && code >= 1 && code <= post_header_lengths.size()) return post_header_lengths[code - 1];
        return default_post_header_length(t);
    }

    const TableSchema* schema_for(const TableMap& t) const {
        auto it = schemas.find(schema_key(t.db, t.table));
        return it == schemas.end() ? nullptr : &it->second;
    }

    // Does this event (before any FORMAT_DESCRIPTION) end in a CRC32 of
    // the rest? The session's expect_checksum() answers; otherwise the
    // bytes do (a false match has odds of 2^-32).
    bool has_crc_before_format(Bytes event) const noexcept {
        if (expected != Checksum::undefined) return expected == Checksum::crc32;
        if (event.size() < event_header_length + 4) return false;
        return detail::crc32(event.first(event.size() - 4)) == detail::stored_crc32(event);
    }
};

Decoder::Decoder(DecoderOptions options) : state_(std::make_unique<State>()) { state_->options = options; }
Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

void Decoder::expect_checksum(Checksum checksum) noexcept { state_->expected = checksum; }

Checksum Decoder::checksum() const noexcept {
    return state_->have_format ? state_->checksum : state_->expected;
}

BinlogPosition Decoder::position() const noexcept { return {*state_->file, state_->offset}; }

void Decoder::set_position(std::string file, std::uint64_t offset) {
    state_->file = std::make_shared<const std::string>(std::move(file));
    state_->offset = offset;
}

void Decoder::set_schema(std::string_view db, std::string_view table, TableSchema schema) {
    auto& slot = state_->schemas[schema_key(db, table)];
    slot = std::move(schema);
    for (auto& [id, t] : state_->tables)
        if (t->db == db && t->table == table) {
            // Table maps already handed out stay as they were: give this
            // id a fresh copy with the new hint.
            auto copy = std::make_shared<TableMap>(*t);
            detail::apply_schema(*copy, &slot);
            t = std::move(copy);
        }
}

void Decoder::clear_schema(std::string_view db, std::string_view table) {
    state_->schemas.erase(schema_key(db, table));
    for (auto& [id, t] : state_->tables)
        if (t->db == db && t->table == table) {
            auto copy = std::make_shared<TableMap>(*t);
            detail::apply_schema(*copy, nullptr);
            t = std::move(copy);
        }
}

std::shared_ptr<const TableMap> Decoder::table(std::uint64_t table_id) const {
    auto it = state_->tables.find(table_id);
    return it == state_->tables.end() ? nullptr : it->second;
}

Event Decoder::decode(std::span<const std::uint8_t> bytes) {
    State& s = *state_;
    Event ev;
    std::uint64_t start = s.offset;
    try {
        detail::Reader h(bytes, "binlog event header");
        ev.header.timestamp = h.u32("timestamp");
        ev.header.type_code = h.u8("event type");
        ev.header.type = is_known_event(ev.header.type_code) ? static_cast<EventType>(ev.header.type_code)
                                                             : EventType::unknown;
        ev.header.server_id = h.u32("server id");
        ev.header.event_length = h.u32("event length");
        ev.header.next_position = h.u32("next position");
        ev.header.flags = h.u16("flags");
        if (ev.header.next_position != 0 && ev.header.next_position >= ev.header.event_length)
            start = ev.header.next_position - ev.header.event_length;
        if (ev.header.event_length != bytes.size())
            h.fail("event length", "the header says " + std::to_string(ev.header.event_length) +
                                       " bytes, the event has " + std::to_string(bytes.size()));
    } catch (const Error& e) {
        throw Error(ErrorKind::protocol, "binlog event " + type_name(bytes.size() > 4 ? bytes[4] : 0) + " at " +
                                             *s.file + ":" + std::to_string(start) + ": " + e.what());
    }
    try {
        // Where the checksum is, and whether to check it.
        bool has_crc = false;
        FormatDescription fd;
        if (ev.header.type == EventType::format_description) {
            fd = detail::parse_format_description(bytes);
            // A checksum-aware FORMAT_DESCRIPTION always ends in its CRC.
            has_crc = fd.checksum != Checksum::undefined;
        } else if (s.have_format) {
            has_crc = s.checksum == Checksum::crc32;
        } else {
            has_crc = s.has_crc_before_format(bytes);
        }
        bool verify = has_crc && s.options.verify_checksum &&
                      (ev.header.type != EventType::format_description || fd.checksum == Checksum::crc32);
        if (has_crc && bytes.size() < event_header_length + 4)
            throw Error(ErrorKind::protocol, "no room for the CRC32 (" + std::to_string(bytes.size()) + " bytes)");
        if (verify) {
            std::uint32_t want = detail::stored_crc32(bytes);
            std::uint32_t got = 0;
            if (ev.header.type == EventType::format_description &&
                (ev.header.flags & header_flag::binlog_in_use)) {
                // The server sets LOG_EVENT_BINLOG_IN_USE_F in the
                // FORMAT_DESCRIPTION of the file it is writing and clears
                // it on close, without touching the CRC: the CRC is of the
                // event with the flag clear.
                std::vector<std::uint8_t> copy(bytes.begin(), bytes.end() - 4);
                copy[17] = static_cast<std::uint8_t>(copy[17] & ~header_flag::binlog_in_use);
                got = detail::crc32(copy);
            } else {
                got = detail::crc32(bytes.first(bytes.size() - 4));
            }
            if (want != got)
                throw Error(ErrorKind::protocol, "checksum mismatch: the event's CRC32 is " + hex32(want) +
                                                     ", its bytes give " + hex32(got));
        }
        Bytes body = bytes.subspan(event_header_length, bytes.size() - event_header_length - (has_crc ? 4 : 0));
        detail::Reader r(body, to_string(ev.header.type));
        switch (ev.header.type) {
            case EventType::format_description:
                ev.body = fd;
                s.have_format = true;
                s.checksum = fd.checksum == Checksum::undefined ? Checksum::off : fd.checksum;
                s.post_header_lengths.assign(fd.post_header_lengths.begin(), fd.post_header_lengths.end());
                break;
            case EventType::rotate: {
                Rotate rot = detail::parse_rotate(r, ev.header);
                ev.body = rot;
                s.file = std::make_shared<const std::string>(rot.next_file);
                s.offset = rot.position;
                // A real ROTATE ends its file: the next file starts with a
                // FORMAT_DESCRIPTION of its own, and table ids restart.
                if (!rot.artificial) {
                    s.tables.clear();
                    s.table_map_bytes.clear();
                }
                return ev;
            }
            case EventType::gtid: ev.body = detail::parse_gtid(r, ev.header); break;
            case EventType::gtid_list: ev.body = detail::parse_gtid_list(r); break;
            case EventType::binlog_checkpoint: ev.body = detail::parse_binlog_checkpoint(r); break;
            case EventType::table_map: {
                if (body.size() >= 6) {
                    std::uint64_t id = 0;
                    for (std::size_t i = 6; i > 0; --i) id = (id << 8) | body[i - 1];
                    if (s.post_header_length(EventType::table_map) == 6) id &= 0xffffffff;
                    auto known = s.table_map_bytes.find(id);
                    if (known != s.table_map_bytes.end() && known->second.size() == body.size() &&
                        std::equal(body.begin(), body.end(), known->second.begin())) {
                        ev.body = TableMapEvent{s.tables.at(id)};
                        break;
                    }
                }
                auto t = detail::parse_table_map(r, s.post_header_length(EventType::table_map));
                detail::apply_schema(*t, s.schema_for(*t));
                s.tables[t->table_id] = t;
                s.table_map_bytes[t->table_id].assign(body.begin(), body.end());
                ev.body = TableMapEvent{t};
                break;
            }
            case EventType::query:
            case EventType::query_compressed:
                ev.body = detail::parse_query(r, s.post_header_length(ev.header.type),
                                              ev.header.type == EventType::query_compressed, s.inflated);
                break;
            case EventType::xid: ev.body = detail::parse_xid(r); break;
            case EventType::mysql_xa_prepare: ev.body = detail::parse_xa_prepare(r); break;
            case EventType::annotate_rows: ev.body = detail::parse_annotate_rows(r); break;
            case EventType::heartbeat: {
                Heartbeat hb = detail::parse_heartbeat(r);
                ev.body = hb;
                // The dump is at this file and position: nothing more to
                // update (the offset is the server's, artificial event).
                return ev;
            }
            case EventType::stop: ev.body = Stop{}; break;
            case EventType::incident: ev.body = detail::parse_incident(r); break;
            default:
                if (detail::is_rows_event(ev.header.type)) {
                    Rows rows = detail::parse_rows(r, ev.header.type, s.post_header_length(ev.header.type),
                                                   s.inflated, [&](std::uint64_t id) -> std::shared_ptr<const TableMap> {
                                                       auto it = s.tables.find(id);
                                                       return it == s.tables.end() ? nullptr : it->second;
                                                   });
                    rows.log_file = s.file;
                    rows.log_offset = start;
                    ev.body = std::move(rows);
                } else {
                    ev.body = Unknown{body};
                }
                break;
        }
    } catch (const Error& e) {
        throw Error(ErrorKind::protocol, "binlog event " + type_name(ev.header.type_code) + " at " + *s.file + ":" + std::to_string(start) +
                                             ": " + e.what());
    }
    if (ev.header.next_position != 0 && !(ev.header.flags & header_flag::artificial))
        s.offset = ev.header.next_position;
    return ev;
}

}  // namespace sluice::mariadb::binlog
