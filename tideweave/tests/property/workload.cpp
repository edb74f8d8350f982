#include "workload.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace sluice::tideweave::model {

namespace {

constexpr std::int64_t kTwo60 = std::int64_t{1} << 60;
constexpr double kTwo53 = 9007199254740992.0;

std::string chars(double v, std::chars_format fmt) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, fmt);
    return std::string(buf, res.ptr);
}

std::string shortest(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

}  // namespace

WorkloadGenerator::WorkloadGenerator(std::uint64_t seed) : rng_(seed) {
    static constexpr std::int64_t gaps[] = {1, 2, 3, 5, 10, 10, 10, kTwo60};
    static constexpr std::int64_t latenesses[] = {0, 1, 5, 20, 20, 20, kTwo60};
    config_.gap = gaps[below(std::size(gaps))];
    config_.lateness = latenesses[below(std::size(latenesses))];
    extremes_ = chance(5);
    base_ = extremes_ ? (chance(50) ? kTwo60 - 200 : -kTwo60) : between(-50, 50);
}

std::int64_t WorkloadGenerator::between(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(below(span));
}

std::string WorkloadGenerator::sp() {
    if (!chance(10)) return "";
    static const char* const spaces[] = {" ", "  ", "\t", " \t "};
    return spaces[below(std::size(spaces))];
}

std::string WorkloadGenerator::pick_key() {
    // Mostly a few plain keys so sessions meet; sometimes keys that need
    // escaping or sort by their UTF-8 bytes.
    static const char* const plain[] = {"a", "b", "c"};
    static const char* const odd[] = {"", "k\"q", "back\\slash", "tab\there", "\xC3\xA9t\xC3\xA9",
                                      "ctl\x01", "/slash", "\xF0\x9F\x8C\x8A"};
    if (chance(90)) return plain[below(std::size(plain))];
    return odd[below(std::size(odd))];
}

std::int64_t WorkloadGenerator::pick_ts(const Model& model) {
    const auto h = model.horizon();
    std::int64_t lo = base_ - 10;
    std::int64_t hi = base_ + 60;
    if (h) {
        // Around the horizon, so that some mutations are late and some
        // sessions straddle it.
        lo = std::max(*h - 15, -kTwo60);
        hi = *h + 60;
    }
    hi = std::clamp(hi, -kTwo60, kTwo60);
    lo = std::clamp(lo, -kTwo60, hi);
    if (extremes_ && chance(20)) return chance(50) ? kTwo60 : -kTwo60;
    return between(lo, hi);
}

double WorkloadGenerator::pick_value() {
    static constexpr double specials[] = {
        1e16, -1e16, 1.0, -1.0, 0.1, 0.2, 0.3, -0.1, 2.5,
        kTwo53, -kTwo53, kTwo53 - 1, 1e15, 123456789012.0,
        1e300, -1e300, 1.5e-300, 5e-324, -5e-324, 2.2250738585072014e-308,
        1e21, 1e22, 1e-7, 0.000001, 1.7976931348623157e300,
        // Two of these in one session overflow the double range: the
        // transaction is then rejected (docs/tideweave.md).
        1.7976931348623157e308, -1.7976931348623157e308, 1e308};
    switch (below(4)) {
        case 0: {
            const auto v = between(-5, 5);
            return static_cast<double>(v);  // never -0.0: the integer 0 converts to +0.0
        }
        case 1: return specials[below(std::size(specials))];
        case 2: return static_cast<double>(between(-100000, 100000)) / 1000.0;
        default: {
            // Any finite double below 2^991 in magnitude: random bits with the
            // exponent field capped (no NaN, no infinity, no -0.0).
            for (;;) {
                std::uint64_t bits = rng_();
                const std::uint64_t exponent = (bits >> 52) & 0x7FF;
                if (exponent > 990 + 1023) continue;
                const double v = std::bit_cast<double>(bits);
                if (v == 0.0) continue;
                return v;
            }
        }
    }
}

std::string WorkloadGenerator::fresh_id() { return "e" + std::to_string(id_counter_++); }

std::string WorkloadGenerator::string_text(const std::string& s) {
    // Escape what JSON requires, and sometimes more than it requires.
    const bool extra_escapes = chance(10);
    std::string out = "\"";
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04X", u);
            out += buf;
        } else if (extra_escapes && u < 0x80 && chance(50)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else if (extra_escapes && c == '/') {
            out += "\\/";
        } else {
            out += c;
        }
    }
    out += '"';
    return out;
}

std::string WorkloadGenerator::number_text(double v) {
    const bool integral = std::trunc(v) == v;
    if (v == 0.0 && chance(20)) return chance(50) ? "-0" : "-0.0";  // read as 0 (docs/tideweave.md)
    if (integral && std::fabs(v) <= kTwo53) {
        // An integer literal (held exactly), or an equivalent float spelling.
        switch (below(4)) {
            case 0:
            case 1: return std::to_string(static_cast<std::int64_t>(v));
            case 2: return std::to_string(static_cast<std::int64_t>(v)) + ".0";
            default: return chars(v, std::chars_format::scientific);
        }
    }
    if (integral) {
        // Beyond 2^53 an integer literal is out of range: spell it as a float.
        std::string s = chars(v, std::chars_format::scientific);
        if (chance(30)) std::replace(s.begin(), s.end(), 'e', 'E');
        return s;
    }
    switch (below(4)) {
        case 0: return shortest(v);
        case 1: {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", v);
            return buf;
        }
        case 2: {
            std::string s = chars(v, std::chars_format::scientific);
            std::replace(s.begin(), s.end(), 'e', 'E');
            return s;
        }
        default: return chars(v, std::chars_format::scientific);
    }
}

std::string WorkloadGenerator::event_text(const Event& e, bool with_value) {
    std::vector<std::string> members = {
        "\"id\"" + sp() + ":" + sp() + string_text(e.id),
        "\"key\"" + sp() + ":" + sp() + string_text(e.key),
        "\"ts\"" + sp() + ":" + sp() + std::to_string(e.ts),
    };
    if (with_value) members.push_back("\"value\"" + sp() + ":" + sp() + number_text(e.value));
    if (chance(30)) std::shuffle(members.begin(), members.end(), rng_);
    std::string out = "{" + sp();
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i) out += sp() + "," + sp();
        out += members[i];
    }
    return out + sp() + "}";
}

std::string WorkloadGenerator::mutation_text(const Mutation& m) {
    const bool with_value = m.kind == Mutation::Kind::insert || m.value_given;
    const char* op = m.kind == Mutation::Kind::insert ? "\"insert\"" : "\"retract\"";
    return "{" + sp() + op + sp() + ":" + sp() + event_text(m.event, with_value) + sp() + "}";
}

std::string WorkloadGenerator::broken_mutation_text(const Mutation& m) {
    const bool insert = m.kind == Mutation::Kind::insert;
    const char* op = insert ? "\"insert\":" : "\"retract\":";
    const std::string id = "\"id\":" + string_text(m.event.id);
    const std::string key = "\"key\":" + string_text(m.event.key);
    const std::string ts = "\"ts\":" + std::to_string(m.event.ts);
    const std::string value = "\"value\":" + number_text(m.event.value);
    auto wrap = [&](const std::string& members) { return std::string("{") + op + "{" + members + "}}"; };
    auto all_but = [&](int skip) {
        std::vector<std::string> parts = {id, key, ts, value};
        std::string out;
        for (int i = 0; i < 4; ++i) {
            if (i == skip) continue;
            if (!out.empty()) out += ',';
            out += parts[static_cast<std::size_t>(i)];
        }
        return out;
    };
    switch (below(22)) {
        case 0: {
            static const char* const not_objects[] = {"5", "null", "[]", "\"insert\"", "true"};
            return not_objects[below(std::size(not_objects))];
        }
        case 1: return "{}";
        case 2: return "{\"insert\":{" + all_but(-1) + "},\"retract\":{" + id + "," + key + "," + ts + "}}";
        case 3: return "{\"upsert\":{" + all_but(-1) + "}}";
        case 4: return std::string("{") + op + "{" + all_but(-1) + "}," + op + "{" + all_but(-1) + "}}";
        case 5: return wrap(all_but(static_cast<int>(below(insert ? 4 : 3))));  // a required member missing
        case 6: return wrap(all_but(-1) + ",\"extra\":1");
        case 7: return wrap(all_but(-1) + ",\"Value\":1");
        case 8: return wrap(all_but(-1) + "," + ts);  // duplicate member
        case 9: return wrap("\"id\":\"\"," + all_but(0));
        case 10: return wrap("\"id\":\"" + std::string(257, 'x') + "\"," + all_but(0));
        case 11: return wrap("\"key\":\"" + std::string(257, 'k') + "\"," + all_but(1));
        case 12: {
            static const char* const ids[] = {"5", "null", "true", "[\"e1\"]", "{}"};
            return wrap(std::string("\"id\":") + ids[below(std::size(ids))] + "," + all_but(0));
        }
        case 13: {
            static const char* const keys[] = {"5", "null", "false", "[]"};
            return wrap(std::string("\"key\":") + keys[below(std::size(keys))] + "," + all_but(1));
        }
        case 14: {
            static const char* const tss[] = {"\"5\"", "5.0", "5e0", "5.5", "1152921504606846977",
                                              "-1152921504606846977", "9223372036854775808",
                                              "-9223372036854775809", "null", "1E2", "-0.0"};
            return wrap(std::string("\"ts\":") + tss[below(std::size(tss))] + "," + all_but(2));
        }
        case 15: {
            static const char* const values[] = {"\"1\"", "null", "true", "9007199254740993",
                                                 "-9007199254740993", "18446744073709551616",
                                                 "[]", "{}", "100000000000000000000"};
            return wrap(std::string("\"value\":") + values[below(std::size(values))] + "," + all_but(3));
        }
        case 16: return std::string("{") + op + "5}";
        case 17: return std::string("{") + op + "null}";
        case 18: return std::string("{") + op + "[]}";
        case 19: return "{\"insert\":{" + all_but(-1) + "},\"extra\":true}";
        case 20: return wrap("\"id\":\"" + std::string(300, 'y') + "\"," + all_but(0));
        default: return "{\"Insert\":{" + all_but(-1) + "}}";
    }
}

GeneratedLine WorkloadGenerator::make_tx(const Model& model) {
    GeneratedLine g;
    g.line.kind = Line::Kind::tx;
    const auto& events = model.events();
    auto random_event = [&]() -> const Event* {
        return events.empty() ? nullptr : &events[below(events.size())];
    };
    const std::size_t count = chance(5) ? 0 : 1 + below(chance(20) ? 12 : 5);
    std::vector<std::string> texts;
    while (g.line.mutations.size() < count) {
        Mutation m;
        const auto roll = below(100);
        const Event* target = random_event();
        if (roll < 45 || target == nullptr) {
            // A fresh insert (late when its ts falls behind the horizon).
            m.kind = Mutation::Kind::insert;
            m.event = {fresh_id(), pick_key(), pick_ts(model), pick_value()};
            // Sometimes an id of exactly the longest allowed length.
            if (chance(1)) m.event.id = std::string(256 - m.event.id.size(), 'i') + m.event.id;
        } else if (roll < 65) {
            // Retract an existing event (late when it is sealed).
            m.kind = Mutation::Kind::retract;
            m.event = *target;
            m.value_given = chance(40);
        } else if (roll < 78) {
            // An update: retract, then insert the same id with new fields.
            Mutation r;
            r.kind = Mutation::Kind::retract;
            r.event = *target;
            r.value_given = chance(20);
            texts.push_back(mutation_text(r));
            g.line.mutations.push_back(r);
            m.kind = Mutation::Kind::insert;
            m.event = {target->id, chance(80) ? target->key : pick_key(),
                       chance(50) ? target->ts + between(-3, 3) : pick_ts(model), pick_value()};
            m.event.ts = std::clamp(m.event.ts, -kTwo60, kTwo60);
        } else if (roll < 84) {
            // A retraction that does not match: wrong key, ts, value or id.
            m.kind = Mutation::Kind::retract;
            m.event = *target;
            switch (below(4)) {
                case 0: m.event.key += "x"; break;
                case 1: m.event.ts = std::min(m.event.ts + 1, kTwo60); break;
                case 2:
                    m.value_given = true;
                    m.event.value = m.event.value == 1.0 ? 2.0 : 1.0;
                    break;
                default: m.event.id = "missing" + std::to_string(below(1000)); break;
            }
        } else if (roll < 90) {
            // An insert reusing an id: an error while that event is unsealed,
            // allowed once it is sealed.
            m.kind = Mutation::Kind::insert;
            m.event = {target->id, pick_key(), pick_ts(model), pick_value()};
        } else if (roll < 97) {
            // An insert of an event that is certainly late, when there is a horizon.
            m.kind = Mutation::Kind::insert;
            const auto h = model.horizon();
            const std::int64_t ts = h ? std::max(*h - 1 - between(0, 30), -kTwo60) : pick_ts(model);
            m.event = {fresh_id(), pick_key(), ts, pick_value()};
        } else {
            m.kind = chance(50) ? Mutation::Kind::insert : Mutation::Kind::retract;
            m.event = {fresh_id(), pick_key(), pick_ts(model), pick_value()};
            m.shape_error = true;
        }
        texts.push_back(m.shape_error ? broken_mutation_text(m) : mutation_text(m));
        g.line.mutations.push_back(m);
    }
    std::string list;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (i) list += sp() + "," + sp();
        list += texts[i];
    }
    g.text = sp() + "{" + sp() + "\"tx\"" + sp() + ":" + sp() + "[" + sp() + list + sp() + "]" + sp() + "}";
    return g;
}

GeneratedLine WorkloadGenerator::make_watermark(const Model& model) {
    GeneratedLine g;
    g.line.kind = Line::Kind::watermark;
    const auto w = model.watermark();
    std::int64_t next = 0;
    if (!w) {
        next = base_ + between(-20, 40);
    } else if (chance(8)) {
        next = *w - between(1, 5);  // backwards: an error
    } else {
        next = *w + (chance(15) ? 0 : between(1, 25));
    }
    if (extremes_ && chance(10)) next = chance(50) ? kTwo60 : -kTwo60;
    next = std::clamp(next, -kTwo60, kTwo60);
    g.line.watermark = next;
    g.text = "{" + sp() + "\"watermark\"" + sp() + ":" + sp() + std::to_string(next) + sp() + "}";
    return g;
}

GeneratedLine WorkloadGenerator::make_bad_line(const Model& model) {
    GeneratedLine g;
    g.line.kind = Line::Kind::bad;
    const std::string w = model.watermark() ? std::to_string(*model.watermark() + 1) : "0";
    // Valid JSON with the wrong shape at the top level: an error without an index.
    static const char* const shapes[] = {
        "[]", "5", "\"tx\"", "null", "{}", "{\"tx\":[],\"snapshot\":true}",
        "{\"tx\":[],\"tx\":[]}", "{\"bogus\":1}", "{\"watermark\":1.5}", "{\"watermark\":\"5\"}",
        "{\"watermark\":1e3}", "{\"watermark\":1152921504606846977}", "{\"watermark\":-1152921504606846977}",
        "{\"watermark\":null}", "{\"snapshot\":1}", "{\"forget\":\"true\"}", "{\"checkpoint\":null}",
        "{\"tx\":{}}", "{\"tx\":5}", "{\"tx\":null}", "{\"tx\":\"[]\"}", "{\"Snapshot\":true}",
        "{\"watermark\":9223372036854775808}", "{\"snapshot\":true,\"snapshot\":true}",
        "{\"forget\":[true]}", "{\"watermark\":5.0}"};
    // Not JSON at all (or not UTF-8): an error; whether it names a mutation is open.
    static const char* const broken[] = {
        "{\"tx\":[]", "{\"tx\":[]}x", "{tx:[]}", "{'tx':[]}", "{\"tx\":[],}", "nul", "{\"tx\":[}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\",\"ts\":1,\"value\":1}}]}}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\\q\",\"key\":\"b\",\"ts\":1,\"value\":1}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"\xFF\",\"ts\":1,\"value\":1}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\",\"ts\":01,\"value\":1}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\",\"ts\":1,\"value\":.5}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\",\"ts\":1,\"value\":NaN}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\",\"ts\":1,\"value\":1e999}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"a\",\"key\":\"b\u0001\",\"ts\":1,\"value\":1}}]}",
        "{\"tx\":[{\"insert\":{\"id\":\"\\ud800\",\"key\":\"b\",\"ts\":1,\"value\":1}}]}",
        "\xEF\xBB\xBF{\"snapshot\":true}", "{\"snapshot\":tru}", "}", "{\"snapshot\":true}{\"snapshot\":true}"};
    if (chance(50)) {
        g.text = shapes[below(std::size(shapes))];
    } else {
        g.text = broken[below(std::size(broken))];
        g.index_unspecified = true;
    }
    (void)w;
    return g;
}

GeneratedLine WorkloadGenerator::next(const Model& model) {
    const auto roll = below(100);
    GeneratedLine g;
    if (roll < 50) {
        g = make_tx(model);
    } else if (roll < 63) {
        g = make_watermark(model);
    } else if (roll < 71) {
        g.line.kind = Line::Kind::snapshot;
        g.text = "{\"snapshot\"" + sp() + ":" + sp() + "true}";
    } else if (roll < 76) {
        g.line.kind = Line::Kind::forget;
        g.text = "{\"forget\":" + sp() + "true" + sp() + "}";
    } else if (roll < 81) {
        g.line.kind = Line::Kind::checkpoint;
        g.text = "{\"checkpoint\":true}";
    } else if (roll < 83) {
        // Empty, or blank (spaces, tabs, a CR): skipped either way.
        static const char* const blanks[] = {"", "", " ", "\t", " \t\r", "\r"};
        g.line.kind = Line::Kind::empty;
        g.text = blanks[below(std::size(blanks))];
    } else if (roll < 88) {
        g = make_bad_line(model);
    } else {
        g = make_tx(model);
    }
    // Drift the cluster of fresh timestamps forward, like event time does.
    if (!extremes_ && chance(20)) base_ += between(0, 8);
    return g;
}

}  // namespace sluice::tideweave::model
