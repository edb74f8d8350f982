#include "sluice/mariadb/protocol/column.hpp"

#include <string>

namespace sluice::mariadb::protocol {

namespace {
bool known_type(std::uint8_t t) noexcept { return t <= 19 || t >= 245; }
}  // namespace

ColumnDefinition parse_column_definition(Bytes packet, std::uint64_t capabilities) {
    Reader r(packet, "column definition");
    ColumnDefinition c;
    c.catalog = r.lenenc_text("catalog");
    c.schema = r.lenenc_text("schema");
    c.table = r.lenenc_text("table alias");
    c.org_table = r.lenenc_text("table");
    c.name = r.lenenc_text("column alias");
    c.org_name = r.lenenc_text("column");
    if (capabilities & cap::mariadb_extended_metadata) {
        Bytes ext = r.lenenc_bytes("extended metadata");
        Reader e(ext, "column definition extended metadata");
        while (!e.at_end()) {
            std::uint8_t kind = e.u8("extended metadata kind");
            std::string_view value = e.lenenc_text("extended metadata value");
            if (kind == 0) c.extended_type = value;
            else if (kind == 1) c.extended_format = value;
            // Other kinds are future extensions: skipped, not trusted.
        }
    }
    std::uint64_t fixed = r.lenenc("length of fixed fields");
    if (fixed < 12) r.fail("length of fixed fields", "is " + std::to_string(fixed) + ", expected 12");
    c.collation = r.u16("character set");
    c.length = r.u32("column length");
    std::uint8_t type = r.u8("column type");
    if (!known_type(type)) r.fail("column type", "unknown column type " + std::to_string(type));
    c.type = static_cast<ColumnType>(type);
    c.flags = r.u16("flags");
    c.decimals = r.u8("decimals");
    r.skip(static_cast<std::size_t>(fixed - 10), "reserved");
    return c;
}

std::uint64_t parse_column_count(Bytes packet) {
    Reader r(packet, "column count packet");
    std::uint64_t n = r.lenenc("column count");
    if (n == 0 || n > 0xFFFF) r.fail("column count", "implausible column count " + std::to_string(n));
    return n;
}

}  // namespace sluice::mariadb::protocol
