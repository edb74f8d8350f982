#include "sluice/service/stop_signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <thread>

namespace sluice::service {

namespace {

std::atomic<int> requested_by{0};

}  // namespace

void install_stop_signals(std::function<void()> on_grace_expired, std::chrono::milliseconds grace) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) throw std::runtime_error("pthread_sigmask failed");
    std::thread([set, grace, on_grace_expired = std::move(on_grace_expired)] {
        int sig = 0;
        while (sigwait(&set, &sig) != 0) {
        }
        requested_by = sig;
        timespec wait{};
        wait.tv_sec = static_cast<time_t>(grace.count() / 1000);
        wait.tv_nsec = static_cast<long>((grace.count() % 1000) * 1000000);
        for (;;) {
            const int second = sigtimedwait(&set, nullptr, &wait);
            if (second > 0) std::_Exit(128 + second);  // asked twice: at once
            if (second < 0 && errno == EINTR) continue;
            break;  // the grace passed
        }
        if (on_grace_expired) on_grace_expired();
        // Still running (the callback returned): wait for a second signal.
        while (sigwait(&set, &sig) != 0) {
        }
        std::_Exit(128 + sig);
    }).detach();
}

bool stop_requested() noexcept { return requested_by.load(std::memory_order_relaxed) != 0; }
int stop_signal() noexcept { return requested_by.load(std::memory_order_relaxed); }

}  // namespace sluice::service
