#pragma once
// Test helpers: the captured binlog files (fixtures/*.hex, see
// fixtures/capture.sh), split into events and decoded, and a builder for
// hand-made events with a correct header and CRC32.
#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sluice/mariadb/binlog/binlog.hpp"

namespace sluice::mariadb::binlog::test {

inline std::vector<std::uint8_t> from_hex(std::string_view hex) {
    std::vector<std::uint8_t> out;
    int high = -1;
    for (char c : hex) {
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) continue;
        if (high < 0) {
            high = v;
        } else {
            out.push_back(static_cast<std::uint8_t>(high * 16 + v));
            high = -1;
        }
    }
    return out;
}

inline std::vector<std::uint8_t> load_fixture(const std::string& name) {
    std::ifstream in(std::string(SLUICE_BINLOG_FIXTURES) + "/" + name + ".hex");
    if (!in) throw std::runtime_error("no fixture " + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return from_hex(ss.str());
}

// The events of a binlog file (copied out, so they outlive the file bytes).
inline std::vector<std::vector<std::uint8_t>> split_events(const std::vector<std::uint8_t>& file) {
    std::vector<std::vector<std::uint8_t>> out;
    EventSplitter split(file);
    for (auto ev = split.next(); !ev.empty(); ev = split.next()) out.emplace_back(ev.begin(), ev.end());
    return out;
}

// One cell as text ("NULL", "-" for absent).
inline std::string cell_text(const Cell& c, const ColumnInfo& col) {
    if (!c.present) return "-";
    if (c.null) return "NULL";
    return to_text(c.value, col);
}

// A hand-built event: header fields, body; finish() sets the length and
// appends a CRC32 (or not).
struct EventBuilder {
    std::vector<std::uint8_t> bytes;
    explicit EventBuilder(EventType type, std::uint32_t next_position = 1000, std::uint16_t flags = 0,
                          std::uint32_t server_id = 1, std::uint32_t timestamp = 1764576000) {
        u32(timestamp).u8(static_cast<std::uint8_t>(type)).u32(server_id).u32(0).u32(next_position).u16(flags);
    }
    EventBuilder& u8(std::uint8_t v) {
        bytes.push_back(v);
        return *this;
    }
    EventBuilder& u16(std::uint16_t v) { return u8(static_cast<std::uint8_t>(v)).u8(static_cast<std::uint8_t>(v >> 8)); }
    EventBuilder& u24(std::uint32_t v) { return u16(static_cast<std::uint16_t>(v)).u8(static_cast<std::uint8_t>(v >> 16)); }
    EventBuilder& u32(std::uint32_t v) { return u16(static_cast<std::uint16_t>(v)).u16(static_cast<std::uint16_t>(v >> 16)); }
    EventBuilder& u48(std::uint64_t v) { return u32(static_cast<std::uint32_t>(v)).u16(static_cast<std::uint16_t>(v >> 32)); }
    EventBuilder& u64(std::uint64_t v) { return u32(static_cast<std::uint32_t>(v)).u32(static_cast<std::uint32_t>(v >> 32)); }
    EventBuilder& raw(std::initializer_list<int> list) {
        for (int v : list) u8(static_cast<std::uint8_t>(v));
        return *this;
    }
    EventBuilder& bytes_of(const std::vector<std::uint8_t>& b) {
        bytes.insert(bytes.end(), b.begin(), b.end());
        return *this;
    }
    EventBuilder& text(std::string_view s) {
        for (char c : s) u8(static_cast<std::uint8_t>(c));
        return *this;
    }
    EventBuilder& lenenc_text(std::string_view s) { return u8(static_cast<std::uint8_t>(s.size())).text(s); }
    std::vector<std::uint8_t> finish(bool crc = true) {
        std::vector<std::uint8_t> out = bytes;
        std::uint32_t len = static_cast<std::uint32_t>(out.size() + (crc ? 4 : 0));
        for (int i = 0; i < 4; ++i) out[9 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(len >> (8 * i));
        if (crc) {
            uLong c = ::crc32(0L, out.data(), static_cast<uInt>(out.size()));
            for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(c >> (8 * i)));
        }
        return out;
    }
};

// A FORMAT_DESCRIPTION like MariaDB 10.11's (CRC32 announced), for
// hand-built streams.
inline std::vector<std::uint8_t> format_description(std::uint8_t checksum = 1) {
    EventBuilder b(EventType::format_description, 256);
    b.u16(4);
    std::string version = "10.11.19-MariaDB-log";
    version.resize(50, '\0');
    b.text(version).u32(1764576000).u8(19);
    // post-header lengths for codes 1..171, as 10.11 writes them
    std::vector<std::uint8_t> lengths(171, 0);
    auto set = [&](EventType t, std::uint8_t n) { lengths[static_cast<std::size_t>(t) - 1] = n; };
    set(EventType::start_v3, 56);
    set(EventType::query, 13);
    set(EventType::rotate, 8);
    set(EventType::table_map, 8);
    for (auto t : {EventType::write_rows_v1, EventType::update_rows_v1, EventType::delete_rows_v1,
                   EventType::write_rows_compressed_v1, EventType::update_rows_compressed_v1,
                   EventType::delete_rows_compressed_v1})
        set(t, 8);
    for (auto t : {EventType::write_rows_v2, EventType::update_rows_v2, EventType::delete_rows_v2,
                   EventType::write_rows_compressed, EventType::update_rows_compressed,
                   EventType::delete_rows_compressed})
        set(t, 10);
    set(EventType::gtid, 19);
    set(EventType::gtid_list, 4);
    set(EventType::binlog_checkpoint, 4);
    set(EventType::query_compressed, 13);
    b.bytes_of(lengths).u8(checksum);
    // A checksum-aware FORMAT_DESCRIPTION always carries 4 CRC bytes.
    return b.finish(true);
}

}  // namespace sluice::mariadb::binlog::test

namespace sluice::mariadb::binlog::test {

// A column of a hand-built TABLE_MAP: type, its metadata bytes as the
// server writes them, nullability.
struct TestColumn {
    ColumnType type;
    std::vector<std::uint8_t> metadata;
    bool nullable = true;
};

// TABLE_MAP for db.table with these columns and optional metadata blocks
// ({type, value bytes}).
inline std::vector<std::uint8_t> table_map_event(
    std::uint64_t table_id, std::string_view db, std::string_view table, const std::vector<TestColumn>& cols,
    const std::vector<std::pair<std::uint8_t, std::vector<std::uint8_t>>>& optional = {}) {
    EventBuilder b(EventType::table_map);
    b.u48(table_id).u16(1);
    b.u8(static_cast<std::uint8_t>(db.size())).text(db).u8(0);
    b.u8(static_cast<std::uint8_t>(table.size())).text(table).u8(0);
    b.u8(static_cast<std::uint8_t>(cols.size()));
    for (auto& c : cols) b.u8(static_cast<std::uint8_t>(c.type));
    std::vector<std::uint8_t> meta;
    for (auto& c : cols) meta.insert(meta.end(), c.metadata.begin(), c.metadata.end());
    b.u8(static_cast<std::uint8_t>(meta.size())).bytes_of(meta);
    std::vector<std::uint8_t> nulls((cols.size() + 7) / 8, 0);
    for (std::size_t i = 0; i < cols.size(); ++i)
        if (cols[i].nullable) nulls[i / 8] = static_cast<std::uint8_t>(nulls[i / 8] | (1u << (i % 8)));
    b.bytes_of(nulls);
    for (auto& [type, value] : optional) {
        b.u8(type);
        if (value.size() < 251) {
            b.u8(static_cast<std::uint8_t>(value.size()));
        } else {
            b.u8(0xFC).u16(static_cast<std::uint16_t>(value.size()));
        }
        b.bytes_of(value);
    }
    return b.finish();
}

// A v1 rows event: table id, flags, width, bitmap(s), then `images`.
inline std::vector<std::uint8_t> rows_event(EventType type, std::uint64_t table_id, std::uint8_t width,
                                            const std::vector<std::uint8_t>& bitmaps,
                                            const std::vector<std::uint8_t>& images) {
    EventBuilder b(type);
    b.u48(table_id).u16(1).u8(width).bytes_of(bitmaps).bytes_of(images);
    return b.finish();
}

// All columns present: one bitmap of width bits set.
inline std::vector<std::uint8_t> all_present(std::size_t width) {
    std::vector<std::uint8_t> out((width + 7) / 8, 0);
    for (std::size_t i = 0; i < width; ++i) out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | (1u << (i % 8)));
    return out;
}

}  // namespace sluice::mariadb::binlog::test
