// The pipeline's parsers of outside bytes: the source position stored in a
// checkpoint (from a database column) and the mapping of source cells given
// as text (ids, keys, timestamps, numbers from the binlog or a snapshot).
// First byte: which; the rest: the input (for the mapping, four cells split
// at 0x1F, 0x1E marking NULL).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sluice/pipeline/mapping.hpp"
#include "sluice/pipeline/source_position.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sluice::pipeline;
    if (size == 0) return 0;
    const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
    if (data[0] % 2 == 0) {
        if (auto p = decode_source_position(in)) {
            auto again = decode_source_position(encode(*p));
            if (!again || !(*again == *p)) __builtin_trap();
        }
        return 0;
    }
    std::vector<SourceValue> cells;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= in.size() && cells.size() < 4; ++i) {
        if (i == in.size() || in[i] == '\x1f') {
            std::string_view c = in.substr(start, i - start);
            cells.push_back(c == "\x1e" ? SourceValue::null_value() : SourceValue::of_text(c));
            start = i + 1;
        }
    }
    while (cells.size() < 4) cells.push_back(SourceValue::of_text(""));
    StringArena arena;
    Mapped m = map_event({"id", "key", "ts", "value"}, cells[0], cells[1], cells[2], cells[3], arena);
    if (const Event* e = std::get_if<Event>(&m)) {
        if (e->id.empty() || e->id.size() > max_id_bytes || e->key.size() > max_key_bytes || !valid_utf8(e->id) ||
            !valid_utf8(e->key) || e->ts < -max_abs_ts || e->ts > max_abs_ts || !(e->value == e->value))
            __builtin_trap();
    }
    return 0;
}
