// Restoring a Stream from a checkpoint line (or its inner object). The
// checkpoint is checked as strictly as an input line, and for consistency
// (order, ranges, sealed blocks at session starts, unique unsealed ids), so
// a restored stream is one the uninterrupted run could have reached.
#include <cmath>
#include <stdexcept>

#include "stream_impl.hpp"

namespace sluice::tideweave {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
    throw std::runtime_error("malformed tideweave checkpoint: " + path + ": " + message);
}

// The members of `obj` named in `names`, in that order; every one required,
// no others, no duplicates.
template <std::size_t N>
std::array<element, N> members(const element& e, const std::string& path, const std::array<std::string_view, N>& names) {
    object obj;
    if (e.get_object().get(obj)) fail(path, "expected an object");
    std::array<element, N> found{};
    std::array<bool, N> seen{};
    for (auto field : obj) {
        std::size_t i = 0;
        while (i < N && names[i] != field.key) ++i;
        if (i == N) fail(path, "unknown member \"" + std::string(field.key) + "\"");
        if (seen[i]) fail(path, "duplicate member \"" + std::string(field.key) + "\"");
        seen[i] = true;
        found[i] = field.value;
    }
    for (std::size_t i = 0; i < N; ++i)
        if (!seen[i]) fail(path, "missing member \"" + std::string(names[i]) + "\"");
    return found;
}

array array_at(const element& e, const std::string& path) {
    array a;
    if (e.get_array().get(a)) fail(path, "expected an array");
    return a;
}

std::int64_t integer_at(const element& e, const std::string& path) {
    std::int64_t v = 0;
    std::string problem;
    if (!strict::read_ts(e, v, problem)) fail(path, problem);
    return v;
}

double number_at(const element& e, const std::string& path) {
    double v = 0;
    std::string problem;
    if (!strict::read_value(e, v, problem)) fail(path, problem);
    return v;
}

Config config_of(const element& checkpoint) {
    const auto m = members<7>(checkpoint, "checkpoint",
                              {"format", "gap", "lateness", "version", "line", "watermark", "keys"});
    std::string_view format;
    if (!strict::read_string(m[0], format) || format != checkpoint_format)
        fail("format", "expected \"" + std::string(checkpoint_format) + "\"");
    Config config;
    config.gap = integer_at(m[1], "gap");
    config.lateness = integer_at(m[2], "lateness");
    if (config.gap <= 0) fail("gap", "expected an integer in (0, 2^60]");
    if (config.lateness < 0) fail("lateness", "expected an integer in [0, 2^60]");
    return config;
}

}  // namespace

void Stream::Impl::load_checkpoint(const element& checkpoint) {
    const auto m = members<7>(checkpoint, "checkpoint",
                              {"format", "gap", "lateness", "version", "line", "watermark", "keys"});
    version_ = integer_at(m[3], "version");
    if (version_ < 0) fail("version", "expected a non-negative integer");
    line_ = integer_at(m[4], "line");
    if (line_ < 0) fail("line", "expected a non-negative integer");
    if (!m[5].is_null()) {
        has_watermark_ = true;
        watermark_ = integer_at(m[5], "watermark");
    }
    const std::int64_t h = horizon();

    std::string previous_key;
    std::size_t k = 0;
    std::vector<std::pair<KeyId, std::int64_t>> finals;
    for (element key_entry : array_at(m[6], "keys")) {
        const std::string at = "keys[" + std::to_string(k) + "]";
        const auto km = members<4>(key_entry, at, {"key", "blocks", "events", "final"});
        std::string_view name;
        std::string problem;
        if (!strict::read_key(km[0], name, problem)) fail(at + ".key", problem);
        if (k != 0 && std::string_view(previous_key) >= name) fail(at + ".key", "keys must be unique and in byte order");
        previous_key.assign(name);
        const KeyId key = intern(name);

        // Blocks and events interleaved by first timestamp, to check that
        // every block is sealed and starts its session.
        struct Item {
            std::int64_t first, last;
            bool block;
        };
        std::vector<Item> items;
        std::vector<Block> blocks;
        std::size_t i = 0;
        for (element b : array_at(km[1], at + ".blocks")) {
            const std::string bat = at + ".blocks[" + std::to_string(i++) + "]";
            const auto bm = members<6>(b, bat, {"first", "last", "count", "min", "max", "sum"});
            Block block;
            block.first_ts = integer_at(bm[0], bat + ".first");
            block.last_ts = integer_at(bm[1], bat + ".last");
            block.count = integer_at(bm[2], bat + ".count");
            block.min = number_at(bm[3], bat + ".min");
            block.max = number_at(bm[4], bat + ".max");
            std::size_t p = 0;
            for (element part : array_at(bm[5], bat + ".sum"))
                block.sum.add(number_at(part, bat + ".sum[" + std::to_string(p++) + "]"));
            if (block.first_ts > block.last_ts || block.last_ts >= h)
                fail(bat, "a block must satisfy first <= last < horizon");
            if (block.count < 1 || block.min > block.max) fail(bat, "count must be positive and min <= max");
            if (!blocks.empty() && blocks.back().last_ts >= block.first_ts) fail(bat, "blocks must be in order");
            items.push_back({block.first_ts, block.last_ts, true});
            blocks.push_back(block);
        }
        i = 0;
        std::int64_t prev_ts = 0;
        std::string_view prev_id;
        std::vector<KeyExport::Event> events;
        for (element e : array_at(km[2], at + ".events")) {
            const std::string eat = at + ".events[" + std::to_string(i) + "]";
            array triple = array_at(e, eat);
            if (triple.size() != 3) fail(eat, "expected [ts, id, value]");
            element ts_e, id_e, value_e;
            if (triple.at(0).get(ts_e) || triple.at(1).get(id_e) || triple.at(2).get(value_e))
                fail(eat, "expected [ts, id, value]");
            KeyExport::Event ev{integer_at(ts_e, eat + "[0]"), {}, 0};
            if (!strict::read_id(id_e, ev.id, problem)) fail(eat + "[1]", problem);
            ev.value = number_at(value_e, eat + "[2]");
            if (i != 0 && !(prev_ts < ev.ts || (prev_ts == ev.ts && prev_id < ev.id)))
                fail(eat, "events must be in (ts, id) order, without repeats");
            prev_ts = ev.ts;
            prev_id = ev.id;
            items.push_back({ev.ts, ev.ts, false});
            events.push_back(ev);
            ++i;
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
            return a.first < b.first || (a.first == b.first && a.block && !b.block);
        });
        for (std::size_t j = 0; j < items.size(); ++j) {
            if (!items[j].block) continue;
            if (j > 0 && items[j].first - items[j - 1].last <= config_.gap)
                fail(at + ".blocks", "a block must start its session");
            if (j + 1 < items.size() && items[j + 1].first <= items[j].last)
                fail(at + ".blocks", "no event may lie inside a block");
        }
        for (const Block& block : blocks) engine_->insert_block(key, block);
        for (const auto& ev : events) {
            if (ev.ts >= h) {
                if (ids_.contains(ev.id)) fail(at + ".events", "id \"" + std::string(ev.id) + "\" is held twice");
                ids_.try_emplace(ev.id, IdEntry{key, ev.ts, ev.value});
            }
            engine_->insert(key, ev.ts, ev.id, ev.value);
        }
        i = 0;
        for (element f : array_at(km[3], at + ".final"))
            finals.emplace_back(key, integer_at(f, at + ".final[" + std::to_string(i++) + "]"));
        ++k;
    }
    before_.clear();
    after_.clear();
    engine_->changes(before_, after_);
    engine_->commit();
    for (const auto& [key, start] : finals)
        if (!engine_->mark_final(key, start))
            fail("final", "no session of key \"" + key_names_[key] + "\" starts at " + std::to_string(start));
    rows_.clear();
    engine_->all_rows(rows_);
    for (const Row& r : rows_) {
        if (r.final && r.end >= h) fail("final", "a final session must end before the horizon");
        if (!std::isfinite(r.sum)) fail("keys", "a session's sum exceeds the double range");
    }
}

Stream Stream::restore(std::string_view checkpoint_json, EngineKind kind) {
    simdjson::dom::parser parser;
    const simdjson::padded_string text(checkpoint_json);
    element root;
    if (auto err = parser.parse(text).get(root))
        throw std::runtime_error(std::string("malformed tideweave checkpoint: invalid JSON: ") +
                                 simdjson::error_message(err));
    object top;
    if (root.get_object().get(top)) fail("checkpoint", "expected an object");
    element checkpoint = root;
    element wrapped;
    if (!top["checkpoint"].get(wrapped)) {  // the whole output line
        const auto outer = members<2>(root, "line", {"version", "checkpoint"});
        checkpoint = outer[1];
        const auto inner = members<7>(checkpoint, "checkpoint",
                                      {"format", "gap", "lateness", "version", "line", "watermark", "keys"});
        if (integer_at(outer[0], "version") != integer_at(inner[3], "checkpoint.version"))
            fail("version", "the line's version differs from the checkpoint's");
    }
    auto impl = std::make_unique<Impl>(config_of(checkpoint), kind);
    impl->load_checkpoint(checkpoint);
    return Stream(std::move(impl));
}

}  // namespace sluice::tideweave
