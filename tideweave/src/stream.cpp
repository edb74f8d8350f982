// The NDJSON codec over the typed Engine: strict parsing of one line
// (simdjson DOM) into typed commands, and the typed results written as the
// contract's JSON (docs/tideweave.md, "Input lines" and "Output lines"). The
// transaction rules live in the Engine (engine.cpp); this file only words
// what the JSON itself gets wrong.
#include "sluice/tideweave/stream.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "json_out.hpp"
#include "sluice/tideweave/failure.hpp"
#include "messages.hpp"
#include "stream_impl.hpp"

namespace sluice::tideweave {
namespace {

using messages::quoted;

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

void append_row(std::string& out, const Row& r) {
    out.append("{\"key\":");
    json::append_string(out, r.key);
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

void append_rows(std::string& out, std::span<const Row> rows) {
    out.push_back('[');
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i != 0) out.push_back(',');
        append_row(out, rows[i]);
    }
    out.push_back(']');
}

void append_changes(std::string& out, const Changes& c) {
    out.append("{\"version\":");
    json::append_int(out, c.version);
    out.append(",\"before\":");
    append_rows(out, c.before);
    out.append(",\"after\":");
    append_rows(out, c.after);
    out.append(",\"late\":[");
    for (std::size_t i = 0; i < c.late.size(); ++i) {
        const LateItem& m = c.late[i];
        if (i != 0) out.push_back(',');
        out.append("{\"index\":");
        json::append_int(out, static_cast<std::int64_t>(m.index));
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

Error line_error(std::string message) { return Error{ErrorKind::shape, std::nullopt, std::move(message)}; }

}  // namespace

Stream::Outcome Stream::Impl::process_line(std::string_view line, std::int64_t line_no, std::string& out) {
    line_ = line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return Outcome::empty;
    const std::size_t mark = out.size();
    // Parsing stops at the first problem by throwing an Error, caught below:
    // the early exit never leaves this function.
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
        if (err == simdjson::NUMBER_ERROR) throw line_error("invalid JSON: a number is malformed");
        if (err) throw line_error(std::string("invalid JSON: ") + simdjson::error_message(err));
        simdjson::dom::object object;
        if (root.get_object().get(object))
            throw line_error("expected a JSON object with one member: tx, watermark, forget, snapshot or checkpoint");
        std::string_view command;
        element value;
        for (auto field : object) {
            const std::string_view name = field.key;
            if (name != "tx" && name != "watermark" && name != "forget" && name != "snapshot" &&
                name != "checkpoint")
                throw line_error("unknown member " + quoted(name) +
                                 " (expected one of tx, watermark, forget, snapshot, checkpoint)");
            if (name == command) throw line_error("duplicate member " + quoted(name));
            if (!command.empty())
                throw line_error("more than one command in a line: " + quoted(command) + " and " + quoted(name));
            command = name;
            value = field.value;
        }
        if (command.empty())
            throw line_error("expected a JSON object with one member: tx, watermark, forget, snapshot or checkpoint");
        if (command == "tx") {
            run_tx(value, out);
        } else if (command == "watermark") {
            run_watermark(value, out);
        } else {
            if (!value.is_bool() || !bool(value.get_bool())) throw line_error(std::string(command) + ": expected true");
            if (command == "forget") {
                run_forget(out);
            } else if (command == "snapshot") {
                run_snapshot(out);
            } else {
                run_checkpoint(out);
            }
        }
        return Outcome::ok;
    } catch (const Error& e) {
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

Mutation Stream::Impl::parse_mutation(const element& m, std::size_t index) const {
    // Paths for messages are built only when something fails.
    const auto where = [index] { return "tx[" + std::to_string(index) + "]"; };
    auto fail = [&](std::string message) { throw Error{ErrorKind::shape, index, std::move(message)}; };
    simdjson::dom::object wrapper;
    if (m.get_object().get(wrapper) || wrapper.size() != 1)
        fail(where() + ": expected an object with one member, \"insert\" or \"retract\"");
    const auto field = *wrapper.begin();
    Mutation mut;
    if (field.key == "insert") {
        mut.kind = Mutation::Kind::insert;
    } else if (field.key == "retract") {
        mut.kind = Mutation::Kind::retract;
    } else {
        fail(where() + ": unknown member " + quoted(field.key) + " (expected \"insert\" or \"retract\")");
    }
    const bool is_insert = mut.kind == Mutation::Kind::insert;
    const auto path = [&] { return where() + "." + std::string(field.key); };
    simdjson::dom::object body;
    if (field.value.get_object().get(body)) fail(path() + ": expected an object");
    bool seen_id = false, seen_key = false, seen_ts = false, seen_value = false;
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
            seen = &seen_value;
        } else {
            fail(path() + ": unknown member " + quoted(name) + " (expected id, key, ts" +
                 (is_insert ? " and value)" : ", optionally value)"));
        }
        if (*seen) fail(path() + ": duplicate member " + quoted(name));
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
    if (is_insert && !seen_value) fail(path() + ": missing member \"value\"");
    mut.check_value = !is_insert && seen_value;
    return mut;
}

void Stream::Impl::run_tx(const element& value, std::string& out) {
    simdjson::dom::array list;
    if (value.get_array().get(list)) throw line_error("tx: expected an array of mutations");
    mutations_.clear();
    // Mutations are parsed up to the first malformed one; the engine checks
    // and applies those before it, and their identity errors come first
    // (docs/tideweave.md, "Order of checks").
    std::optional<Error> shape_error;
    for (element m : list) {
        try {
            mutations_.push_back(parse_mutation(m, mutations_.size()));
        } catch (Error& e) {
            shape_error = std::move(e);
            break;
        }
    }
    auto result = detail::EngineAccess::impl(engine_).apply(mutations_, shape_error);
    if (!result) throw result.error();
    append_changes(out, *result);
}

void Stream::Impl::run_watermark(const element& value, std::string& out) {
    std::int64_t w = 0;
    std::string problem;
    if (!strict::read_ts(value, w, problem)) throw line_error("watermark: " + problem);
    auto result = engine_.advance_watermark(w);
    if (!result) throw result.error();
    out.append("{\"version\":");
    json::append_int(out, result->version);
    out.append(",\"watermark\":");
    json::append_int(out, result->watermark);
    out.append(",\"finalized\":");
    append_rows(out, result->rows);
    out.append("}\n");
}

void Stream::Impl::run_forget(std::string& out) {
    const Forgotten f = engine_.forget();
    out.append("{\"version\":");
    json::append_int(out, f.version);
    out.append(",\"forgotten\":");
    json::append_int(out, static_cast<std::int64_t>(f.rows_dropped));
    out.append(",\"folded\":");
    json::append_int(out, static_cast<std::int64_t>(f.events_folded));
    out.append("}\n");
}

void Stream::Impl::run_snapshot(std::string& out) {
    const Snapshot s = engine_.snapshot();
    out.append("{\"version\":");
    json::append_int(out, s.version);
    out.append(",\"watermark\":");
    if (s.watermark) {
        json::append_int(out, *s.watermark);
    } else {
        out.append("null");
    }
    out.append(",\"rows\":");
    append_rows(out, s.rows);
    out.append("}\n");
}

void Stream::Impl::run_checkpoint(std::string& out) {
    // No source position: the NDJSON stream's position is its line number
    // (docs/tideweave.md, "Checkpoints and the source position").
    Checkpoint c = engine_.checkpoint();
    c.line = line_;
    out.append("{\"version\":");
    json::append_int(out, c.version);
    out.append(",\"checkpoint\":");
    append_json(c, out);
    out.append("}\n");
}

// ---- Stream ----

Stream::Stream(Config config, EngineKind kind) : impl_(std::make_unique<Impl>(Engine(config, kind))) {}

Stream::Stream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Stream::~Stream() = default;
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;

Stream Stream::restore(std::string_view checkpoint_json, EngineKind kind) {
    auto checkpoint = decode_json(checkpoint_json);
    if (!checkpoint) throw Failure(checkpoint.error());
    auto engine = Engine::restore(*checkpoint, kind);
    if (!engine) throw Failure(engine.error());
    auto impl = std::make_unique<Impl>(std::move(*engine));
    impl->set_line(checkpoint->line);
    return Stream(std::move(impl));
}

Stream::Outcome Stream::process_line(std::string_view line, std::int64_t line_no, std::string& out) {
    return impl_->process_line(line, line_no, out);
}

std::int64_t Stream::version() const { return impl_->engine().version(); }
std::int64_t Stream::line() const { return impl_->line(); }
std::size_t Stream::active_events() const { return impl_->engine().active_events(); }
std::size_t Stream::row_count() const { return impl_->engine().row_count(); }
std::size_t Stream::key_count() const { return impl_->engine().key_count(); }
const Config& Stream::config() const { return impl_->engine().config(); }
const Engine& Stream::engine() const { return impl_->engine(); }

}  // namespace sluice::tideweave
