#include "sluice/service/monitor.hpp"

#include "sluice/common/json_write.hpp"
#include "sluice/service/secrets.hpp"

namespace sluice::service {

Monitor::Monitor(Description description, Registry& registry, Health& health, std::function<Figures()> figures)
    : description_(std::move(description)),
      registry_(registry),
      health_(health),
      figures_(std::move(figures)),
      started_(std::chrono::system_clock::now()) {
    description_.source = mask_secrets(description_.source);
    description_.sink = mask_secrets(description_.sink);
}

Monitor::~Monitor() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (sampler_.joinable()) sampler_.join();
}

void Monitor::start() {
    sampler_ = std::thread([this] {
        using namespace std::chrono;
        auto next = system_clock::now();
        std::unique_lock lock(mutex_);
        for (;;) {
            // On whole seconds of the wall clock, so that samples line up with time.
            next = time_point_cast<seconds>(next) + seconds(1);
            if (wake_.wait_until(lock, next, [&] { return stop_; })) return;
            lock.unlock();
            sample(duration_cast<seconds>(next.time_since_epoch()).count());
            lock.lock();
        }
    });
}

void Monitor::sample(std::int64_t unix_seconds) {
    const Figures f = figures_();
    Sample s;
    s.unix_seconds = unix_seconds;
    s.lag_seconds = f.lag_seconds;
    {
        std::lock_guard lock(mutex_);
        s.rows_per_second = last_rows_ ? static_cast<double>(f.row_changes - std::min(*last_rows_, f.row_changes)) : 0;
        last_rows_ = f.row_changes;
        last_rows_per_second_ = s.rows_per_second;
    }
    history_.add(s);
}

namespace {

void field(std::string& out, const char* name) {
    if (out.back() != '{') out += ',';
    json::append_string(out, name);
    out += ':';
}

void string_field(std::string& out, const char* name, const std::string& v) {
    field(out, name);
    json::append_string(out, v);
}

void number_field(std::string& out, const char* name, double v) {
    field(out, name);
    out += format_value(v);
}

void optional_field(std::string& out, const char* name, const std::optional<std::uint64_t>& v) {
    field(out, name);
    out += v ? format_value(static_cast<double>(*v)) : "null";
}

}  // namespace

std::string Monitor::status_json() const {
    const Figures f = figures_();
    const std::string problems = health_.problems();
    double rows_per_second = 0;
    {
        std::lock_guard lock(mutex_);
        rows_per_second = last_rows_per_second_;
    }
    const auto now = std::chrono::system_clock::now();
    std::string out = "{";
    string_field(out, "program", description_.program);
    string_field(out, "source", description_.source);
    string_field(out, "sink", description_.sink);
    string_field(out, "position", mask_secrets(f.position));
    field(out, "healthy");
    out += problems.empty() ? "true" : "false";
    string_field(out, "problem", mask_secrets(problems));
    number_field(out, "time", static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count()));
    number_field(out, "uptime_seconds", static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(now - started_).count()));
    number_field(out, "transactions", static_cast<double>(f.transactions));
    number_field(out, "row_changes", static_cast<double>(f.row_changes));
    number_field(out, "rows_per_second", rows_per_second);
    number_field(out, "lag_seconds", f.lag_seconds);
    optional_field(out, "late", f.late);
    optional_field(out, "rejected", f.rejected);
    field(out, "retries");
    out += '{';
    number_field(out, "source", static_cast<double>(f.retries_source));
    number_field(out, "sink", static_cast<double>(f.retries_sink));
    out += '}';
    field(out, "metrics");
    out += '{';
    for (const auto& [name, value] : registry_.values()) {
        if (out.back() != '{') out += ',';
        json::append_string(out, name);
        out += ':' + format_value(value);
    }
    out += '}';
    // The history as three parallel arrays, oldest first: compact for 600 samples.
    const std::vector<Sample> samples = history_.samples();
    field(out, "history");
    out += "{\"seconds\":[";
    for (std::size_t i = 0; i < samples.size(); ++i) out += (i ? "," : "") + format_value(static_cast<double>(samples[i].unix_seconds));
    out += "],\"rows_per_second\":[";
    for (std::size_t i = 0; i < samples.size(); ++i) out += (i ? "," : "") + format_value(samples[i].rows_per_second);
    out += "],\"lag_seconds\":[";
    for (std::size_t i = 0; i < samples.size(); ++i) out += (i ? "," : "") + format_value(samples[i].lag_seconds);
    out += "]}}";
    return out;
}

}  // namespace sluice::service
