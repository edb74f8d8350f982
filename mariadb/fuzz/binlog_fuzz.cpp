// libFuzzer target for the binlog decoders: the input is a stream of
// events as they follow each other in a binlog file (no magic), each
// delimited by its own event_length field. Two decoders read it: one that
// verifies CRC32 (as in production) and one that does not (so mutations
// reach the body parsers); every row of every Rows event is read and every
// cell turned to text. A stream with no FORMAT_DESCRIPTION of its own is
// also fed after a real one, so the rows paths are reached from short
// inputs. The only acceptable failure is sluice::mariadb::Error. Every
// image is also printed as the CDC NDJSON object (the formatter that writes
// into its own buffer) and compared with the same object built from the
// SELECT formatter's std::string functions, cell by cell: any difference
// aborts. Each image is also written in Debezium's encodings, in the three
// DECIMAL modes (the sanitizers watch the bounds of its buffer writes).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sluice/mariadb/binlog/binlog.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/cdc/debezium_values.hpp"
#include "sluice/mariadb/ndjson.hpp"

using namespace sluice::mariadb;
using namespace sluice::mariadb::binlog;

namespace {

// MariaDB 10.11's FORMAT_DESCRIPTION with CRC32 (the first event of
// mariadb/tests/binlog/fixtures/every_type.hex).
std::vector<std::uint8_t> real_format_description() {
    static const char hex[] =
        "5e960e6b0f01000000fc000000000100000000040031302e31312e31392d4d6172696144422d302b646562313275312d"
        "6c6f6700000000000000000000000000000000000000000000000013380d000800120004040404120000e400041a0800"
        "0000080808020000000a0a0a0000000000000a0a0a000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004130400"
        "0d0808080a0a0a01cef4b8fd";
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < sizeof hex; i += 2) {
        auto nibble = [](char c) { return static_cast<std::uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
        out.push_back(static_cast<std::uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
    }
    return out;
}

// The image's NDJSON object from the std::string formatter functions.
std::string reference_image(std::span<const Cell> image, const TableMap& table) {
    namespace json = sluice::mariadb::ndjson;
    std::string out = "{";
    bool first = true;
    for (std::size_t i = 0; i < image.size(); ++i) {
        const Cell& c = image[i];
        if (!c.present) continue;
        if (!first) out += ',';
        first = false;
        const ColumnInfo& col = table.columns[i];
        json::append_key(out, col.name.empty() ? "@" + std::to_string(i + 1) : col.name);
        if (c.null) {
            json::append_null(out);
            continue;
        }
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::int64_t>) json::append_integer(out, v);
                else if constexpr (std::is_same_v<T, std::uint64_t>) json::append_unsigned(out, v);
                else if constexpr (std::is_same_v<T, float>) json::append_float(out, v);
                else if constexpr (std::is_same_v<T, double>) json::append_double(out, v);
                else if constexpr (std::is_same_v<T, Year>) json::append_unsigned(out, v.value);
                else if constexpr (std::is_same_v<T, Bit>) json::append_unsigned(out, v.value);
                else if constexpr (std::is_same_v<T, Text> || std::is_same_v<T, Json>) json::append_string(out, v.value);
                else if constexpr (std::is_same_v<T, Enum>) json::append_string(out, v.name);
                else if constexpr (std::is_same_v<T, Blob>)
                    json::append_base64(out, v.value, v.padded_length > v.value.size() ? v.padded_length - v.value.size() : 0);
                else if constexpr (std::is_same_v<T, Geometry>) json::append_base64(out, v.value);
                else json::append_string(out, to_text(c.value, col));
            },
            c.value);
    }
    return out + "}";
}

void read_rows(const Rows& rows) {
    RowReader reader(rows);
    RowChange change;
    std::string text;
    sluice::mariadb::ndjson::Buffer line;
    while (reader.next(change)) {
        for (auto image : {change.before, change.after}) {
            for (std::size_t i = 0; i < image.size(); ++i) {
                const Cell& c = image[i];
                if (c.present && !c.null) {
                    text.clear();
                    append_text(text, c.value, rows.table->columns[i]);
                }
            }
            if (image.empty()) continue;
            line.clear();
            sluice::mariadb::cdc::ndjson::append_image(line, image, *rows.table);
            if (line.view() != reference_image(image, *rows.table)) std::abort();
            namespace dbz = sluice::mariadb::cdc::debezium;
            for (auto mode :
                 {dbz::DecimalHandling::precise, dbz::DecimalHandling::string, dbz::DecimalHandling::double_}) {
                line.clear();
                dbz::append_image(line, image, *rows.table, dbz::ValueOptions{mode});
                if (line.view().front() != '{' || line.view().back() != '}') std::abort();
            }
        }
    }
}

void feed(Decoder& dec, std::span<const std::uint8_t> stream) {
    std::size_t pos = 0;
    while (stream.size() - pos >= event_header_length) {
        const std::uint8_t* p = stream.data() + pos + 9;
        std::size_t len = std::size_t{p[0]} | (std::size_t{p[1]} << 8) | (std::size_t{p[2]} << 16) |
                          (std::size_t{p[3]} << 24);
        if (len < event_header_length || len > stream.size() - pos) len = stream.size() - pos;
        try {
            Event ev = dec.decode(stream.subspan(pos, len));
            if (auto* rows = std::get_if<Rows>(&ev.body)) read_rows(*rows);
            if (auto* tm = std::get_if<TableMapEvent>(&ev.body)) {
                // Schema hints over whatever table this is.
                TableSchema s;
                for (std::size_t i = 0; i < tm->table->columns.size(); ++i)
                    s.columns.push_back({"c", i % 3 == 0 ? "uuid" : i % 3 == 1 ? "inet6" : "json", 3});
                dec.set_schema(tm->table->db, tm->table->table, std::move(s));
            }
        } catch (const Error&) {
        }
        pos += len;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::span<const std::uint8_t> stream(data, size);
    {
        Decoder strict;
        strict.set_position("fuzz.000001", 4);
        feed(strict, stream);
    }
    {
        Decoder lax(DecoderOptions{false});
        feed(lax, stream);
    }
    {
        static const std::vector<std::uint8_t> fd = real_format_description();
        Decoder primed(DecoderOptions{false});
        primed.decode(fd);
        feed(primed, stream);
    }
    return 0;
}
