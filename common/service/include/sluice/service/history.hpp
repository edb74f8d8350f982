#pragma once
// The last 10 minutes, one sample a second: what /status returns and the
// status page draws. A ring of 600 samples under a mutex (one writer a
// second, readers per request).
#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

namespace sluice::service {

struct Sample {
    std::int64_t unix_seconds = 0;
    double rows_per_second = 0;  // row changes in the second that ended at unix_seconds
    double lag_seconds = 0;      // the lag at unix_seconds
};

class History {
public:
    static constexpr std::size_t capacity = 600;

    void add(const Sample& s) {
        std::lock_guard lock(mutex_);
        ring_[(first_ + size_) % capacity] = s;
        if (size_ < capacity) ++size_;
        else first_ = (first_ + 1) % capacity;
    }
    // Oldest first.
    std::vector<Sample> samples() const {
        std::lock_guard lock(mutex_);
        std::vector<Sample> out;
        out.reserve(size_);
        for (std::size_t i = 0; i < size_; ++i) out.push_back(ring_[(first_ + i) % capacity]);
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::array<Sample, capacity> ring_{};
    std::size_t first_ = 0, size_ = 0;
};

}  // namespace sluice::service
