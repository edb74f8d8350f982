#include "sluice/service/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace sluice::service {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
    if (!std::is_sorted(bounds_.begin(), bounds_.end()))
        throw std::invalid_argument("histogram bucket bounds must be in increasing order");
    for (std::size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) noexcept {
    const auto at = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
    counts_[at].fetch_add(1, std::memory_order_relaxed);
    double sum = sum_.load(std::memory_order_relaxed);
    while (!sum_.compare_exchange_weak(sum, sum + v, std::memory_order_relaxed)) {
    }
    count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
    Snapshot s;
    s.upper_bounds = bounds_;
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= bounds_.size(); ++i) {
        running += counts_[i].load(std::memory_order_relaxed);
        s.cumulative.push_back(running);
    }
    s.sum = sum_.load(std::memory_order_relaxed);
    // The count is the +Inf bucket, so that the two always agree in one scrape.
    s.count = running;
    return s;
}

std::string format_value(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    if (v == std::trunc(v) && std::fabs(v) < 1e15) {
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
        return std::string(buf, r.ptr);
    }
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string escape_label_value(const std::string& v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

namespace {

const char* type_name(Type t) {
    switch (t) {
        case Type::counter: return "counter";
        case Type::gauge: return "gauge";
        case Type::histogram: return "histogram";
    }
    return "untyped";
}

void append_labels(std::string& out, const Labels& labels, const std::string& extra_name = {},
                   const std::string& extra_value = {}) {
    if (labels.empty() && extra_name.empty()) return;
    out += '{';
    bool first = true;
    for (const auto& [k, v] : labels) {
        if (!first) out += ',';
        first = false;
        out += k + "=\"" + escape_label_value(v) + '"';
    }
    if (!extra_name.empty()) {
        if (!first) out += ',';
        out += extra_name + "=\"" + escape_label_value(extra_value) + '"';
    }
    out += '}';
}

// HELP text escapes only '\' and newline.
std::string escape_help(const std::string& h) {
    std::string out;
    for (char c : h) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

}  // namespace

Registry::Family& Registry::family(const std::string& name, const std::string& help, Type type) {
    for (Family& f : families_) {
        if (f.name != name) continue;
        if (f.type != type) throw std::invalid_argument("metric " + name + " registered with two types");
        return f;
    }
    families_.push_back(Family{name, help, type, {}});
    return families_.back();
}

Counter& Registry::counter(const std::string& name, const std::string& help, Labels labels) {
    std::lock_guard lock(mutex_);
    Counter& c = counters_.emplace_back();
    family(name, help, Type::counter).series.push_back(
        Series{std::move(labels), [&c] { return static_cast<double>(c.value()); }, {}, {}, nullptr});
    return c;
}

Gauge& Registry::gauge(const std::string& name, const std::string& help, Labels labels) {
    std::lock_guard lock(mutex_);
    Gauge& g = gauges_.emplace_back();
    family(name, help, Type::gauge).series.push_back(Series{std::move(labels), [&g] { return g.value(); }, {}, {}, nullptr});
    return g;
}

Histogram& Registry::histogram(const std::string& name, const std::string& help, std::vector<double> upper_bounds) {
    std::lock_guard lock(mutex_);
    Histogram& h = histograms_.emplace_back(std::move(upper_bounds));
    family(name, help, Type::histogram).series.push_back(Series{{}, {}, {}, {}, &h});
    return h;
}

void Registry::computed(const std::string& name, const std::string& help, Type type, std::function<double()> value,
                        Labels labels) {
    if (type == Type::histogram) throw std::invalid_argument("a computed metric cannot be a histogram");
    std::lock_guard lock(mutex_);
    family(name, help, type).series.push_back(Series{std::move(labels), std::move(value), {}, {}, nullptr});
}

void Registry::info(const std::string& name, const std::string& help, const std::string& label,
                    std::function<std::string()> value) {
    std::lock_guard lock(mutex_);
    family(name, help, Type::gauge).series.push_back(Series{{}, {}, std::move(value), label, nullptr});
}

std::string Registry::exposition() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const Family& f : families_) {
        out += "# HELP " + f.name + ' ' + escape_help(f.help) + '\n';
        out += "# TYPE " + f.name + ' ' + type_name(f.type) + '\n';
        for (const Series& s : f.series) {
            if (s.histogram) {
                const Histogram::Snapshot h = s.histogram->snapshot();
                for (std::size_t i = 0; i < h.cumulative.size(); ++i) {
                    out += f.name + "_bucket";
                    append_labels(out, s.labels, "le", i < h.upper_bounds.size() ? format_value(h.upper_bounds[i]) : "+Inf");
                    out += ' ' + format_value(static_cast<double>(h.cumulative[i])) + '\n';
                }
                out += f.name + "_sum";
                append_labels(out, s.labels);
                out += ' ' + format_value(h.sum) + '\n';
                out += f.name + "_count";
                append_labels(out, s.labels);
                out += ' ' + format_value(static_cast<double>(h.count)) + '\n';
            } else if (s.info) {
                out += f.name;
                append_labels(out, s.labels, s.info_label, s.info());
                out += " 1\n";
            } else {
                out += f.name;
                append_labels(out, s.labels);
                out += ' ' + format_value(s.read()) + '\n';
            }
        }
    }
    return out;
}

std::vector<std::pair<std::string, double>> Registry::values() const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<std::string, double>> out;
    for (const Family& f : families_) {
        for (const Series& s : f.series) {
            if (s.info) continue;
            std::string name = f.name;
            append_labels(name, s.labels);
            if (s.histogram) {
                const Histogram::Snapshot h = s.histogram->snapshot();
                out.emplace_back(f.name + "_count", static_cast<double>(h.count));
                out.emplace_back(f.name + "_sum", h.sum);
            } else {
                out.emplace_back(std::move(name), s.read());
            }
        }
    }
    return out;
}

}  // namespace sluice::service
