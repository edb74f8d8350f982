#include "sluice/mariadb/protocol/commands.hpp"

#include <bit>
#include <string>

namespace sluice::mariadb::protocol {

void write_command(Writer& w, Command command, std::string_view argument) {
    w.u8(static_cast<std::uint8_t>(command));
    w.text(argument);
}

void write_statement_command(Writer& w, Command command, std::uint32_t statement_id) {
    w.u8(static_cast<std::uint8_t>(command));
    w.u32(statement_id);
}

void write_send_long_data(Writer& w, std::uint32_t statement_id, std::uint16_t param, Bytes chunk) {
    w.u8(static_cast<std::uint8_t>(Command::stmt_send_long_data));
    w.u32(statement_id);
    w.u16(param);
    w.bytes(chunk);
}

PrepareOk parse_prepare_ok(Bytes packet) {
    Reader r(packet, "prepare OK packet");
    if (r.u8("header") != 0x00) r.fail("header", "expected 0x00");
    PrepareOk ok;
    ok.statement_id = r.u32("statement id");
    ok.columns = r.u16("number of columns");
    ok.params = r.u16("number of parameters");
    if (!r.at_end()) {
        r.skip(1, "reserved");
        if (r.remaining() >= 2) ok.warnings = r.u16("warnings");
    }
    return ok;
}

ColumnType ParamValue::wire_type() const noexcept {
    switch (kind) {
        case Kind::null: return ColumnType::null;
        case Kind::int64:
        case Kind::uint64: return ColumnType::longlong;
        case Kind::float32: return ColumnType::float_;
        case Kind::float64: return ColumnType::double_;
        case Kind::text: return ColumnType::var_string;
        case Kind::blob: return ColumnType::blob;
        case Kind::decimal: return ColumnType::newdecimal;
        case Kind::date: return ColumnType::date;
        case Kind::time: return ColumnType::time;
        case Kind::datetime: return ColumnType::datetime;
    }
    return ColumnType::null;
}

namespace {

void write_value(Writer& w, const ParamValue& p) {
    using K = ParamValue::Kind;
    switch (p.kind) {
        case K::null: break;
        case K::int64: w.u64(static_cast<std::uint64_t>(p.i)); break;
        case K::uint64: w.u64(p.u); break;
        case K::float32: w.u32(std::bit_cast<std::uint32_t>(p.f)); break;
        case K::float64: w.u64(std::bit_cast<std::uint64_t>(p.d)); break;
        case K::text:
        case K::blob:
        case K::decimal: w.lenenc_bytes(p.bytes); break;
        case K::date:
            w.u8(4);
            w.u16(p.datetime.year);
            w.u8(p.datetime.month);
            w.u8(p.datetime.day);
            break;
        case K::datetime: {
            const DateTime& dt = p.datetime;
            w.u8(dt.microsecond ? 11 : 7);
            w.u16(dt.year);
            w.u8(dt.month);
            w.u8(dt.day);
            w.u8(dt.hour);
            w.u8(dt.minute);
            w.u8(dt.second);
            if (dt.microsecond) w.u32(dt.microsecond);
            break;
        }
        case K::time: {
            const Time& t = p.time;
            w.u8(t.microseconds ? 12 : 8);
            w.u8(t.negative ? 1 : 0);
            w.u32(t.hours / 24);
            w.u8(static_cast<std::uint8_t>(t.hours % 24));
            w.u8(t.minutes);
            w.u8(t.seconds);
            if (t.microseconds) w.u32(t.microseconds);
            break;
        }
    }
}

}  // namespace

void write_param_value(Writer& w, const ParamValue& p) { write_value(w, p); }

void write_stmt_execute(Writer& w, std::uint32_t statement_id, std::span<const ParamValue> params,
                        std::uint8_t flags) {
    w.u8(static_cast<std::uint8_t>(Command::stmt_execute));
    w.u32(statement_id);
    w.u8(flags);  // cursor type
    w.u32(1);  // iteration count
    if (params.empty()) return;
    std::size_t bitmap_at = w.size();
    w.zeros((params.size() + 7) / 8);
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (params[i].kind == ParamValue::Kind::null) {
            w.buffer()[bitmap_at + i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
        }
    }
    w.u8(1);  // new params bound: types follow
    for (const ParamValue& p : params) {
        w.u8(static_cast<std::uint8_t>(p.wire_type()));
        w.u8(p.kind == ParamValue::Kind::uint64 ? 0x80 : 0x00);
    }
    for (const ParamValue& p : params) {
        if (!p.long_data) write_value(w, p);
    }
}

}  // namespace sluice::mariadb::protocol
