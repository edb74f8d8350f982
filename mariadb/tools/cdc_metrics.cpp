#include "cdc_metrics.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "sluice/common/json_write.hpp"
#include "sluice/service/process_stats.hpp"

namespace sluice::mariadb::tools {

namespace {

double seconds_since(std::uint32_t commit_time) {
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return std::max(0.0, now - static_cast<double>(commit_time));
}

}  // namespace

CdcMetrics::CdcMetrics(const std::string& listen, const std::string& source_url, const std::string& sink) {
    transactions_ = &registry_.counter("sluice_cdc_transactions_total", "Source transactions written or published.");
    row_changes_ = &registry_.counter("sluice_cdc_row_changes_total", "Row changes in those transactions.");
    bytes_ = &registry_.counter("sluice_cdc_bytes_total",
                                "Bytes of those transactions as written (NDJSON lines) or published (message data).");
    registry_.computed("sluice_cdc_lag_seconds",
                       "0 when everything the source sent is delivered (written, or acknowledged by JetStream), else "
                       "now minus the source commit time of the oldest transaction not yet delivered.",
                       service::Type::gauge, [this] { return lag_seconds(); });
    retries_ = &registry_.counter("sluice_cdc_retries_total",
                                         "Attempts to regain a lost connection (the binlog, or NATS with --to).");
    registry_.info("sluice_cdc_position_info", "The binlog position (GTID state) delivered so far.", "gtid",
                   [this] { return position_text(); });
    service::register_process_metrics(registry_);
    monitor_ = std::make_unique<service::Monitor>(
        service::Description{"sluice-mariadb cdc", source_url, sink}, registry_, health_, [this] {
            service::Figures f;
            f.position = position_text();
            f.transactions = transactions_->value();
            f.row_changes = row_changes_->value();
            f.retries_source = source_retries_.load(std::memory_order_relaxed);
            f.retries_sink = sink_retries_.load(std::memory_order_relaxed);
            f.lag_seconds = lag_seconds();
            return f;
        });
    server_ = std::make_unique<service::HttpServer>(service::parse_listen_address(listen), *monitor_);
    monitor_->start();
    std::cerr << "metrics: " << server_->url() << "\n" << std::flush;
}

CdcMetrics::~CdcMetrics() {
    server_.reset();
    monitor_.reset();
}

std::string CdcMetrics::position_text() const {
    std::lock_guard lock(mutex_);
    return position_.to_string();
}

void CdcMetrics::flushed(const cdc::GtidState& position) {
    {
        std::lock_guard lock(mutex_);
        position_ = position;
    }
    oldest_unwritten_.store(0, std::memory_order_relaxed);
}

double CdcMetrics::lag_seconds() const {
    if (const std::uint32_t t = oldest_unwritten_.load(std::memory_order_relaxed)) return seconds_since(t);
    std::lock_guard lock(mutex_);
    return unacknowledged_.empty() ? 0.0 : seconds_since(unacknowledged_.front().second);
}

std::string CdcMetrics::log_fields() const {
    std::string out = "\"position\":";
    json::append_string(out, position_text());
    out += ",\"transactions\":" + service::format_value(static_cast<double>(transactions_->value()));
    out += ",\"row_changes\":" + service::format_value(static_cast<double>(row_changes_->value()));
    out += ",\"lag_seconds\":" + service::format_value(lag_seconds());
    return out;
}

bool CdcMetrics::all_delivered() const {
    if (oldest_unwritten_.load(std::memory_order_relaxed) != 0) return false;
    std::lock_guard lock(mutex_);
    return unacknowledged_.empty();
}

void CdcMetrics::connection_lost(const std::string& why) {
    source_retries_.fetch_add(1, std::memory_order_relaxed);
    retries_->add();
    health_.problem("source", why + " (reconnecting)");
}

void CdcMetrics::connection_regained() { health_.ok("source"); }

void CdcMetrics::published(std::uint32_t commit_time, std::uint64_t row_changes, std::uint64_t bytes,
                           std::uint64_t last_seq, const cdc::GtidState& position) {
    transactions_->add();
    row_changes_->add(row_changes);
    bytes_->add(bytes);
    std::lock_guard lock(mutex_);
    // A transaction that added no message (all of it stored before a
    // restart) is delivered already.
    if (last_seq > acknowledged_up_to_) unacknowledged_.emplace_back(last_seq, commit_time == 0 ? 1 : commit_time);
    position_ = position;
}

void CdcMetrics::acknowledged(std::uint64_t seq) {
    std::lock_guard lock(mutex_);
    acknowledged_up_to_ = std::max(acknowledged_up_to_, seq);
    while (!unacknowledged_.empty() && unacknowledged_.front().first <= seq) unacknowledged_.pop_front();
}

void CdcMetrics::resynchronising(const std::string& part, const std::string& why) {
    (part == "source" ? source_retries_ : sink_retries_).fetch_add(1, std::memory_order_relaxed);
    retries_->add();
    health_.problem(part, why + " (retrying)");
    // What was in flight is read again from the stream's last message.
    std::lock_guard lock(mutex_);
    unacknowledged_.clear();
}

void CdcMetrics::running() {
    health_.ok("source");
    health_.ok("sink");
}

}  // namespace sluice::mariadb::tools
