#include "bench_lag.hpp"

#include <thread>

namespace sluice::pipeline_bench {

void SinkSightings::saw(std::uint64_t position) {
    if (position == last_) return;  // only the poller writes last_
    const auto now = Clock::now();
    std::lock_guard lock(mu_);
    seen_.push_back({position, now});
    last_ = position;
}

void SinkSightings::wait_for(std::uint64_t position) {
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::lock_guard lock(mu_);
        if (!seen_.empty() && seen_.back().first >= position) return;
    }
}

Positions SinkSightings::taken() const {
    std::lock_guard lock(mu_);
    return seen_;
}

std::vector<double> lag_ms(const Positions& committed, const Positions& seen) {
    std::vector<double> lags;
    std::size_t j = 0;
    for (const auto& [position, at] : committed) {
        while (j < seen.size() && seen[j].first < position) ++j;
        if (j == seen.size()) break;
        lags.push_back(std::chrono::duration<double, std::milli>(seen[j].second - at).count());
    }
    return lags;
}

}  // namespace sluice::pipeline_bench
