// The CDC NDJSON line reader on any bytes (a JetStream stream may hold
// whatever another program wrote): every input parses or throws
// mariadb::Error, and what parses keeps the reader's promises: changes only
// in transactions and snapshot chunks, each image of exactly the picked
// columns, an insert without a before image, a delete without an after one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sluice/mariadb/cdc/ndjson_reader.hpp"
#include "sluice/mariadb/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sluice::mariadb::cdc::ndjson;
    static LineReader reader({{"id", "--id"}, {"k", ""}, {"t", "--ts"}, {"v", "--value"}}, "shop", "ev");
    try {
        const Line& l = reader.parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
        if (l.kind != LineKind::transaction && l.kind != LineKind::snapshot_chunk && !l.changes.empty())
            __builtin_trap();
        if (l.kind != LineKind::transaction && l.timestamp != 0) __builtin_trap();
        for (const LineChange& c : l.changes) {
            if (l.kind == LineKind::snapshot_chunk && c.op != RowOp::insert) __builtin_trap();
            if ((c.op == RowOp::insert) != c.before.empty()) __builtin_trap();
            if ((c.op == RowOp::remove) != c.after.empty()) __builtin_trap();
            for (auto image : {c.before, c.after}) {
                if (!image.empty() && image.size() != 4) __builtin_trap();
                for (const LineValue& v : image)
                    if (v.kind != LineValue::Kind::text && !v.text.empty()) __builtin_trap();
            }
        }
    } catch (const sluice::mariadb::Error& e) {
        if (e.kind() != sluice::mariadb::ErrorKind::protocol) __builtin_trap();
    }
    return 0;
}
