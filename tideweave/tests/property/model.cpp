#include "model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "exact_sum.hpp"

namespace sluice::tideweave::model {

std::optional<std::int64_t> Model::horizon() const {
    if (!watermark_) return std::nullopt;
    return *watermark_ - config_.lateness;
}

bool Model::is_late(std::int64_t ts) const {
    const auto h = horizon();
    return h && ts < *h;
}

std::vector<Row> sessions_of(const std::vector<Event>& events, std::int64_t gap) {
    std::vector<const Event*> sorted;
    sorted.reserve(events.size());
    for (const auto& e : events) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](const Event* a, const Event* b) {
        if (a->key != b->key) return a->key < b->key;
        return a->ts < b->ts;
    });
    std::vector<Row> rows;
    std::size_t i = 0;
    while (i < sorted.size()) {
        // One maximal run: same key, consecutive ts at most `gap` apart.
        std::size_t j = i + 1;
        while (j < sorted.size() && sorted[j]->key == sorted[i]->key &&
               sorted[j]->ts - sorted[j - 1]->ts <= gap) {
            ++j;
        }
        Row row;
        row.key = sorted[i]->key;
        row.start = sorted[i]->ts;
        row.end = sorted[j - 1]->ts + gap;
        row.count = static_cast<std::int64_t>(j - i);
        ExactSum sum;
        row.min = sorted[i]->value;
        row.max = sorted[i]->value;
        for (std::size_t k = i; k < j; ++k) {
            sum.add(sorted[k]->value);
            row.min = std::min(row.min, sorted[k]->value);
            row.max = std::max(row.max, sorted[k]->value);
        }
        row.sum = sum.rounded();
        rows.push_back(std::move(row));
        i = j;
    }
    return rows;
}

std::vector<Row> Model::rows() const {
    auto rows = sessions_of(events_, config_.gap);
    const auto h = horizon();
    for (auto& r : rows) r.final = h && r.end < *h;
    return rows;
}

namespace {

std::string format_int(std::int64_t v) { return std::to_string(v); }

std::string format_rows(const std::vector<Row>& rows) {
    std::string out = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i) out += ',';
        out += format_row(rows[i]);
    }
    out += ']';
    return out;
}

Expected exact(std::string bytes) {
    Expected e;
    e.kind = Expected::Kind::exact;
    e.bytes = std::move(bytes);
    e.bytes += '\n';
    return e;
}

Expected error(std::int64_t line_no, std::optional<std::size_t> index) {
    Expected e;
    e.kind = Expected::Kind::error;
    e.line = line_no;
    e.index = index;
    return e;
}

// Rows present in `a` and not in `b`, compared field by field.
std::vector<Row> rows_minus(const std::vector<Row>& a, const std::vector<Row>& b) {
    std::vector<Row> out;
    for (const auto& r : a)
        if (std::find(b.begin(), b.end(), r) == b.end()) out.push_back(r);
    return out;
}

}  // namespace

std::string format_number(double v) {
    if (!std::isfinite(v)) throw std::invalid_argument("format_number: non-finite value");
    constexpr double two_53 = 9007199254740992.0;
    // Integral values up to 2^53 print as integers. Beyond 2^53 every double
    // is integral, and the shortest round-trip digits are written in
    // scientific form, so that no reader takes them for an out-of-range
    // integer (docs/tideweave.md). Everything else: shortest round trip.
    if (std::fabs(v) <= two_53 && std::trunc(v) == v) return format_int(static_cast<std::int64_t>(v));
    char buf[64];
    const auto res = std::fabs(v) > two_53 ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                                           : std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string format_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (u < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", u);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

std::string format_row(const Row& r) {
    return "{\"key\":" + format_string(r.key) + ",\"start\":" + format_int(r.start) +
           ",\"end\":" + format_int(r.end) + ",\"count\":" + format_int(r.count) +
           ",\"sum\":" + format_number(r.sum) + ",\"min\":" + format_number(r.min) +
           ",\"max\":" + format_number(r.max) + ",\"final\":" + (r.final ? "true" : "false") + "}";
}

Expected Model::apply(const Line& line, std::int64_t line_no) {
    switch (line.kind) {
        case Line::Kind::empty: return Expected{};
        case Line::Kind::tx: return apply_tx(line.mutations, line_no);
        case Line::Kind::watermark: return apply_watermark(line.watermark, line_no);
        case Line::Kind::forget: return apply_forget();
        case Line::Kind::snapshot: return apply_snapshot();
        case Line::Kind::checkpoint: {
            Expected e;
            e.kind = Expected::Kind::checkpoint;
            e.version = version_;
            return e;
        }
        case Line::Kind::bad: return error(line_no, std::nullopt);
    }
    throw std::logic_error("unknown line kind");
}

Expected Model::apply_tx(const std::vector<Mutation>& mutations, std::int64_t line_no) {
    std::vector<Event> next = events_;
    struct Late {
        std::size_t index;
        const Event* event;
    };
    std::vector<Late> late;
    // An active event is unsealed when its ts is at or past the horizon; ids
    // are unique among unsealed events only.
    auto find_unsealed = [&](const std::string& id) {
        return std::find_if(next.begin(), next.end(),
                            [&](const Event& e) { return e.id == id && !is_late(e.ts); });
    };
    for (std::size_t i = 0; i < mutations.size(); ++i) {
        const Mutation& m = mutations[i];
        if (m.shape_error) return error(line_no, i);
        if (is_late(m.event.ts)) {
            late.push_back({i, &m.event});
            continue;
        }
        const auto found = find_unsealed(m.event.id);
        if (m.kind == Mutation::Kind::insert) {
            if (found != next.end()) return error(line_no, i);
            next.push_back(m.event);
        } else {
            if (found == next.end() || found->key != m.event.key || found->ts != m.event.ts ||
                (m.value_given && found->value != m.event.value)) {
                return error(line_no, i);
            }
            next.erase(found);
        }
    }
    const auto before_rows = rows();
    std::swap(events_, next);
    const auto after_rows = rows();
    // docs/tideweave.md: a transaction that would leave a session whose exact
    // sum rounds beyond the double range is rejected as a whole, without an
    // index (JSON cannot print infinity).
    for (const auto& r : after_rows) {
        if (std::isinf(r.sum)) {
            std::swap(events_, next);
            return error(line_no, std::nullopt);
        }
    }
    ++version_;
    std::string out = "{\"version\":" + format_int(version_) +
                      ",\"before\":" + format_rows(rows_minus(before_rows, after_rows)) +
                      ",\"after\":" + format_rows(rows_minus(after_rows, before_rows)) + ",\"late\":[";
    for (std::size_t k = 0; k < late.size(); ++k) {
        if (k) out += ',';
        out += "{\"index\":" + format_int(static_cast<std::int64_t>(late[k].index)) +
               ",\"id\":" + format_string(late[k].event->id) +
               ",\"key\":" + format_string(late[k].event->key) +
               ",\"ts\":" + format_int(late[k].event->ts) + "}";
    }
    out += "]}";
    return exact(std::move(out));
}

Expected Model::apply_watermark(std::int64_t w, std::int64_t line_no) {
    if (watermark_ && w < *watermark_) return error(line_no, std::nullopt);
    const auto before = rows();
    watermark_ = w;
    const auto after = rows();
    std::vector<Row> finalized;
    // Sessions do not change on a watermark; only their finality does.
    for (std::size_t i = 0; i < after.size(); ++i)
        if (after[i].final && !before[i].final) finalized.push_back(after[i]);
    return exact("{\"version\":" + format_int(version_) + ",\"watermark\":" + format_int(w) +
                 ",\"finalized\":" + format_rows(finalized) + "}");
}

Expected Model::apply_forget() {
    const auto h = horizon();
    std::int64_t forgotten = 0;
    if (h) {
        // Drop every event of every final session; a final session's events
        // are all sealed and more than `gap` away from every other event.
        std::vector<Event> kept;
        const auto current = rows();
        for (const auto& r : current) forgotten += r.final ? 1 : 0;
        for (const auto& e : events_) {
            const bool in_final = std::any_of(current.begin(), current.end(), [&](const Row& r) {
                return r.final && r.key == e.key && r.start <= e.ts && e.ts + config_.gap <= r.end;
            });
            if (!in_final) kept.push_back(e);
        }
        events_ = std::move(kept);
    }
    // "more fields may follow": the model fixes only the first two.
    Expected e;
    e.kind = Expected::Kind::prefix;
    e.bytes = "{\"version\":" + format_int(version_) + ",\"forgotten\":" + format_int(forgotten);
    return e;
}

Expected Model::apply_snapshot() const {
    return exact("{\"version\":" + format_int(version_) + ",\"watermark\":" +
                 (watermark_ ? format_int(*watermark_) : std::string("null")) +
                 ",\"rows\":" + format_rows(rows()) + "}");
}

}  // namespace sluice::tideweave::model
