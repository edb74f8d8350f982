#pragma once
// Graceful stop on SIGTERM and SIGINT: the first signal asks the tool to
// stop (stop_requested() turns true; the run loop commits what it applied
// and returns), a second one exits at once (status 128 + the signal).
// When the loop is blocked waiting for its source it cannot look at the
// flag: after `grace`, `on_grace_expired` runs on the signal thread (the
// tools then write out what is applied and exit 0 themselves).
//
// install() must run before any other thread is started: it blocks the two
// signals in the calling thread, and threads started later inherit that, so
// only the signal thread (sigwait) receives them.
#include <chrono>
#include <functional>

namespace sluice::service {

void install_stop_signals(std::function<void()> on_grace_expired, std::chrono::milliseconds grace);
bool stop_requested() noexcept;
// The signal that asked to stop (0: none yet).
int stop_signal() noexcept;

}  // namespace sluice::service
