#include "sluice/mariadb/protocol/responses.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::protocol {

OkPacket parse_ok(Bytes packet, std::uint64_t capabilities) {
    Reader r(packet, "OK packet");
    std::uint8_t header = r.u8("header");
    if (header != 0x00 && header != 0xFE) r.fail("header", "expected 0x00 or 0xFE");
    OkPacket ok;
    ok.affected_rows = r.lenenc("affected rows");
    ok.last_insert_id = r.lenenc("last insert id");
    ok.status_flags = r.u16("status flags");
    ok.warnings = r.u16("warnings");
    if (r.at_end()) return ok;
    if (capabilities & cap::session_track) {
        ok.info = r.lenenc_text("info");
        if ((ok.status_flags & status::session_state_changed) && !r.at_end()) {
            ok.session_state = r.lenenc_bytes("session state changes");
        }
    } else {
        ok.info = as_text(r.rest());
    }
    return ok;
}

ErrPacket parse_err(Bytes packet) {
    Reader r(packet, "ERR packet");
    if (r.u8("header") != 0xFF) r.fail("header", "expected 0xFF");
    ErrPacket e;
    e.code = r.u16("error code");
    if (e.code == 0xFFFF) r.fail("error code", "unexpected progress report (not requested)");
    e.sqlstate = "HY000";
    if (!r.at_end() && r.peek("sqlstate marker") == '#') {
        r.skip(1, "sqlstate marker");
        e.sqlstate = as_text(r.bytes(5, "sqlstate"));
    }
    e.message = as_text(r.rest());
    return e;
}

void throw_server_error(Bytes err_packet) {
    ErrPacket e = parse_err(err_packet);
    throw Error(e.code, std::string(e.sqlstate), std::string(e.message));
}

EofPacket parse_eof(Bytes packet) {
    Reader r(packet, "EOF packet");
    if (r.u8("header") != 0xFE) r.fail("header", "expected 0xFE");
    EofPacket e;
    e.warnings = r.u16("warnings");
    e.status_flags = r.u16("status flags");
    return e;
}

std::uint16_t end_of_rows_status(Bytes packet, bool deprecate_eof, std::uint64_t capabilities,
                                 OkPacket* ok_out) {
    if (deprecate_eof) {
        OkPacket ok = parse_ok(packet, capabilities);
        if (ok_out) *ok_out = ok;
        return ok.status_flags;
    }
    EofPacket e = parse_eof(packet);
    if (ok_out) {
        *ok_out = OkPacket{};
        ok_out->status_flags = e.status_flags;
        ok_out->warnings = e.warnings;
    }
    return e.status_flags;
}

}  // namespace sluice::mariadb::protocol
