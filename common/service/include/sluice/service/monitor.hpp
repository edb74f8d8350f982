#pragma once
// What a running tool shows about itself: the metrics registry, the health,
// the headline figures and their last 10 minutes. A thread samples the
// figures once a second into the history (rows/s from the change of the
// row-change count); /status, / and /healthz read from here
// (http_server.hpp).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sluice/service/health.hpp"
#include "sluice/service/history.hpp"
#include "sluice/service/metrics.hpp"

namespace sluice::service {

// The figures a person looks at first, read from the tool's metrics.
struct Figures {
    std::string position;  // the source position delivered (GTID state)
    std::uint64_t transactions = 0;
    std::uint64_t row_changes = 0;
    std::optional<std::uint64_t> late, rejected;  // the pipeline's only
    std::uint64_t retries_source = 0, retries_sink = 0;
    double lag_seconds = 0;
};

struct Description {
    std::string program;  // "sluice-mariadb cdc"
    std::string source;   // URLs as given: masked before they are shown
    std::string sink;
};

class Monitor {
public:
    Monitor(Description description, Registry& registry, Health& health, std::function<Figures()> figures);
    ~Monitor();
    Monitor(const Monitor&) = delete;
    Monitor& operator=(const Monitor&) = delete;

    // Starts the once-a-second sampler.
    void start();
    // Takes one sample now (the sampler's step; tests call it directly).
    void sample(std::int64_t unix_seconds);

    Registry& registry() { return registry_; }
    Health& health() { return health_; }
    Figures figures() const { return figures_(); }
    // /status: the description, the figures, the health, every metric
    // series and the history, as one JSON object (docs: "Operating it").
    std::string status_json() const;

private:
    Description description_;
    Registry& registry_;
    Health& health_;
    std::function<Figures()> figures_;
    History history_;
    std::optional<std::uint64_t> last_rows_;
    double last_rows_per_second_ = 0;
    mutable std::mutex mutex_;  // last_rows_, last_rows_per_second_, stop_
    std::condition_variable wake_;
    bool stop_ = false;
    std::chrono::system_clock::time_point started_;
    std::thread sampler_;
};

// The status page (status_page.html, built in): fetches /status once a
// second and draws it.
extern const char* const status_page_html;

}  // namespace sluice::service
