#include "sluice/mariadb/pool.hpp"

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/responses.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb {

namespace detail {

struct PoolSlot {
    struct Pooled {
        // nullopt once a reset dropped it on the server (prepared again on
        // next use, or by the return's pipeline).
        std::optional<Statement> statement;
        bool used = false;  // prepare()d during the current lease
    };
    using Statements = std::map<std::string, Pooled, std::less<>>;

    // Declared first, destroyed last: the statements refer to it.
    std::optional<Connection> conn;
    // Pooled statements by SQL (map nodes never move: the return's prepare
    // handlers point into it).
    Statements statements;
    std::chrono::steady_clock::time_point idle_since;

    // The return's pipeline (reset, restore, re-prepares): sent by the
    // return, its replies read by the next borrow before lending (Pipeline,
    // the one pipelining mechanism; kept from return to return, so a return
    // allocates nothing). Declared after `conn`: destroyed before it.
    std::optional<Pipeline> returning;
    bool pending = false;    // `returning` was sent and its replies are unread
    bool return_ok = false;  // the reset and every restore command succeeded
    std::size_t reprepared = 0;

    // The server forgot every statement (reset) or the connection is gone:
    // forget them without COM_STMT_CLOSE, keep their SQL.
    void forget_statements() noexcept {
        for (auto& [sql, pooled] : statements) {
            if (pooled.statement) pooled.statement->detach();
            pooled.statement.reset();
        }
    }
};

}  // namespace detail

using detail::PoolSlot;
using Clock = std::chrono::steady_clock;

namespace {
// Every reply has been read and the server sends nothing unasked, so a
// socket with something to read is one the server closed (KILL, restart,
// wait_timeout) or broke: one poll(2) finds it before the connection is
// lent, without waiting for ping_after_idle.
bool closed_while_idle(Connection& c) noexcept {
    if (c.broken()) return true;
    pollfd p{c.native_handle(), POLLIN, 0};
    int ready = 0;
    do {
        ready = ::poll(&p, 1, 0);
    } while (ready < 0 && errno == EINTR);
    return ready != 0;  // readable, hung up, or an error
}

// The most recent idle connections the ready check looks at (one poll(2)
// for all of them): enough for a loop alternating between a few connections,
// few enough that the check stays a microsecond under the pool's mutex.
constexpr std::size_t ready_window = 4;

// An idle connection is closed and forgotten (its statements without
// COM_STMT_CLOSE: the server dropped them).
void drop(PoolSlot& slot) noexcept {
    slot.returning.reset();  // before the connection it refers to
    slot.forget_statements();
    slot.conn.reset();
}
}  // namespace

// ---- PooledConnection ----

PooledConnection::PooledConnection(Pool* pool, std::unique_ptr<PoolSlot> slot) noexcept
    : pool_(pool), slot_(std::move(slot)) {}
PooledConnection::PooledConnection(PooledConnection&& other) noexcept
    : pool_(other.pool_), slot_(std::move(other.slot_)) {}
PooledConnection& PooledConnection::operator=(PooledConnection&& other) noexcept {
    if (this != &other) {
        release();
        pool_ = other.pool_;
        slot_ = std::move(other.slot_);
    }
    return *this;
}
PooledConnection::~PooledConnection() { release(); }

Connection& PooledConnection::connection() {
    if (!slot_) throw Error(ErrorKind::usage, "pooled connection was released");
    return *slot_->conn;
}

Statement& PooledConnection::prepare(std::string_view sql) {
    Connection& c = connection();
    auto it = slot_->statements.find(sql);
    if (it == slot_->statements.end()) it = slot_->statements.try_emplace(std::string(sql)).first;
    PoolSlot::Pooled& pooled = it->second;
    pooled.used = true;
    if (!pooled.statement) {
        pooled.statement.emplace(c.prepare(sql));
        std::lock_guard lock(pool_->mutex_);
        ++pool_->stats_.prepares;
    }
    return *pooled.statement;
}

void PooledConnection::release() noexcept {
    if (slot_) pool_->give_back(std::move(slot_));
}

// ---- Pool ----

Pool::Pool(PoolOptions options) : options_(std::move(options)) {
    if (options_.max_size == 0) throw Error(ErrorKind::usage, "pool max_size must be at least 1");
    if (options_.min_idle > options_.max_size) {
        throw Error(ErrorKind::usage, "pool min_idle (" + std::to_string(options_.min_idle) +
                                          ") must not exceed max_size (" + std::to_string(options_.max_size) + ")");
    }
    // Opened here rather than by the first borrow: the pool is warm before
    // the first request, and a connect error (wrong password, server down)
    // reaches the code that builds the pool instead of a request's latency.
    for (std::size_t i = 0; i < options_.min_idle; ++i) {
        std::unique_ptr<PoolSlot> slot = connect_slot();
        slot->idle_since = Clock::now();
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(slot));
        ++open_;
    }
}

Pool::~Pool() {
    std::vector<std::unique_ptr<PoolSlot>> idle;
    {
        std::lock_guard lock(mutex_);
        idle.swap(idle_);
    }
    // Replies still in flight are read first: closing a socket with unread
    // data resets the connection, and the server would count (and log) an
    // aborted client instead of a QUIT.
    for (auto& slot : idle) {
        if (slot->pending) settle(*slot);
    }
    // Statements close, then the connections send COM_QUIT.
}

std::unique_ptr<PoolSlot> Pool::connect_slot() {
    auto slot = std::make_unique<PoolSlot>();
    slot->conn.emplace(Connection::connect(options_.connect));
    std::lock_guard lock(mutex_);
    ++stats_.connects;
    return slot;
}

std::unique_ptr<PoolSlot> Pool::take_idle(std::vector<std::unique_ptr<PoolSlot>>& closed) {
    if (idle_.empty()) return nullptr;
    // Zero-timeout poll(2) under the mutex: it never blocks and costs about
    // a microsecond for the whole window, against a borrow's round trip.
    // Taking the candidates out to poll them unlocked would hide them from
    // concurrent borrowers (who would connect new ones or wait) and reorder
    // them when put back.
    //
    // A returned connection's replies can only be in the socket: the return
    // read every earlier reply before writing its pipeline, and nothing reads
    // between that write and the borrow's settle(), so neither the channel's
    // buffer nor OpenSSL's holds any of them; a readable socket is exact for
    // "some reply arrived" on TLS too. (Usually all of them: the first reply
    // is the reset's OK and the rest follow in the same few microseconds.)
    const std::size_t n = std::min(idle_.size(), ready_window);
    std::array<pollfd, ready_window> fds{};
    for (std::size_t i = 0; i < n; ++i) {
        Connection& c = *idle_[idle_.size() - 1 - i]->conn;
        fds[i] = pollfd{c.native_handle(), POLLIN, 0};  // -1 (broken) is skipped by poll
    }
    int polled = 0;
    do {
        polled = ::poll(fds.data(), n, 0);
    } while (polled < 0 && errno == EINTR);
    // A poll error leaves every candidate "not ready": the most recent is
    // taken and waited for, as before the ready check existed.
    std::unique_ptr<PoolSlot> chosen;
    bool ready = false;
    for (std::size_t i = 0; i < n; ++i) {
        std::unique_ptr<PoolSlot>& entry = idle_[idle_.size() - 1 - i];
        const bool readable = polled > 0 && fds[i].revents != 0;
        if (entry->pending) {
            // Readable: its replies arrived (or the server closed it, which
            // settle() finds at once): nothing to wait for either way.
            if (readable && !chosen) {
                chosen = std::move(entry);
                ready = true;
            }
        } else if (readable || entry->conn->broken()) {
            // Nothing pending, yet something to read: the server closed it.
            closed.push_back(std::move(entry));
        } else if (!chosen) {
            chosen = std::move(entry);
            ready = true;
        }
    }
    if (!chosen) {
        // None ready: the most recent left (warmest), replies awaited.
        for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
            if (*it) {
                chosen = std::move(*it);
                ready = !chosen->pending;
                break;
            }
        }
    }
    std::erase(idle_, nullptr);  // the taken and the closed, order kept
    open_ -= closed.size();
    stats_.replaced += closed.size();
    if (chosen) ++(ready ? stats_.ready_borrows : stats_.waited_borrows);
    return chosen;
}

PooledConnection Pool::borrow() {
    std::unique_ptr<PoolSlot> slot;
    std::vector<std::unique_ptr<PoolSlot>> closed;
    {
        std::unique_lock lock(mutex_);
        const bool ready = returned_.wait_for(lock, options_.borrow_timeout,
                                              [&] { return !idle_.empty() || open_ < options_.max_size; });
        if (!ready) {
            throw Error(ErrorKind::timeout, "no pooled connection became free within " +
                                                std::to_string(options_.borrow_timeout.count()) + " ms (max_size " +
                                                std::to_string(options_.max_size) + ")");
        }
        slot = take_idle(closed);
        // None idle (or only closed ones, no longer counted): a new one.
        if (!slot) ++open_;  // reserved before connecting, outside the lock
        if (!closed.empty()) returned_.notify_all();  // their places are free
    }
    for (auto& gone : closed) drop(*gone);  // outside the lock; min_idle refills at a return
    closed.clear();
    try {
        if (!slot) return PooledConnection(this, connect_slot());
        // The return's replies first: a connection whose reset or restore
        // failed is never lent, it is replaced.
        if (slot->pending && !settle(*slot)) return PooledConnection(this, replace(std::move(slot)));
        if (closed_while_idle(*slot->conn)) return PooledConnection(this, replace(std::move(slot)));
        if (Clock::now() - slot->idle_since >= options_.ping_after_idle) {
            {
                std::lock_guard lock(mutex_);
                ++stats_.pings;
            }
            try {
                slot->conn->ping();
            } catch (const Error&) {
                return PooledConnection(this, replace(std::move(slot)));
            }
        }
        for (auto& [sql, pooled] : slot->statements) pooled.used = false;
        return PooledConnection(this, std::move(slot));
    } catch (...) {
        std::lock_guard lock(mutex_);
        --open_;
        returned_.notify_one();
        throw;
    }
}

std::unique_ptr<PoolSlot> Pool::replace(std::unique_ptr<PoolSlot> slot) {
    drop(*slot);
    slot = nullptr;
    {
        std::lock_guard lock(mutex_);
        ++stats_.replaced;
    }
    return connect_slot();
}

bool Pool::send_reset(PoolSlot& slot) noexcept {
    Connection& c = *slot.conn;
    if (c.broken()) return false;
    slot.forget_statements();  // the reset drops them on the server
    const std::vector<std::string>& restore = options_.connect.init_commands;
    try {
        // Every step fits the pipeline's depth and byte window, so queueing
        // never waits for a reply: the return costs one write and no round
        // trip (compressed too: each command gets frames of its own,
        // numbered from 0). The replies wait in the socket for settle().
        std::size_t steps = 1 + restore.size();
        if (options_.prepare_on_return) {
            for (const auto& entry : slot.statements) steps += entry.second.used ? 1 : 0;
        }
        if (!slot.returning || slot.returning->options().max_depth < steps) {
            slot.returning.reset();
            PipelineOptions o;
            o.max_depth = std::max<std::size_t>(steps, 8);
            // The whole return goes out at once, as it always has: a few
            // short commands, far below the socket buffers.
            o.max_bytes_in_flight = std::numeric_limits<std::size_t>::max();
            slot.returning.emplace(c, o);
        }
        Pipeline& p = *slot.returning;
        PoolSlot* s = &slot;
        s->return_ok = true;
        s->reprepared = 0;
        // A server error ends its own step; the replies after it still
        // come, and every one is read (Pipeline's error rule).
        auto must_succeed = [s](StepResult& r) {
            if (r.failed()) s->return_ok = false;
        };
        p.reset_session(must_succeed);
        for (const std::string& sql : restore) p.query(sql, must_succeed);
        if (options_.prepare_on_return) {
            for (auto& entry : slot.statements) {
                if (!entry.second.used) continue;
                // A re-prepare the server refuses is left to the statement's
                // next use, which prepares it again and reports the error to
                // the borrower who uses it.
                p.prepare(entry.first, [s, e = &entry](StepResult& r) {
                    if (r.failed()) return;
                    e->second.statement.emplace(r.take_statement());
                    ++s->reprepared;
                });
            }
        }
        p.send();  // one write for all of them
        slot.pending = true;
        return true;
    } catch (const Error&) {
        return false;
    }
}

bool Pool::settle(PoolSlot& slot) noexcept {
    slot.pending = false;
    try {
        slot.returning->finish();
    } catch (const Error&) {
        return false;  // the connection broke: replaced, never lent
    }
    if (slot.reprepared > 0) {
        std::lock_guard lock(mutex_);
        stats_.prepares += slot.reprepared;
    }
    return slot.return_ok;
}

void Pool::top_up() noexcept {
    if (options_.min_idle == 0) return;
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (open_ >= options_.min_idle) return;
            ++open_;  // reserved, as a borrow does
        }
        try {
            park(connect_slot());
        } catch (...) {
            // Nobody waits on this connect: the error is dropped, and the
            // next borrow that has to connect meets (and reports) it.
            unreserve();
            return;
        }
    }
}

void Pool::give_back(std::unique_ptr<PoolSlot> slot) noexcept {
    give_back_slot(std::move(slot));
    top_up();  // only connects when a connection was lost below min_idle
}

void Pool::give_back_slot(std::unique_ptr<PoolSlot> slot) noexcept {
    if (send_reset(*slot)) {
        slot->idle_since = Clock::now();
        std::lock_guard lock(mutex_);
        ++stats_.resets;
        idle_.push_back(std::move(slot));
        returned_.notify_one();
        return;
    }
    // The connection broke (while lent, or writing the reset): a fresh
    // connection takes its place.
    try {
        park(replace(std::move(slot)));
    } catch (...) {
        // The server is unreachable now: the slot frees up, the next borrow
        // connects (and reports the error to a caller who can act on it).
        unreserve();
    }
}

void Pool::park(std::unique_ptr<PoolSlot> slot) {
    slot->idle_since = Clock::now();
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(slot));
    returned_.notify_one();
}

void Pool::unreserve() noexcept {
    std::lock_guard lock(mutex_);
    --open_;
    returned_.notify_one();
}

PoolStats Pool::stats() const {
    std::lock_guard lock(mutex_);
    PoolStats s = stats_;
    s.open = open_;
    s.idle = idle_.size();
    return s;
}

}  // namespace sluice::mariadb
