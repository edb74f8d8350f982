// The Stream shell: strict parsing of one NDJSON line (simdjson DOM), the
// transaction's checks (shape, then lateness, then identity, mutation by
// mutation, before anything is applied), the version and watermark, and every
// output line. The session engine behind it only sees admissible mutations.
#include "sluice/tideweave/stream.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "json_out.hpp"
#include "stream_impl.hpp"

namespace sluice::tideweave {
namespace {

std::string in_quotes(std::string_view s) {
    std::string q;
    q.reserve(s.size() + 2);
    q.push_back('"');
    q.append(s);
    q.push_back('"');
    return q;
}

// simdjson's DOM rejects a whole document for an integer literal beyond the
// 64-bit range, and for a number that overflows a double (1e400). Either is
// still valid JSON and only out of *our* range, so it deserves the member-
// naming error every other out-of-range number gets. So such a line is
// rewritten and parsed again: a huge integer becomes the nearest 64-bit
// integer (as far out of range for ts and value as the original), and an
// overflowing number becomes a finite double `marker` that no other number
// of the line has (found here), which the value reader then reports as
// beyond the double range. Returns false if the line has no such literal.
// Whether a JSON number's magnitude (its text without the sign) is at least
// 1: it tells an overflow from an underflow when both are "out of range".
bool at_least_one(std::string_view number) {
    const std::size_t e = number.find_first_of("eE");
    const std::string_view mantissa = number.substr(0, e);
    std::int64_t exponent = 0;
    if (e != std::string_view::npos) {
        std::size_t k = e + 1;
        const bool negative = k < number.size() && number[k] == '-';
        if (k < number.size() && (number[k] == '-' || number[k] == '+')) ++k;
        for (; k < number.size() && exponent < 100000; ++k) exponent = exponent * 10 + (number[k] - '0');
        if (negative) exponent = -exponent;
    }
    const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
    const std::size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return false;  // zero
    // The decimal order of the leading digit: >= 0 means at least 1.
    const std::int64_t order = first < point ? static_cast<std::int64_t>(point - first) - 1
                                             : -static_cast<std::int64_t>(first - point);
    return order + exponent >= 0;
}

bool rewrite_out_of_range_numbers(std::string_view line, std::string& out, double& marker) {
    static constexpr std::string_view max_u64 = "18446744073709551615";
    static constexpr std::string_view min_i64_digits = "9223372036854775808";
    out.clear();
    bool changed = false;
    bool overflowed = false;
    bool in_string = false;
    std::vector<double> magnitudes;  // of the line's other numbers
    std::vector<std::size_t> overflow_at;  // where the marker's digits go in `out`
    std::vector<bool> overflow_negative;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (in_string) {
            out.push_back(c);
            if (c == '\\' && i + 1 < line.size()) {
                out.push_back(line[++i]);
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') in_string = true;
        if (c != '-' && (c < '0' || c > '9')) {
            out.push_back(c);
            continue;
        }
        std::size_t j = i;
        while (j < line.size() && (line[j] == '-' || line[j] == '+' || line[j] == '.' || line[j] == 'e' ||
                                   line[j] == 'E' || (line[j] >= '0' && line[j] <= '9')))
            ++j;
        const std::string_view token = line.substr(i, j - i);
        i = j - 1;
        const bool negative = token.front() == '-';
        const std::string_view digits = token.substr(negative ? 1 : 0);
        const std::string_view limit = negative ? min_i64_digits : max_u64;
        const bool integer = !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
        if (integer && (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit))) {
            out.append(negative ? "-9223372036854775808" : max_u64);
            changed = true;
            continue;
        }
        double parsed = 0;
        const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), parsed);
        if (ec == std::errc::result_out_of_range && end == token.data() + token.size() && at_least_one(digits)) {
            overflow_at.push_back(out.size());
            overflow_negative.push_back(negative);
            overflowed = changed = true;
            continue;
        }
        magnitudes.push_back(std::fabs(parsed));
        out.append(token);
    }
    if (!overflowed) return changed;
    marker = std::numeric_limits<double>::max();
    while (std::find(magnitudes.begin(), magnitudes.end(), marker) != magnitudes.end())
        marker = std::nextafter(marker, 0.0);
    // Insert the marker's text at the recorded places, back to front.
    char text[32];
    const auto res = std::to_chars(text, text + sizeof text, marker);
    const std::string_view marker_text(text, static_cast<std::size_t>(res.ptr - text));
    for (std::size_t k = overflow_at.size(); k-- > 0;)
        out.insert(overflow_at[k], std::string(overflow_negative[k] ? "-" : "").append(marker_text));
    return true;
}

std::string number_text(double v) {
    std::string s;
    json::append_number(s, v);
    return s;
}

std::string int_text(std::int64_t v) {
    std::string s;
    json::append_int(s, v);
    return s;
}

}  // namespace

KeyId Stream::Impl::intern(std::string_view key) {
    if (auto it = key_ids_.find(key); it != key_ids_.end()) return it->second;
    KeyId id = 0;
    if (!free_key_ids_.empty()) {
        id = free_key_ids_.back();
        free_key_ids_.pop_back();
        key_names_[id].assign(key);
    } else {
        id = static_cast<KeyId>(key_names_.size());
        key_names_.emplace_back(key);
    }
    key_ids_.emplace(std::string(key), id);
    new_keys_.push_back(id);
    return id;
}

void Stream::Impl::release_key(KeyId key) {
    if (auto it = key_ids_.find(key_names_[key]); it != key_ids_.end()) key_ids_.erase(it);
    key_names_[key].clear();
    key_names_[key].shrink_to_fit();
    free_key_ids_.push_back(key);
}

void Stream::Impl::sort_rows(std::vector<Row>& rows) const {
    std::sort(rows.begin(), rows.end(), [this](const Row& a, const Row& b) {
        if (a.key != b.key) return key_names_[a.key] < key_names_[b.key];
        return a.start < b.start;
    });
}

void Stream::Impl::append_row(std::string& out, const Row& r) const {
    out.append("{\"key\":");
    json::append_string(out, key_names_[r.key]);
    out.append(",\"start\":");
    json::append_int(out, r.start);
    out.append(",\"end\":");
    json::append_int(out, r.end);
    out.append(",\"count\":");
    json::append_int(out, r.count);
    out.append(",\"sum\":");
    json::append_number(out, r.sum);
    out.append(",\"min\":");
    json::append_number(out, r.min);
    out.append(",\"max\":");
    json::append_number(out, r.max);
    out.append(r.final ? ",\"final\":true}" : ",\"final\":false}");
}

void Stream::Impl::append_rows(std::string& out, const std::vector<Row>& rows) const {
    out.push_back('[');
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i != 0) out.push_back(',');
        append_row(out, rows[i]);
    }
    out.push_back(']');
}

void Stream::Impl::append_watermark(std::string& out) const {
    if (has_watermark_) {
        json::append_int(out, watermark_);
    } else {
        out.append("null");
    }
}

Stream::Outcome Stream::Impl::process_line(std::string_view line, std::int64_t line_no, std::string& out) {
    line_ = line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return Outcome::empty;
    const std::size_t mark = out.size();
    try {
        padded_.resize(line.size() + simdjson::SIMDJSON_PADDING);
        std::memcpy(padded_.data(), line.data(), line.size());
        element root;
        auto err = parser_.parse(padded_.data(), line.size(), false).get(root);
        beyond_range_marker_ = std::numeric_limits<double>::quiet_NaN();  // equal to nothing
        if (err == simdjson::NUMBER_ERROR && rewrite_out_of_range_numbers(line, clamped_, beyond_range_marker_)) {
            const std::size_t size = clamped_.size();
            clamped_.resize(size + simdjson::SIMDJSON_PADDING);
            err = parser_.parse(clamped_.data(), size, false).get(root);
        }
        if (err == simdjson::NUMBER_ERROR) throw LineError{"invalid JSON: a number is malformed", {}};
        if (err) throw LineError{std::string("invalid JSON: ") + simdjson::error_message(err), {}};
        simdjson::dom::object object;
        if (root.get_object().get(object))
            throw LineError{"expected a JSON object with one member: tx, watermark, forget, snapshot or checkpoint", {}};
        std::string_view command;
        element value;
        for (auto field : object) {
            const std::string_view name = field.key;
            if (name != "tx" && name != "watermark" && name != "forget" && name != "snapshot" &&
                name != "checkpoint")
                throw LineError{"unknown member " + in_quotes(name) +
                                    " (expected one of tx, watermark, forget, snapshot, checkpoint)",
                                {}};
            if (name == command) throw LineError{"duplicate member " + in_quotes(name), {}};
            if (!command.empty())
                throw LineError{"more than one command in a line: " + in_quotes(command) + " and " + in_quotes(name), {}};
            command = name;
            value = field.value;
        }
        if (command.empty())
            throw LineError{"expected a JSON object with one member: tx, watermark, forget, snapshot or checkpoint", {}};
        if (command == "tx") {
            run_tx(value, out);
        } else if (command == "watermark") {
            run_watermark(value, out);
        } else {
            if (!value.is_bool() || !bool(value.get_bool()))
                throw LineError{std::string(command) + ": expected true", {}};
            if (command == "forget") {
                run_forget(out);
            } else if (command == "snapshot") {
                run_snapshot(out);
            } else {
                run_checkpoint(out);
            }
        }
        return Outcome::ok;
    } catch (const LineError& e) {
        out.resize(mark);
        out.append("{\"error\":{\"line\":");
        json::append_int(out, line_no);
        if (e.index) {
            out.append(",\"index\":");
            json::append_int(out, static_cast<std::int64_t>(*e.index));
        }
        out.append(",\"message\":");
        json::append_string(out, e.message);
        out.append("}}\n");
        return Outcome::error;
    }
}

Stream::Impl::Mutation Stream::Impl::parse_mutation(const element& m, std::size_t index) const {
    // Paths for messages are built only when something fails.
    const auto where = [index] { return "tx[" + std::to_string(index) + "]"; };
    auto fail = [&](std::string message) { throw LineError{std::move(message), index}; };
    simdjson::dom::object wrapper;
    if (m.get_object().get(wrapper) || wrapper.size() != 1)
        fail(where() + ": expected an object with one member, \"insert\" or \"retract\"");
    const auto field = *wrapper.begin();
    Mutation mut;
    if (field.key == "insert") {
        mut.is_insert = true;
    } else if (field.key == "retract") {
        mut.is_insert = false;
    } else {
        fail(where() + ": unknown member " + in_quotes(field.key) + " (expected \"insert\" or \"retract\")");
    }
    const auto path = [&] { return where() + "." + std::string(field.key); };
    simdjson::dom::object body;
    if (field.value.get_object().get(body)) fail(path() + ": expected an object");
    bool seen_id = false, seen_key = false, seen_ts = false;
    for (auto member : body) {
        const std::string_view name = member.key;
        const auto at = [&] { return path() + "." + std::string(name); };
        bool* seen = nullptr;
        if (name == "id") {
            seen = &seen_id;
        } else if (name == "key") {
            seen = &seen_key;
        } else if (name == "ts") {
            seen = &seen_ts;
        } else if (name == "value") {
            seen = &mut.has_value;
        } else {
            fail(path() + ": unknown member " + in_quotes(name) + " (expected id, key, ts" +
                 (mut.is_insert ? " and value)" : ", optionally value)"));
        }
        if (*seen) fail(path() + ": duplicate member " + in_quotes(name));
        *seen = true;
        std::string problem;
        if (name == "id") {
            if (!strict::read_id(member.value, mut.id, problem)) fail(at() + ": " + problem);
        } else if (name == "key") {
            if (!strict::read_key(member.value, mut.key, problem)) fail(at() + ": " + problem);
        } else if (name == "ts") {
            if (!strict::read_ts(member.value, mut.ts, problem)) fail(at() + ": " + problem);
        } else {
            if (!strict::read_value(member.value, mut.value, problem, beyond_range_marker_))
                fail(at() + ": " + problem);
        }
    }
    if (!seen_id) fail(path() + ": missing member \"id\"");
    if (!seen_key) fail(path() + ": missing member \"key\"");
    if (!seen_ts) fail(path() + ": missing member \"ts\"");
    if (mut.is_insert && !mut.has_value) fail(path() + ": missing member \"value\"");
    return mut;
}

// Checks the mutation's identity against the events held (earlier mutations
// of the same transaction included, since they are already applied) and
// applies it. Throws, having changed nothing, if the identity is wrong.
void Stream::Impl::apply_checked(const Mutation& m, std::size_t index, double& retracted_value) {
    const auto where = [&] { return "tx[" + std::to_string(index) + "]." + (m.is_insert ? "insert" : "retract"); };
    const std::int64_t h = horizon();
    if (m.is_insert) {
        // One lookup; an entry already there is an error unless its event is
        // sealed (its id may then be used again).
        const auto [entry, inserted] = ids_.try_emplace(m.id, m.id_hash, IdEntry{0, m.ts, m.value});
        if (!inserted && entry->ts >= h)
            throw LineError{where() + ": an active event with id " + in_quotes(m.id) + " already exists (key " +
                                in_quotes(key_names_[entry->key]) + ", ts " + int_text(entry->ts) + ")",
                            index};
        const KeyId key = intern(m.key);
        *entry = IdEntry{key, m.ts, m.value};
        engine_->insert(key, m.ts, m.id, m.value);
        return;
    }
    const IdEntry* found = ids_.find(m.id);
    if (found == nullptr || found->ts < h)
        throw LineError{where() + ": no active event with id " + in_quotes(m.id), index};
    const IdEntry held = *found;
    if (key_names_[held.key] != m.key)
        throw LineError{where() + ": event " + in_quotes(m.id) + " has key " + in_quotes(key_names_[held.key]) +
                            ", not " + in_quotes(m.key),
                        index};
    if (held.ts != m.ts)
        throw LineError{
            where() + ": event " + in_quotes(m.id) + " has ts " + int_text(held.ts) + ", not " + int_text(m.ts), index};
    if (m.has_value && held.value != m.value)
        throw LineError{where() + ": event " + in_quotes(m.id) + " has value " + number_text(held.value) +
                            ", not " + number_text(m.value),
                        index};
    retracted_value = held.value;
    ids_.erase(m.id);
    engine_->retract(held.key, m.ts, m.id);
}

void Stream::Impl::undo_applied(std::size_t applied) {
    for (std::size_t i = applied; i-- > 0;)
        if (!mutations_[i].late) unapply(mutations_[i], retracted_values_[i]);
    engine_->commit();
    // A key this transaction named first is forgotten again: the rejected
    // transaction leaves no trace, in memory either.
    for (KeyId key : new_keys_)
        if (!engine_->holds_key(key)) release_key(key);
    new_keys_.clear();
}

void Stream::Impl::unapply(const Mutation& m, double retracted_value) {
    const KeyId key = intern(m.key);
    if (m.is_insert) {
        engine_->retract(key, m.ts, m.id);
        ids_.erase(m.id);
    } else {
        engine_->insert(key, m.ts, m.id, retracted_value);
        ids_.try_emplace(m.id, IdEntry{key, m.ts, retracted_value});
    }
}

void Stream::Impl::run_tx(const element& value, std::string& out) {
    simdjson::dom::array list;
    if (value.get_array().get(list)) throw LineError{"tx: expected an array of mutations", {}};
    mutations_.clear();
    new_keys_.clear();
    // Every mutation is parsed first, up to the first malformed one, so that
    // the identity index's table slots can be prefetched a few mutations
    // ahead of their lookups (each is otherwise a cache miss). The order of
    // checks is unchanged: mutations before a malformed one are still
    // checked for identity first, and their error wins.
    std::optional<LineError> shape_error;
    for (element m : list) {
        try {
            mutations_.push_back(parse_mutation(m, mutations_.size()));
        } catch (LineError& e) {
            shape_error = std::move(e);
            break;
        }
        mutations_.back().id_hash = IdIndex::hash(mutations_.back().id);
    }
    retracted_values_.assign(mutations_.size(), 0.0);
    const std::int64_t h = horizon();
    // Applied as checked, mutation by mutation; an error undoes them, newest
    // first, so that the state and version are as before.
    constexpr std::size_t prefetch_distance = 8;
    std::size_t applied = 0;
    try {
        for (; applied < mutations_.size(); ++applied) {
            if (applied + prefetch_distance < mutations_.size())
                ids_.prefetch(mutations_[applied + prefetch_distance].id_hash);
            Mutation& mut = mutations_[applied];
            mut.late = mut.ts < h;
            if (!mut.late) apply_checked(mut, applied, retracted_values_[applied]);
        }
    } catch (const LineError&) {
        undo_applied(applied);
        throw;
    }
    if (shape_error) {
        undo_applied(applied);
        throw std::move(*shape_error);
    }
    before_.clear();
    after_.clear();
    engine_->changes(before_, after_);
    for (const Row& r : after_) {
        if (std::isfinite(r.sum)) continue;
        // The exact sum is beyond the double range: undo, newest first.
        const std::string where = "tx: the sum of the session of key " + in_quotes(key_names_[r.key]) +
                                  " starting at " + int_text(r.start) + " would exceed the double range";
        undo_applied(mutations_.size());
        throw LineError{where, {}};
    }
    engine_->commit();
    ++version_;

    // Rows both before and after (a session the transaction left as it was)
    // are no change: cancel them, then list the rest by (key, start).
    sort_rows(before_);
    sort_rows(after_);
    std::size_t b = 0, a = 0, kept_b = 0, kept_a = 0;
    while (b < before_.size() || a < after_.size()) {
        if (b < before_.size() && a < after_.size() && before_[b].same_fields(after_[a])) {
            ++b;
            ++a;
            continue;
        }
        const bool take_before =
            a == after_.size() ||
            (b < before_.size() && (before_[b].key == after_[a].key ? before_[b].start <= after_[a].start
                                                                    : key_names_[before_[b].key] <
                                                                          key_names_[after_[a].key]));
        if (take_before) {
            before_[kept_b++] = before_[b++];
        } else {
            after_[kept_a++] = after_[a++];
        }
    }
    before_.resize(kept_b);
    after_.resize(kept_a);

    out.append("{\"version\":");
    json::append_int(out, version_);
    out.append(",\"before\":");
    append_rows(out, before_);
    out.append(",\"after\":");
    append_rows(out, after_);
    out.append(",\"late\":[");
    bool first = true;
    for (std::size_t i = 0; i < mutations_.size(); ++i) {
        const Mutation& m = mutations_[i];
        if (!m.late) continue;
        if (!first) out.push_back(',');
        first = false;
        out.append("{\"index\":");
        json::append_int(out, static_cast<std::int64_t>(i));
        out.append(",\"id\":");
        json::append_string(out, m.id);
        out.append(",\"key\":");
        json::append_string(out, m.key);
        out.append(",\"ts\":");
        json::append_int(out, m.ts);
        out.push_back('}');
    }
    out.append("]}\n");
}

void Stream::Impl::run_watermark(const element& value, std::string& out) {
    std::int64_t w = 0;
    std::string problem;
    if (!strict::read_ts(value, w, problem)) throw LineError{"watermark: " + problem, {}};
    if (has_watermark_ && w < watermark_)
        throw LineError{"watermark: " + int_text(w) + " is behind the current watermark " + int_text(watermark_), {}};
    has_watermark_ = true;
    watermark_ = w;
    rows_.clear();
    engine_->finalize(horizon(), rows_);
    sort_rows(rows_);
    out.append("{\"version\":");
    json::append_int(out, version_);
    out.append(",\"watermark\":");
    json::append_int(out, watermark_);
    out.append(",\"finalized\":");
    append_rows(out, rows_);
    out.append("}\n");
}

void Stream::Impl::run_forget(std::string& out) {
    std::vector<KeyId> emptied;
    // Released ids leave the identity index one by one while they are few;
    // past an eighth of the index, one sweep drops every entry below the
    // horizon instead (after forget exactly those are gone: each such event
    // was either in a final row or sealed and folded), without the random
    // access per id.
    const std::int64_t h = horizon();
    const std::size_t one_by_one_limit = ids_.size() / 8;
    std::size_t released = 0;
    const ReleaseFn release = [&](std::string_view id, KeyId key, std::int64_t ts) {
        if (++released > one_by_one_limit) return;
        const IdEntry* held = ids_.find(id);
        if (held != nullptr && held->key == key && held->ts == ts) ids_.erase(id);
    };
    const ForgetCounts counts = engine_->forget(h, release, emptied);
    if (released > one_by_one_limit) ids_.erase_older_than(h);
    for (KeyId key : emptied) release_key(key);
    out.append("{\"version\":");
    json::append_int(out, version_);
    out.append(",\"forgotten\":");
    json::append_int(out, static_cast<std::int64_t>(counts.rows_dropped));
    out.append(",\"folded\":");
    json::append_int(out, static_cast<std::int64_t>(counts.events_folded));
    out.append("}\n");
}

void Stream::Impl::run_snapshot(std::string& out) {
    rows_.clear();
    engine_->all_rows(rows_);
    sort_rows(rows_);
    out.append("{\"version\":");
    json::append_int(out, version_);
    out.append(",\"watermark\":");
    append_watermark(out);
    out.append(",\"rows\":");
    append_rows(out, rows_);
    out.append("}\n");
}

void Stream::Impl::run_checkpoint(std::string& out) {
    out.append("{\"version\":");
    json::append_int(out, version_);
    out.append(",\"checkpoint\":{\"format\":");
    json::append_string(out, checkpoint_format);
    out.append(",\"gap\":");
    json::append_int(out, config_.gap);
    out.append(",\"lateness\":");
    json::append_int(out, config_.lateness);
    out.append(",\"version\":");
    json::append_int(out, version_);
    out.append(",\"line\":");
    json::append_int(out, line_);
    out.append(",\"watermark\":");
    append_watermark(out);
    out.append(",\"keys\":[");
    std::vector<KeyId> keys = engine_->keys();
    std::sort(keys.begin(), keys.end(), [this](KeyId a, KeyId b) { return key_names_[a] < key_names_[b]; });
    KeyExport held;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        held.blocks.clear();
        held.events.clear();
        held.final_starts.clear();
        engine_->export_key(keys[k], held);
        if (k != 0) out.push_back(',');
        out.append("{\"key\":");
        json::append_string(out, key_names_[keys[k]]);
        out.append(",\"blocks\":[");
        for (std::size_t i = 0; i < held.blocks.size(); ++i) {
            const Block& b = held.blocks[i];
            if (i != 0) out.push_back(',');
            out.append("{\"first\":");
            json::append_int(out, b.first_ts);
            out.append(",\"last\":");
            json::append_int(out, b.last_ts);
            out.append(",\"count\":");
            json::append_int(out, b.count);
            out.append(",\"min\":");
            json::append_number(out, b.min);
            out.append(",\"max\":");
            json::append_number(out, b.max);
            out.append(",\"sum\":[");
            const std::vector<double> parts = b.sum.to_parts();
            for (std::size_t p = 0; p < parts.size(); ++p) {
                if (p != 0) out.push_back(',');
                json::append_number(out, parts[p]);
            }
            out.append("]}");
        }
        out.append("],\"events\":[");
        for (std::size_t i = 0; i < held.events.size(); ++i) {
            if (i != 0) out.push_back(',');
            out.push_back('[');
            json::append_int(out, held.events[i].ts);
            out.push_back(',');
            json::append_string(out, held.events[i].id);
            out.push_back(',');
            json::append_number(out, held.events[i].value);
            out.push_back(']');
        }
        out.append("],\"final\":[");
        for (std::size_t i = 0; i < held.final_starts.size(); ++i) {
            if (i != 0) out.push_back(',');
            json::append_int(out, held.final_starts[i]);
        }
        out.append("]}");
    }
    out.append("]}}\n");
}

// ---- Stream ----

Stream::Stream(Config config, EngineKind kind) {
    if (config.gap <= 0 || config.gap > max_abs_ts)
        throw std::invalid_argument("tideweave: gap must be an integer in (0, 2^60]");
    if (config.lateness < 0 || config.lateness > max_abs_ts)
        throw std::invalid_argument("tideweave: lateness must be an integer in [0, 2^60]");
    impl_ = std::make_unique<Impl>(config, kind);
}

Stream::Stream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Stream::~Stream() = default;
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;

Stream::Outcome Stream::process_line(std::string_view line, std::int64_t line_no, std::string& out) {
    return impl_->process_line(line, line_no, out);
}

std::int64_t Stream::version() const { return impl_->version(); }
std::int64_t Stream::line() const { return impl_->line(); }
std::size_t Stream::active_events() const { return impl_->engine().active_events(); }
std::size_t Stream::row_count() const { return impl_->engine().row_count(); }
std::size_t Stream::key_count() const { return impl_->key_count(); }
const Config& Stream::config() const { return impl_->config(); }

}  // namespace sluice::tideweave
