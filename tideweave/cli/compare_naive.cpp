#include "compare_naive.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sluice/tideweave/stream.hpp"

namespace sluice::tideweave {
namespace {

struct SessionRow {
    std::int64_t start = 0, end = 0, count = 0;
    double sum = 0, min = 0, max = 0;
};

// The numbers-only keeper: per key, sessions by start with (last, count,
// sum, min, max). A retraction can only decrement and subtract.
class NumbersOnly {
public:
    explicit NumbersOnly(std::int64_t gap) : gap_(gap) {}

    void insert(const std::string& key, std::int64_t ts, double v) {
        auto& sessions = keys_[key];
        auto right = sessions.upper_bound(ts);
        auto left = right == sessions.begin() ? sessions.end() : std::prev(right);
        const bool join_left = left != sessions.end() && ts - left->second.last <= gap_;
        const bool join_right = right != sessions.end() && right->first - ts <= gap_;
        if (join_left) {
            Agg& a = left->second;
            add(a, ts, v);
            if (join_right) {
                const Agg b = right->second;
                a.last = b.last;
                a.count += b.count;
                a.sum += b.sum;
                a.min = std::min(a.min, b.min);
                a.max = std::max(a.max, b.max);
                sessions.erase(right);
            }
        } else if (join_right) {
            Agg a = right->second;
            sessions.erase(right);
            add(a, ts, v);
            sessions.emplace(ts, a);
        } else {
            sessions.emplace(ts, Agg{ts, 1, v, v, v});
        }
    }

    void retract(const std::string& key, std::int64_t ts, double v) {
        auto& sessions = keys_[key];
        auto it = std::prev(sessions.upper_bound(ts));
        Agg& a = it->second;
        a.count -= 1;
        a.sum -= v;  // min, max and the boundaries cannot be recovered
        if (a.count == 0) sessions.erase(it);
    }

    std::map<std::string, std::vector<SessionRow>> rows() const {
        std::map<std::string, std::vector<SessionRow>> out;
        for (const auto& [key, sessions] : keys_)
            for (const auto& [start, a] : sessions)
                out[key].push_back({start, a.last + gap_, a.count, a.sum, a.min, a.max});
        return out;
    }

private:
    struct Agg {
        std::int64_t last;
        std::int64_t count;
        double sum, min, max;
    };
    static void add(Agg& a, std::int64_t ts, double v) {
        a.last = std::max(a.last, ts);
        a.count += 1;
        a.sum += v;
        a.min = std::min(a.min, v);
        a.max = std::max(a.max, v);
    }
    std::int64_t gap_;
    std::map<std::string, std::map<std::int64_t, Agg>> keys_;
};

std::string fmt_num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// A value as the contract reads it: beyond 2^53 an integer literal would be
// out of range, so large values are written with an exponent.
std::string json_num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, std::fabs(v) > 9007199254740992.0 ? "%.17e" : "%.17g", v);
    return buf;
}

std::string describe(const SessionRow* r) {
    if (r == nullptr) return "-";
    char buf[160];
    std::snprintf(buf, sizeof buf, "[%lld,%lld) n=%lld sum=%s min=%s max=%s", static_cast<long long>(r->start),
                  static_cast<long long>(r->end), static_cast<long long>(r->count), fmt_num(r->sum).c_str(),
                  fmt_num(r->min).c_str(), fmt_num(r->max).c_str());
    return buf;
}

}  // namespace

int compare_naive(const CompareOptions& o, std::ostream& out) {
    std::mt19937_64 rng(o.seed);
    struct Live {
        std::string id, key;
        std::int64_t ts;
        double value;
    };
    std::vector<Live> live;
    std::vector<std::int64_t> clock(static_cast<std::size_t>(o.keys), 0);
    Stream exact(Config{o.gap, 0});
    NumbersOnly approx(o.gap);
    std::string line, output;
    std::int64_t line_no = 0;
    int inserts = 0, retracts = 0;
    std::string rejected;  // an exact-engine error would void the comparison
    auto flush_tx = [&] {
        if (line.size() <= 7) return;
        line.back() = ']';
        line.push_back('}');
        output.clear();
        if (exact.process_line(line, ++line_no, output) == Stream::Outcome::error) rejected = output;
        line = "{\"tx\":[";
    };
    line = "{\"tx\":[";
    for (int i = 0; i < o.events; ++i) {
        const auto k = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(o.keys));
        // Steps up to 1.6x the gap: runs that join, and neighbours a single
        // retraction can split.
        clock[k] += 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(o.gap + o.gap * 6 / 10));
        // Mostly money-like amounts, now and then a huge one: what a double
        // sum loses when the huge one is retracted again.
        double value = static_cast<double>(rng() % 100000) / 100.0;
        if (rng() % 50 == 0) value = 1e16 + static_cast<double>(rng() % 1000);
        Live ev{"e" + std::to_string(i), "k" + std::to_string(k), clock[k], value};
        char buf[200];
        std::snprintf(buf, sizeof buf, "{\"insert\":{\"id\":\"%s\",\"key\":\"%s\",\"ts\":%lld,\"value\":%s}},",
                      ev.id.c_str(), ev.key.c_str(), static_cast<long long>(ev.ts), json_num(value).c_str());
        line += buf;
        approx.insert(ev.key, ev.ts, value);
        live.push_back(ev);
        ++inserts;
        if (!live.empty() && static_cast<int>(rng() % 100) < o.retract_percent) {
            const std::size_t pick = rng() % live.size();
            const Live gone = live[pick];
            live[pick] = live.back();
            live.pop_back();
            std::snprintf(buf, sizeof buf, "{\"retract\":{\"id\":\"%s\",\"key\":\"%s\",\"ts\":%lld}},",
                          gone.id.c_str(), gone.key.c_str(), static_cast<long long>(gone.ts));
            line += buf;
            approx.retract(gone.key, gone.ts, gone.value);
            ++retracts;
        }
        if (i % 16 == 15) flush_tx();
    }
    flush_tx();
    if (!rejected.empty()) {
        out << "compare-naive: the exact engine rejected a generated transaction: " << rejected;
        return 1;
    }
    output.clear();
    exact.process_line("{\"snapshot\":true}", ++line_no, output);

    std::map<std::string, std::vector<SessionRow>> exact_rows;
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(output);
    for (simdjson::dom::element r : doc["rows"].get_array()) {
        SessionRow row{r["start"].get_int64(), r["end"].get_int64(), r["count"].get_int64(),
                       r["sum"].get_double(), r["min"].get_double(), r["max"].get_double()};
        exact_rows[std::string(std::string_view(r["key"].get_string()))].push_back(row);
    }
    const auto approx_rows = approx.rows();

    std::size_t exact_total = 0, approx_total = 0, identical = 0, wrong_bounds = 0, wrong_count = 0, wrong_sum = 0,
                wrong_minmax = 0, missing = 0;
    double worst_sum_error = 0;
    double worst_drift = 0;          // same boundaries and count: pure floating-point drift
    std::size_t drifted = 0;
    std::vector<std::pair<const SessionRow*, const SessionRow*>> shown;
    std::vector<std::string> shown_keys;
    for (const auto& [key, rows] : exact_rows) {
        exact_total += rows.size();
        const auto found = approx_rows.find(key);
        const std::vector<SessionRow> none;
        const auto& other = found == approx_rows.end() ? none : found->second;
        for (const SessionRow& e : rows) {
            // The numbers-only session covering this exact session's start.
            const SessionRow* a = nullptr;
            for (const SessionRow& c : other)
                if (c.start <= e.start && e.start < c.end) a = &c;
            bool differs = false;
            if (a == nullptr) {
                ++missing;
                differs = true;
            } else {
                if (a->start != e.start || a->end != e.end) ++wrong_bounds, differs = true;
                if (a->count != e.count) ++wrong_count, differs = true;
                if (a->sum != e.sum) {
                    ++wrong_sum;
                    differs = true;
                    worst_sum_error = std::max(worst_sum_error, std::fabs(a->sum - e.sum));
                    if (a->start == e.start && a->end == e.end && a->count == e.count) {
                        ++drifted;
                        worst_drift = std::max(worst_drift, std::fabs(a->sum - e.sum));
                    }
                }
                if (a->min != e.min || a->max != e.max) ++wrong_minmax, differs = true;
            }
            if (!differs) ++identical;
            if (differs && static_cast<int>(shown.size()) < o.rows_shown) {
                shown.emplace_back(&e, a);
                shown_keys.push_back(key);
            }
        }
    }
    for (const auto& [key, rows] : approx_rows) approx_total += rows.size();

    out << "compare-naive: " << inserts << " inserts, " << retracts << " retractions over " << o.keys
        << " keys (gap " << o.gap << ", seed " << o.seed << ")\n\n";
    out << "                                   exact engine   numbers-only\n";
    char buf[200];
    std::snprintf(buf, sizeof buf, "  sessions                          %12zu   %12zu\n", exact_total, approx_total);
    out << buf;
    out << "\n  exact sessions the numbers-only keeper gets ...\n";
    const std::pair<const char*, std::size_t> lines[] = {
        {"identical", identical},
        {"with wrong boundaries (no split)", wrong_bounds},
        {"with a wrong count", wrong_count},
        {"with a wrong sum", wrong_sum},
        {"with a wrong min or max", wrong_minmax},
        {"not at all (inside a gap it kept)", missing},
    };
    for (const auto& [what, n] : lines) {
        std::snprintf(buf, sizeof buf, "    %-36s %8zu\n", what, n);
        out << buf;
    }
    out << "  largest absolute sum error: " << fmt_num(worst_sum_error) << "\n";
    out << "  sessions with the right events but a drifted double sum: " << drifted
        << " (largest drift " << fmt_num(worst_drift) << ")\n\n";
    if (!shown.empty()) {
        out << "  first " << shown.size() << " differing sessions:\n";
        for (std::size_t i = 0; i < shown.size(); ++i) {
            out << "  " << shown_keys[i] << "\n    exact:        " << describe(shown[i].first)
                << "\n    numbers-only: " << describe(shown[i].second) << "\n";
        }
    }
    return 0;
}

}  // namespace sluice::tideweave
