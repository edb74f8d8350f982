// Snapshot rows in Debezium's encodings: a prepared SELECT's Field is read
// into the binlog Value its column type decodes to (with the ColumnInfo
// facts the encoder looks at: type, scale, fractional digits, BIT width,
// nullability), then written by debezium_values.cpp's append_value, the
// one place the encodings live.
#include <string>

#include "sluice/mariadb/cdc/debezium_values.hpp"

namespace sluice::mariadb::cdc::debezium {

namespace json = sluice::mariadb::ndjson;
using json::Buffer;

namespace {

std::string_view text_of(const Field& f) {
    const auto raw = f.raw();
    return {reinterpret_cast<const char*>(raw.data()), raw.size()};
}

// A TIMESTAMP read as a DateTime in UTC (the snapshot session's time zone)
// back to the instant; the zero timestamp is 0, as in the binlog.
binlog::Timestamp timestamp_of(const DateTime& dt) {
    if (dt.year == 0 && dt.month == 0 && dt.day == 0) return {};
    const std::int64_t seconds =
        days_since_epoch(dt.year, dt.month, dt.day) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second;
    return {seconds, dt.microsecond};
}

// The binlog type a result column's values arrive as (only what the
// encoder distinguishes: BIGINT for the unsigned rule).
binlog::ColumnInfo info_of(const Column& c) {
    binlog::ColumnInfo info;
    info.type = c.type;
    info.binlog_type = c.type;
    info.nullable = (c.flags & protocol::column_flag::not_null) == 0;
    info.is_unsigned = c.is_unsigned();
    info.has_signedness = true;
    info.fsp = c.decimals > 6 ? 0 : c.decimals;  // 31 (0x1f) is "not fixed": no fraction
    info.scale = c.decimals;
    info.bit_width = static_cast<std::uint8_t>(c.length > 64 ? 64 : c.length);
    return info;
}

}  // namespace

void append_field(Buffer& out, const Field& f, const ValueOptions& options) {
    if (f.is_null()) {
        out.commit(json::write_null(out.room(4)));
        return;
    }
    const Column& c = f.column();
    const binlog::ColumnInfo info = info_of(c);
    auto put = [&](const binlog::Value& v) { append_value(out, v, info, options); };
    switch (c.type) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong:
            if (c.is_unsigned()) put(f.get<std::uint64_t>());
            else put(f.get<std::int64_t>());
            return;
        case ColumnType::year: put(binlog::Year{f.get<std::uint16_t>()}); return;
        case ColumnType::float_: put(f.get<float>()); return;
        case ColumnType::double_: put(f.get<double>()); return;
        case ColumnType::decimal:
        case ColumnType::newdecimal: put(f.get<Decimal>()); return;
        case ColumnType::date:
        case ColumnType::newdate: put(f.get<Date>()); return;
        case ColumnType::time:
        case ColumnType::time2: put(f.get<Time>()); return;
        case ColumnType::datetime:
        case ColumnType::datetime2: put(f.get<DateTime>()); return;
        case ColumnType::timestamp:
        case ColumnType::timestamp2: put(timestamp_of(f.get<DateTime>())); return;
        case ColumnType::bit: put(binlog::Bit{f.get<std::uint64_t>(), info.bit_width}); return;
        case ColumnType::geometry: put(binlog::Geometry{f.raw()}); return;
        default: break;
    }
    // Strings: JSON, UUID/INET (their text), bytes, text, ENUM/SET names.
    if (c.is_json()) put(binlog::Json{text_of(f)});
    else if (c.is_binary() && c.extended_type.empty()) put(binlog::Blob{f.raw(), static_cast<std::uint32_t>(f.raw().size())});
    else put(binlog::Text{text_of(f)});
}

void append_snapshot_row(std::string& out, const cdc::SnapshotChunk& chunk, std::size_t row,
                         const ValueOptions& options) {
    thread_local Buffer scratch;
    scratch.clear();
    scratch.push_back('{');
    const auto& cols = *chunk.columns;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i) scratch.push_back(',');
        const std::string& name = cols[i].name;
        scratch.commit(json::write_string(scratch.room(json::string_bound(name.size())), name));
        scratch.push_back(':');
        append_field(scratch, chunk.field(row, i), options);
    }
    scratch.push_back('}');
    out.append(scratch.view());
}

}  // namespace sluice::mariadb::cdc::debezium
