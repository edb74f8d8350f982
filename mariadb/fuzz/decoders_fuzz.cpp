// libFuzzer target for every decoder of server bytes, and for the typed
// reading of decoded fields. Input: one selector byte, then the packet.
// Row decoders take their column count and types from the input first:
//   5 (text row):   N, then the row packet
//   6 (binary row): N, N type bytes, then the row packet
// The only acceptable failure is sluice::mariadb::Error; anything else
// (crash, sanitizer report, other exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/column.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/handshake.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/row.hpp"

using namespace sluice::mariadb;
using namespace sluice::mariadb::protocol;

namespace {

constexpr std::uint64_t all_caps = cap::protocol_41 | cap::session_track | cap::deprecate_eof |
                                   cap::mariadb_extended_metadata | cap::plugin_auth;

ColumnType valid_type(std::uint8_t t) noexcept {
    return static_cast<ColumnType>(t <= 19 || t >= 245 ? t : t % 20);
}

template <class T>
void try_read(const Field& f) {
    try {
        (void)f.get<std::optional<T>>();
    } catch (const Error&) {
    }
}

void read_every_way(const std::vector<Column>& columns, std::span<const FieldSlice> fields, bool binary) {
    Row row(&columns, fields, binary);
    for (std::size_t i = 0; i < row.size(); ++i) {
        Field f = row[i];
        try_read<bool>(f);
        try_read<std::int8_t>(f);
        try_read<std::int64_t>(f);
        try_read<std::uint64_t>(f);
        try_read<float>(f);
        try_read<double>(f);
        try_read<std::string_view>(f);
        try_read<std::string>(f);
        try_read<Decimal>(f);
        try_read<Date>(f);
        try_read<Time>(f);
        try_read<DateTime>(f);
    }
}

void rows(Bytes input, bool binary) {
    if (input.empty()) return;
    std::size_t n = input[0] % 64;
    input = input.subspan(1);
    std::vector<Column> columns(n);
    std::vector<ColumnType> types(n);
    if (binary) {
        if (input.size() < n) return;
        for (std::size_t i = 0; i < n; ++i) {
            types[i] = valid_type(input[i]);
            columns[i].type = types[i];
            // Reuse the byte's high bit as the unsigned flag.
            if (input[i] & 0x80) columns[i].flags = column_flag::unsigned_;
        }
        input = input.subspan(n);
    } else {
        for (std::size_t i = 0; i < n; ++i) columns[i].type = valid_type(static_cast<std::uint8_t>(i * 37));
    }
    std::vector<FieldSlice> fields(n);
    if (binary) {
        decode_binary_row(input, types, fields);
    } else {
        decode_text_row(input, fields);
    }
    read_every_way(columns, fields, binary);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    Bytes packet(data + 1, size - 1);
    try {
        switch (data[0] % 11) {
            case 0: (void)parse_handshake(packet); break;
            case 1: (void)parse_ok(packet, all_caps); (void)parse_ok(packet, cap::protocol_41); break;
            case 2: (void)parse_err(packet); break;
            case 3: (void)parse_eof(packet); (void)is_end_of_rows(packet, false); break;
            case 4:
                (void)Column::from(parse_column_definition(packet, all_caps));
                (void)parse_column_definition(packet, 0);
                break;
            case 5: rows(packet, false); break;
            case 6: rows(packet, true); break;
            case 7: (void)parse_prepare_ok(packet); break;
            case 8: (void)parse_auth_switch(packet); (void)auth_more_data(packet); break;
            case 9: (void)parse_column_count(packet); break;
            default: (void)decode_binary_datetime(packet); (void)decode_binary_time(packet); break;
        }
    } catch (const Error&) {
        // Rejected with a clear error: the expected outcome for bad input.
    }
    return 0;
}
