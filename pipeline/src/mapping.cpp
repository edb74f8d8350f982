// The mapping's checks, one per contract range; every reason names the
// column option and the column, so a NAME_rejected row explains itself.
#include "sluice/pipeline/mapping.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace sluice::pipeline {

namespace {

constexpr std::size_t arena_chunk = 64 * 1024;

std::string column_label(std::string_view role, std::string_view column) {
    std::string s(role);
    s += " column \"";
    s += column;
    s += "\"";
    return s;
}

std::string quoted(std::string_view s) {
    std::string q = "\"";
    q.append(s.substr(0, 64));
    if (s.size() > 64) q += "...";
    q += "\"";
    return q;
}

// The text of a cell as an id or key: integers and floats in their shortest
// decimal form, text as it is. nullopt for NULL.
std::optional<std::string_view> text_form(const SourceValue& v, StringArena& arena) {
    char buf[64];
    switch (v.kind) {
        case SourceValue::Kind::null: return std::nullopt;
        case SourceValue::Kind::text: return v.text;
        case SourceValue::Kind::signed_integer: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.i);
            return arena.store(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
        }
        case SourceValue::Kind::unsigned_integer: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.u);
            return arena.store(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
        }
        case SourceValue::Kind::floating: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.d);
            return arena.store(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
        }
    }
    return std::nullopt;
}

bool is_integer_literal(std::string_view s) {
    std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

}  // namespace

std::string_view StringArena::store(std::string_view s) {
    if (s.empty()) return {};
    if (chunks_.empty() || capacity_ - used_ < s.size()) {
        const std::size_t cap = std::max(arena_chunk, s.size());
        chunks_.push_back(std::make_unique<char[]>(cap));
        capacity_ = cap;
        used_ = 0;
        if (chunks_.size() == 1) first_capacity_ = cap;
    }
    char* p = chunks_.back().get() + used_;
    std::memcpy(p, s.data(), s.size());
    used_ += s.size();
    return {p, s.size()};
}

void StringArena::clear() {
    if (chunks_.size() > 1) chunks_.resize(1);
    capacity_ = chunks_.empty() ? 0 : first_capacity_;
    used_ = 0;
}

bool valid_utf8(std::string_view s) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int n = 0;
        unsigned cp = 0;
        if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07;
        else return false;
        if (end - p <= n) return false;
        for (int k = 1; k <= n; ++k) {
            if ((p[k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[k] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += n + 1;
    }
    return true;
}

// The text text_form gives, without an arena: a rejected row's cells (a
// refused 50,000-row transaction had each cell take a 64 KiB arena block).
std::optional<std::string> text_of(const SourceValue& v) {
    char buf[64];
    auto chars = [&](auto value) {
        auto r = std::to_chars(buf, buf + sizeof buf, value);
        return std::string(buf, static_cast<std::size_t>(r.ptr - buf));
    };
    switch (v.kind) {
        case SourceValue::Kind::null: return std::nullopt;
        case SourceValue::Kind::text: return std::string(v.text);
        case SourceValue::Kind::signed_integer: return chars(v.i);
        case SourceValue::Kind::unsigned_integer: return chars(v.u);
        case SourceValue::Kind::floating: return chars(v.d);
    }
    return std::nullopt;
}

Mapped map_event(const ColumnNames& names, const SourceValue& id, const SourceValue& key, const SourceValue& ts,
                 const SourceValue& value, StringArena& arena) {
    Event e;

    auto id_text = text_form(id, arena);
    if (!id_text) return Rejection{column_label("id", names.id) + ": NULL"};
    if (id_text->empty()) return Rejection{column_label("id", names.id) + ": empty (an id must be non-empty)"};
    if (id_text->size() > max_id_bytes)
        return Rejection{column_label("id", names.id) + ": " + std::to_string(id_text->size()) +
                         " bytes (at most 256)"};
    if (!valid_utf8(*id_text)) return Rejection{column_label("id", names.id) + ": not valid UTF-8"};
    e.id = *id_text;

    auto key_text = text_form(key, arena);
    if (!key_text) return Rejection{column_label("key", names.key) + ": NULL"};
    if (key_text->size() > max_key_bytes)
        return Rejection{column_label("key", names.key) + ": " + std::to_string(key_text->size()) +
                         " bytes (at most 256)"};
    if (!valid_utf8(*key_text)) return Rejection{column_label("key", names.key) + ": not valid UTF-8"};
    e.key = *key_text;

    const std::string ts_label = column_label("ts", names.ts);
    switch (ts.kind) {
        case SourceValue::Kind::null: return Rejection{ts_label + ": NULL"};
        case SourceValue::Kind::signed_integer: e.ts = ts.i; break;
        case SourceValue::Kind::unsigned_integer:
            if (ts.u > static_cast<std::uint64_t>(max_abs_ts))
                return Rejection{ts_label + ": " + std::to_string(ts.u) + " is outside [-2^60, 2^60]"};
            e.ts = static_cast<std::int64_t>(ts.u);
            break;
        case SourceValue::Kind::floating: {
            char buf[64];
            auto r = std::to_chars(buf, buf + sizeof buf, ts.d);
            return Rejection{ts_label + ": " + std::string(buf, r.ptr) + " is not an integer"};
        }
        case SourceValue::Kind::text: {
            std::int64_t v = 0;
            auto r = std::from_chars(ts.text.data(), ts.text.data() + ts.text.size(), v);
            if (r.ec == std::errc::result_out_of_range)
                return Rejection{ts_label + ": " + quoted(ts.text) + " is outside [-2^60, 2^60]"};
            if (r.ec != std::errc{} || r.ptr != ts.text.data() + ts.text.size() || ts.text.empty())
                return Rejection{ts_label + ": " + quoted(ts.text) + " is not an integer"};
            e.ts = v;
            break;
        }
    }
    if (e.ts < -max_abs_ts || e.ts > max_abs_ts)
        return Rejection{ts_label + ": " + std::to_string(e.ts) + " is outside [-2^60, 2^60]"};

    const std::string value_label = column_label("value", names.value);
    switch (value.kind) {
        case SourceValue::Kind::null: return Rejection{value_label + ": NULL"};
        case SourceValue::Kind::signed_integer:
            if (value.i > static_cast<std::int64_t>(max_abs_integer_value) ||
                value.i < -static_cast<std::int64_t>(max_abs_integer_value))
                return Rejection{value_label + ": integer " + std::to_string(value.i) + " beyond 2^53 in magnitude"};
            e.value = static_cast<double>(value.i);
            break;
        case SourceValue::Kind::unsigned_integer:
            if (value.u > static_cast<std::uint64_t>(max_abs_integer_value))
                return Rejection{value_label + ": integer " + std::to_string(value.u) + " beyond 2^53 in magnitude"};
            e.value = static_cast<double>(value.u);
            break;
        case SourceValue::Kind::floating:
            if (!std::isfinite(value.d)) return Rejection{value_label + ": not a finite number"};
            e.value = value.d;
            break;
        case SourceValue::Kind::text: {
            const std::string_view t = value.text;
            if (is_integer_literal(t)) {
                std::int64_t v = 0;
                auto r = std::from_chars(t.data(), t.data() + t.size(), v);
                if (r.ec != std::errc{} || v > static_cast<std::int64_t>(max_abs_integer_value) ||
                    v < -static_cast<std::int64_t>(max_abs_integer_value))
                    return Rejection{value_label + ": integer " + quoted(t) + " beyond 2^53 in magnitude"};
                e.value = static_cast<double>(v);
                break;
            }
            double d = 0;
            auto r = std::from_chars(t.data(), t.data() + t.size(), d);
            if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc{} && !std::isfinite(d)))
                return Rejection{value_label + ": " + quoted(t) + " is beyond the double range"};
            if (r.ec != std::errc{} || r.ptr != t.data() + t.size() || t.empty())
                return Rejection{value_label + ": " + quoted(t) + " is not a number"};
            e.value = d == 0 ? 0.0 : d;
            break;
        }
    }
    return e;
}

}  // namespace sluice::pipeline
