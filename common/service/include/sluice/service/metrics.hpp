#pragma once
// Counters, gauges and histograms that a tool updates from its hot loop
// (relaxed atomics: no lock on the update path) and a registry that writes
// them in the Prometheus text exposition format 0.0.4 for /metrics.
//
//   Registry r;
//   Counter& rows = r.counter("sluice_cdc_row_changes_total", "Row changes written.");
//   rows.add(3);
//   r.computed("sluice_cdc_lag_seconds", "Lag.", Type::gauge, [&] { return lag(); });
//   std::string text = r.exposition();
//
// Families keep the order they were registered in; the series of one family
// (e.g. retries_total{what="source"} and {what="sink"}) are written together
// under one HELP/TYPE header, as the format requires.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace sluice::service {

enum class Type { counter, gauge, histogram };

// Label pairs in the order written: {{"what", "source"}}.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
public:
    void add(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> value_{0};
};

class Gauge {
public:
    void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
    double value() const noexcept { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<double> value_{0};
};

// Cumulative buckets as Prometheus reads them: observe() counts the value in
// the first bucket whose upper bound is >= it (the exposition adds them up).
class Histogram {
public:
    explicit Histogram(std::vector<double> upper_bounds);
    void observe(double v) noexcept;

    struct Snapshot {
        std::vector<double> upper_bounds;
        std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf
        double sum = 0;
        std::uint64_t count = 0;
    };
    Snapshot snapshot() const;

private:
    std::vector<double> bounds_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // bounds_.size() + 1 (the +Inf bucket)
    std::atomic<double> sum_{0};
    std::atomic<std::uint64_t> count_{0};
};

// A value in the exposition's number syntax: integers without a fraction,
// others in the shortest form that reads back the same, +Inf, -Inf, NaN.
std::string format_value(double v);
// A label value with '\', '"' and newline escaped as the format requires.
std::string escape_label_value(const std::string& v);

class Registry {
public:
    Counter& counter(const std::string& name, const std::string& help, Labels labels = {});
    Gauge& gauge(const std::string& name, const std::string& help, Labels labels = {});
    Histogram& histogram(const std::string& name, const std::string& help, std::vector<double> upper_bounds);
    // A value read when scraped (the lag, the process's memory and CPU time).
    void computed(const std::string& name, const std::string& help, Type type, std::function<double()> value,
                  Labels labels = {});
    // An info gauge: `name{label="<value()>"} 1`, the label read when scraped.
    void info(const std::string& name, const std::string& help, const std::string& label,
              std::function<std::string()> value);

    std::string exposition() const;
    // Every counter and gauge series by its exposition name (`name` or
    // `name{labels}`), for /status; histograms as name_count and name_sum.
    std::vector<std::pair<std::string, double>> values() const;

private:
    struct Series {
        Labels labels;
        std::function<double()> read;          // counters, gauges, computed
        std::function<std::string()> info;     // info gauges: the label's value
        std::string info_label;
        Histogram* histogram = nullptr;
    };
    struct Family {
        std::string name, help;
        Type type = Type::gauge;
        std::vector<Series> series;
    };
    Family& family(const std::string& name, const std::string& help, Type type);

    mutable std::mutex mutex_;
    std::vector<Family> families_;
    // Stable addresses for what counter()/gauge()/histogram() hand out.
    std::deque<Counter> counters_;
    std::deque<Gauge> gauges_;
    std::deque<Histogram> histograms_;
};

}  // namespace sluice::service
