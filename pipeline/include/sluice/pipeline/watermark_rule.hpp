#pragma once
// The watermark rule of issue 15: after each source transaction the
// watermark advances to (largest ts among all after images seen so far) -
// lag, whenever that moves it forward. "After images seen" are those that
// are events, in transactions the engine accepted (docs/pipeline.md). A
// value below the contract's range (-2^60) is not a watermark yet.
#include <cstdint>
#include <optional>

namespace sluice::pipeline {

class WatermarkRule {
public:
    // lag >= 0. `max_ts` and `current`: what a restored run already had.
    explicit WatermarkRule(std::int64_t lag, std::optional<std::int64_t> max_ts = std::nullopt,
                           std::optional<std::int64_t> current = std::nullopt)
        : lag_(lag), max_ts_(max_ts), current_(current) {}

    void observe(std::optional<std::int64_t> transaction_max_after_ts) {
        if (transaction_max_after_ts && (!max_ts_ || *transaction_max_after_ts > *max_ts_))
            max_ts_ = transaction_max_after_ts;
    }
    // The watermark to advance to after this transaction, if it moves.
    std::optional<std::int64_t> advance() {
        if (!max_ts_) return std::nullopt;
        // max_ts <= 2^60 and lag in [0, 2^61]: no overflow in int64.
        const std::int64_t w = *max_ts_ - lag_;
        if (w < -(std::int64_t{1} << 60)) return std::nullopt;
        if (current_ && w <= *current_) return std::nullopt;
        current_ = w;
        return w;
    }
    // The least watermark advance() will move to after a transaction whose
    // after images so far reach `transaction_max_so_far` (the rest of it
    // may move it further), nullopt when that need not move it: what a huge
    // transaction's slices judge which of its rows the commit will make
    // final by (SessionApplier::slice). Observes nothing.
    std::optional<std::int64_t> floor_after(std::optional<std::int64_t> transaction_max_so_far) const {
        std::optional<std::int64_t> m = max_ts_;
        if (transaction_max_so_far && (!m || *transaction_max_so_far > *m)) m = transaction_max_so_far;
        if (!m) return std::nullopt;
        const std::int64_t w = *m - lag_;
        if (w < -(std::int64_t{1} << 60)) return std::nullopt;
        if (current_ && w <= *current_) return std::nullopt;
        return w;
    }
    std::optional<std::int64_t> max_ts() const { return max_ts_; }
    std::optional<std::int64_t> current() const { return current_; }

private:
    std::int64_t lag_;
    std::optional<std::int64_t> max_ts_;
    std::optional<std::int64_t> current_;
};

}  // namespace sluice::pipeline
