#pragma once
// Deadlines bound every blocking step of the transport: each connect, read and
// write computes "now + timeout" once and passes the resulting time point down,
// so a slow trickle of bytes cannot stretch a call past its budget.
#include <chrono>

namespace sluice::mariadb {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// Per-step budgets. Zero means "no deadline" for that step.
struct Timeouts {
    std::chrono::milliseconds connect{10000};
    std::chrono::milliseconds read{30000};
    std::chrono::milliseconds write{30000};
};

// The deadline for a step starting now; Deadline::max() when timeout is zero.
inline Deadline deadline_after(std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0) return Deadline::max();
    return Clock::now() + timeout;
}

}  // namespace sluice::mariadb
