#include "sluice/mariadb/protocol/result_head.hpp"

#include <string>

namespace sluice::mariadb::protocol {

ColumnCountHead parse_column_count_head(Bytes packet, bool cache_metadata) {
    Reader r(packet, "column count packet");
    ColumnCountHead head;
    head.columns = r.lenenc("column count");
    if (head.columns == 0 || head.columns > 0xFFFF) {
        r.fail("column count", "implausible column count " + std::to_string(head.columns));
    }
    if (cache_metadata) {
        std::uint8_t flag = r.u8("metadata follows");
        if (flag > 1) r.fail("metadata follows", "expected 0 or 1, got " + std::to_string(flag));
        head.metadata_follows = flag == 1;
    }
    if (!r.at_end()) r.fail("column count", "unexpected bytes after the column count");
    return head;
}

std::string_view parse_local_infile_request(Bytes packet) {
    Reader r(packet, "LOCAL INFILE request");
    if (r.u8("header") != 0xFB) r.fail("header", "expected 0xFB");
    return as_text(r.rest());
}

void write_stmt_fetch(Writer& w, std::uint32_t statement_id, std::uint32_t rows) {
    w.u8(com_stmt_fetch);
    w.u32(statement_id);
    w.u32(rows);
}

}  // namespace sluice::mariadb::protocol
