#pragma once
// `sluice-mariadb cdc --metrics HOST:PORT`: the figures of a CDC run
// (docs/mariadb-cdc.md, "Operating it"), fed by the command's write loop
// (file and stdout: written() and flushed()), the binlog stream's
// reconnects (ConnectionObserver) and the JetStream publisher
// (PublishObserver), and served by sluice::service.
//
// Lag (sluice_cdc_lag_seconds): 0 when everything the source has sent is
// delivered, else now minus the source commit time of the oldest
// transaction not yet delivered; delivered = written to the file or stdout,
// or acknowledged by JetStream.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/jetstream/cdc_publisher.hpp"
#include "sluice/service/http_server.hpp"
#include "sluice/service/monitor.hpp"

namespace sluice::mariadb::tools {

class CdcMetrics final : public cdc::ConnectionObserver, public jetstream::PublishObserver {
public:
    // Starts the HTTP server on `listen` (HOST:PORT) and prints
    // "metrics: http://HOST:PORT/" on stderr.
    CdcMetrics(const std::string& listen, const std::string& source_url, const std::string& sink);
    ~CdcMetrics() override;

    // File and stdout: a transaction line of `bytes` went into the output
    // buffer; flushed(): the buffer was written, up to `position`.
    void written(std::uint32_t commit_time, std::uint64_t row_changes, std::uint64_t bytes) noexcept {
        transactions_->add();
        row_changes_->add(row_changes);
        bytes_->add(bytes);
        std::uint32_t none = 0;
        oldest_unwritten_.compare_exchange_strong(none, commit_time == 0 ? 1 : commit_time, std::memory_order_relaxed);
    }
    void flushed(const cdc::GtidState& position);

    // Nothing undelivered (the lag is 0): what a graceful stop waits for.
    bool all_delivered() const;
    double lag_seconds() const;
    // The figures of the moment as JSON members, for the fields of
    // --log-format json lines.
    std::string log_fields() const;

    // cdc::ConnectionObserver
    void connection_lost(const std::string& why) override;
    void connection_regained() override;
    // jetstream::PublishObserver
    void published(std::uint32_t commit_time, std::uint64_t row_changes, std::uint64_t bytes, std::uint64_t last_seq,
                   const cdc::GtidState& position) override;
    void acknowledged(std::uint64_t seq) override;
    void resynchronising(const std::string& part, const std::string& why) override;
    void running() override;

private:
    std::string position_text() const;

    service::Registry registry_;
    service::Health health_;
    service::Counter* transactions_;
    service::Counter* row_changes_;
    service::Counter* bytes_;
    service::Counter* retries_;
    std::atomic<std::uint64_t> source_retries_{0}, sink_retries_{0};  // the page's split of retries_
    // File and stdout: the commit time of the oldest line not yet written (0: none).
    std::atomic<std::uint32_t> oldest_unwritten_{0};
    // JetStream: (last sequence, commit time) of each transaction not yet
    // acknowledged, in order.
    mutable std::mutex mutex_;
    std::deque<std::pair<std::uint64_t, std::uint32_t>> unacknowledged_;
    std::uint64_t acknowledged_up_to_ = 0;
    // Assigned per transaction (a copy into the same capacity: no
    // allocation), turned into text only when read.
    cdc::GtidState position_;
    std::unique_ptr<service::Monitor> monitor_;
    std::unique_ptr<service::HttpServer> server_;
};

}  // namespace sluice::mariadb::tools
