// AsioPool: the blocking Pool's lending rules on an asio executor. Borrowers
// that find no connection wait on a timer of their own (their deadline);
// a return hands its connection to the first of them and cancels that timer.
#include "sluice/mariadb/asio_pool.hpp"

#include <poll.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace detail {

struct AsioPoolSlot {
    struct Pooled {
        std::optional<Statement> statement;  // nullopt once a reset dropped it
        bool used = false;                   // prepared during the current lease
    };
    // Declared first, destroyed last: the statements refer to it.
    std::optional<AsioConnection> conn;
    std::map<std::string, Pooled, std::less<>> statements;
    Clock::time_point idle_since;

    // The server dropped every statement (reset): forget them without
    // COM_STMT_CLOSE (their ids may be reused), keep their SQL.
    void forget_statements() noexcept {
        for (auto& [sql, pooled] : statements) {
            if (pooled.statement) conn->async_connection().forget_statement(*pooled.statement);
            pooled.statement.reset();
        }
    }
};

struct AsioPoolState : std::enable_shared_from_this<AsioPoolState> {
    // A borrow waiting for a connection: a return hands it one (`slot`), or
    // a closed connection makes room for a new one (`may_connect`); either
    // cancels its timer, which otherwise ends the wait at its deadline.
    struct Waiter {
        Waiter(AsioPoolState& owner, asio::any_io_executor ex) : pool(owner), timer(ex) {}
        // A borrow whose coroutine is destroyed mid-wait (its executor shut
        // down) gives back what it was handed.
        ~Waiter() {
            auto it = std::find(pool.waiters.begin(), pool.waiters.end(), this);
            if (it != pool.waiters.end()) pool.waiters.erase(it);
            if (slot) pool.lose(std::move(slot));
            if (may_connect) pool.make_room();  // woken, but never connected
        }
        AsioPoolState& pool;
        asio::steady_timer timer;
        std::unique_ptr<AsioPoolSlot> slot;
        bool may_connect = false;
    };

    AsioPoolState(asio::any_io_executor ex, PoolOptions o) : executor(std::move(ex)), options(std::move(o)) {}

    asio::any_io_executor executor;
    PoolOptions options;
    std::vector<std::unique_ptr<AsioPoolSlot>> idle;  // the most recently returned last
    std::size_t open = 0;                             // lent, idle, being returned or connecting
    std::deque<Waiter*> waiters;                      // the longest waiting first
    PoolStats stats;
    bool closing = false;  // the AsioPool is gone: nothing is lent or kept any more

    // Connects a connection whose place in `open` is already counted; on
    // failure the place is freed (and a waiter told).
    asio::awaitable<std::unique_ptr<AsioPoolSlot>> connect_slot() {
        auto self = shared_from_this();
        try {
            auto slot = std::make_unique<AsioPoolSlot>();
            slot->conn.emplace(co_await AsioConnection::connect(executor, options.connect));
            ++stats.connects;
            co_return slot;
        } catch (...) {
            --open;
            make_room();
            throw;
        }
    }

    // A connection is gone (broken, failed its reset, ping or idle check):
    // closed, its place freed for a new one.
    void lose(std::unique_ptr<AsioPoolSlot> slot) noexcept {
        slot.reset();
        --open;
        ++stats.replaced;
        make_room();
        top_up();
    }

    // A place in `open` became free: the first waiter may connect.
    void make_room() noexcept {
        if (waiters.empty()) return;
        Waiter* w = waiters.front();
        waiters.pop_front();
        w->may_connect = true;
        w->timer.cancel();
    }

    // A connection ready to lend: to the first waiter, else idle.
    void park(std::unique_ptr<AsioPoolSlot> slot) noexcept {
        if (closing) {
            slot.reset();
            --open;
            return;
        }
        slot->idle_since = Clock::now();
        if (!waiters.empty()) {
            Waiter* w = waiters.front();
            waiters.pop_front();
            w->slot = std::move(slot);
            w->timer.cancel();
            return;
        }
        idle.push_back(std::move(slot));
    }

    // Connects, in the background, until min_idle are open; best effort (a
    // borrow that has to connect reports the error).
    void top_up() noexcept {
        while (!closing && open < options.min_idle) {
            ++open;
            try {
                asio::co_spawn(
                    executor,
                    [self = shared_from_this()]() -> asio::awaitable<void> {
                        try {
                            self->park(co_await self->connect_slot());
                        } catch (const Error&) {
                            // connect_slot freed the place
                        }
                    },
                    asio::detached);
            } catch (...) {
                --open;
                return;
            }
        }
    }

    // The return: reset, restore, re-prepare, then lend again. Runs on its
    // own: the returning coroutine does not wait for it.
    asio::awaitable<void> settle(std::unique_ptr<AsioPoolSlot> slot) {
        auto self = shared_from_this();
        bool ok = true;
        try {
            AsioConnection& c = *slot->conn;
            ++stats.resets;
            co_await c.async_reset_session();
            slot->forget_statements();
            for (const std::string& sql : options.connect.init_commands) co_await c.async_execute(sql);
            for (auto& [sql, pooled] : slot->statements) {
                if (!std::exchange(pooled.used, false) || !options.prepare_on_return) continue;
                try {
                    pooled.statement.emplace(co_await c.async_prepare(sql));
                    ++stats.prepares;
                } catch (const Error& e) {
                    // Refused now: left to its next use, which reports it.
                    if (e.kind() != ErrorKind::server) throw;
                }
            }
        } catch (...) {
            ok = false;
        }
        if (!ok || slot->conn->broken()) {
            lose(std::move(slot));
        } else {
            park(std::move(slot));
        }
    }

    void give_back(std::unique_ptr<AsioPoolSlot> slot) noexcept {
        if (closing || !slot->conn || slot->conn->broken()) {
            if (closing) {
                slot.reset();
                --open;
            } else {
                lose(std::move(slot));
            }
            return;
        }
        try {
            asio::co_spawn(executor, settle(std::move(slot)), asio::detached);
        } catch (...) {
            // co_spawn could not allocate: the slot went with the coroutine.
            --open;
            ++stats.replaced;
            make_room();
        }
    }
};

}  // namespace detail

using detail::AsioPoolSlot;
using detail::AsioPoolState;

namespace {
// Every reply has been read and the server sends nothing unasked, so a
// socket with something to read is one the server closed (KILL, restart,
// wait_timeout) or broke.
bool closed_while_idle(AsioConnection& c) noexcept {
    if (c.broken()) return true;
    pollfd p{c.async_connection().fd(), POLLIN, 0};
    int ready = 0;
    do {
        ready = ::poll(&p, 1, 0);
    } while (ready < 0 && errno == EINTR);
    return ready != 0;  // readable, hung up, or an error
}
}  // namespace

// ---- AsioPooledConnection ----

AsioPooledConnection::AsioPooledConnection(std::shared_ptr<AsioPoolState> pool,
                                           std::unique_ptr<AsioPoolSlot> slot) noexcept
    : pool_(std::move(pool)), slot_(std::move(slot)) {}
AsioPooledConnection::AsioPooledConnection(AsioPooledConnection&& other) noexcept
    : pool_(std::move(other.pool_)), slot_(std::move(other.slot_)) {}
AsioPooledConnection& AsioPooledConnection::operator=(AsioPooledConnection&& other) noexcept {
    if (this != &other) {
        release();
        pool_ = std::move(other.pool_);
        slot_ = std::move(other.slot_);
    }
    return *this;
}
AsioPooledConnection::~AsioPooledConnection() { release(); }

AsioConnection& AsioPooledConnection::connection() {
    if (!slot_) throw Error(ErrorKind::usage, "pooled connection was released");
    return *slot_->conn;
}

asio::awaitable<std::reference_wrapper<Statement>> AsioPooledConnection::async_prepare(std::string sql) {
    AsioConnection& c = connection();
    auto it = slot_->statements.find(sql);
    if (it == slot_->statements.end()) it = slot_->statements.try_emplace(sql).first;
    AsioPoolSlot::Pooled& pooled = it->second;
    pooled.used = true;
    if (!pooled.statement) {
        pooled.statement.emplace(co_await c.async_prepare(std::move(sql)));
        ++pool_->stats.prepares;
    }
    co_return std::ref(*pooled.statement);
}

void AsioPooledConnection::release() noexcept {
    if (slot_) pool_->give_back(std::move(slot_));
    pool_.reset();
}

// ---- AsioPool ----

AsioPool::AsioPool(asio::any_io_executor executor, PoolOptions options)
    : state_(std::make_shared<AsioPoolState>(std::move(executor), std::move(options))) {
    const PoolOptions& o = state_->options;
    if (o.max_size == 0) throw Error(ErrorKind::usage, "pool max_size must be at least 1");
    if (o.min_idle > o.max_size) {
        throw Error(ErrorKind::usage, "pool min_idle (" + std::to_string(o.min_idle) +
                                          ") must not exceed max_size (" + std::to_string(o.max_size) + ")");
    }
}

AsioPool::~AsioPool() {
    state_->closing = true;
    state_->open -= state_->idle.size();
    state_->idle.clear();  // closes them (the server sees the sockets close)
}

asio::awaitable<void> AsioPool::async_open() {
    std::shared_ptr<AsioPoolState> st = state_;
    while (st->open < st->options.min_idle) {
        ++st->open;
        st->park(co_await st->connect_slot());
    }
}

asio::awaitable<AsioPooledConnection> AsioPool::async_borrow() {
    std::shared_ptr<AsioPoolState> st = state_;
    const PoolOptions& o = st->options;
    const Deadline until = Clock::now() + o.borrow_timeout;
    for (;;) {
        while (!st->idle.empty()) {
            std::unique_ptr<AsioPoolSlot> slot = std::move(st->idle.back());
            st->idle.pop_back();
            if (closed_while_idle(*slot->conn)) {
                st->lose(std::move(slot));
                continue;
            }
            if (Clock::now() - slot->idle_since >= o.ping_after_idle) {
                ++st->stats.pings;
                bool alive = true;
                try {
                    co_await slot->conn->async_ping();
                } catch (const Error&) {
                    alive = false;
                }
                if (!alive) {
                    st->lose(std::move(slot));
                    continue;
                }
            }
            ++st->stats.ready_borrows;
            co_return AsioPooledConnection(st, std::move(slot));
        }
        if (st->open < o.max_size) {
            ++st->open;
            co_return AsioPooledConnection(st, co_await st->connect_slot());
        }
        AsioPoolState::Waiter w(*st, st->executor);
        w.timer.expires_at(until);
        st->waiters.push_back(&w);
        std::error_code ec;
        co_await w.timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (w.slot) {
            ++st->stats.waited_borrows;
            co_return AsioPooledConnection(st, std::move(w.slot));
        }
        if (std::exchange(w.may_connect, false)) continue;
        if (Clock::now() >= until) {
            throw Error(ErrorKind::timeout, "no pooled connection became free within " +
                                                std::to_string(o.borrow_timeout.count()) + " ms (max_size " +
                                                std::to_string(o.max_size) + ")");
        }
    }
}

PoolStats AsioPool::stats() const {
    PoolStats s = state_->stats;
    s.open = state_->open;
    s.idle = state_->idle.size();
    return s;
}

const PoolOptions& AsioPool::options() const noexcept { return state_->options; }

}  // namespace sluice::mariadb
