#include "sluice/mariadb/cancel.hpp"

namespace sluice::mariadb {

QueryDeadline::QueryDeadline(const Connection& conn, ConnectOptions side, std::chrono::milliseconds after)
    : connection_id_(conn.connection_id()), side_(std::move(side)) {
    side_.init_commands.clear();
    watcher_ = std::thread([this, deadline = std::chrono::steady_clock::now() + after] { watch(deadline); });
}

QueryDeadline::~QueryDeadline() {
    disarm();
    if (watcher_.joinable()) watcher_.join();
}

void QueryDeadline::disarm() noexcept {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
    disarmed_cv_.notify_all();
}

bool QueryDeadline::fired() const {
    std::lock_guard lock(mutex_);
    return fired_;
}

std::string QueryDeadline::kill_error() const {
    std::lock_guard lock(mutex_);
    return kill_error_;
}

void QueryDeadline::watch(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (disarmed_cv_.wait_until(lock, deadline, [&] { return disarmed_; })) return;
    fired_ = true;
    // Held while killing: disarm() (and so the caller's next statement)
    // waits until the KILL has been answered.
    try {
        Connection side = Connection::connect(side_);
        side.execute("KILL QUERY " + std::to_string(connection_id_));
    } catch (const Error& e) {
        kill_error_ = e.what();
    }
}

}  // namespace sluice::mariadb
