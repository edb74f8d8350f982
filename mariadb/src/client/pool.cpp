#include "sluice/mariadb/pool.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "access.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

namespace detail {

struct PoolSlot {
    // Declared first, destroyed last: the statements refer to it.
    std::optional<Connection> conn;
    // Pooled statements by SQL; nullopt once a reset dropped them on the
    // server (prepared again on next use).
    std::map<std::string, std::optional<Statement>, std::less<>> statements;
    std::chrono::steady_clock::time_point idle_since;

    // The server forgot every statement (reset) or the connection is gone:
    // forget them without COM_STMT_CLOSE, keep their SQL.
    void forget_statements() noexcept {
        for (auto& [sql, stmt] : statements) {
            if (stmt) Access::detach(*stmt);
            stmt.reset();
        }
    }
};

}  // namespace detail

using detail::PoolSlot;
using Clock = std::chrono::steady_clock;

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
    if (it == slot_->statements.end()) it = slot_->statements.emplace(std::string(sql), std::nullopt).first;
    if (!it->second) {
        it->second.emplace(c.prepare(sql));
        std::lock_guard lock(pool_->mutex_);
        ++pool_->stats_.prepares;
    }
    return *it->second;
}

void PooledConnection::release() noexcept {
    if (slot_) pool_->give_back(std::move(slot_));
}

// ---- Pool ----

Pool::Pool(PoolOptions options) : options_(std::move(options)) {
    if (options_.max_size == 0) throw Error(ErrorKind::usage, "pool max_size must be at least 1");
}

Pool::~Pool() {
    std::vector<std::unique_ptr<PoolSlot>> idle;
    {
        std::lock_guard lock(mutex_);
        idle.swap(idle_);
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

PooledConnection Pool::borrow() {
    std::unique_ptr<PoolSlot> slot;
    {
        std::unique_lock lock(mutex_);
        const bool ready = returned_.wait_for(lock, options_.borrow_timeout,
                                              [&] { return !idle_.empty() || open_ < options_.max_size; });
        if (!ready) {
            throw Error(ErrorKind::timeout, "no pooled connection became free within " +
                                                std::to_string(options_.borrow_timeout.count()) + " ms (max_size " +
                                                std::to_string(options_.max_size) + ")");
        }
        if (!idle_.empty()) {
            slot = std::move(idle_.back());  // most recently used: warmest
            idle_.pop_back();
        } else {
            ++open_;  // reserved before connecting, outside the lock
        }
    }
    try {
        if (!slot) return PooledConnection(this, connect_slot());
        if (Clock::now() - slot->idle_since >= options_.ping_after_idle) {
            {
                std::lock_guard lock(mutex_);
                ++stats_.pings;
            }
            try {
                slot->conn->ping();
            } catch (const Error&) {
                slot->forget_statements();
                slot->conn.reset();
                slot = nullptr;
                {
                    std::lock_guard lock(mutex_);
                    ++stats_.replaced;
                }
                return PooledConnection(this, connect_slot());
            }
        }
        return PooledConnection(this, std::move(slot));
    } catch (...) {
        std::lock_guard lock(mutex_);
        --open_;
        returned_.notify_one();
        throw;
    }
}

bool Pool::reset(PoolSlot& slot) noexcept {
    Connection& c = *slot.conn;
    if (c.broken()) return false;
    slot.forget_statements();  // the reset drops them on the server
    const std::vector<std::string>& restore = options_.connect.init_commands;
    try {
        if (c.is_compressed()) {
            // Frames are numbered per command: no pipelining here.
            c.reset_session();
            for (const std::string& sql : restore) c.execute(sql);
            return true;
        }
        detail::Session& s = detail::Access::session(c);
        return s.guarded([&] {
            using namespace protocol;
            s.begin_command();
            PacketChannel& ch = s.chan();
            s.out.clear();
            Writer w(s.out);
            write_command(w, Command::reset_connection);
            ch.write_packet(s.out);
            for (const std::string& sql : restore) {
                ch.reset_sequence();
                s.out.clear();
                write_command(w, Command::query, sql);
                ch.write_packet(s.out);
            }
            ch.flush();  // one write for all of them
            bool ok = true;
            ch.expect_sequence(1);
            Bytes p = s.read();
            if (is_err(p)) {
                ok = false;
            } else {
                parse_ok(p, s.capabilities);
            }
            for (std::size_t i = 0; i < restore.size(); ++i) {
                ch.expect_sequence(1);
                try {
                    s.read_result_head(false);
                    s.drain();
                } catch (const Error& e) {
                    if (e.kind() != ErrorKind::server) throw;
                    ok = false;  // the server error ended that command; go on reading
                }
            }
            return ok;
        });
    } catch (const Error&) {
        return false;
    }
}

void Pool::discard(std::unique_ptr<PoolSlot> slot) noexcept {
    slot.reset();
    std::lock_guard lock(mutex_);
    --open_;
    returned_.notify_one();
}

void Pool::give_back(std::unique_ptr<PoolSlot> slot) noexcept {
    if (reset(*slot)) {
        slot->idle_since = Clock::now();
        std::lock_guard lock(mutex_);
        ++stats_.resets;
        idle_.push_back(std::move(slot));
        returned_.notify_one();
        return;
    }
    // Reset failed or the connection broke: a fresh connection takes its place.
    slot->forget_statements();
    slot->conn.reset();
    {
        std::lock_guard lock(mutex_);
        ++stats_.replaced;
    }
    try {
        std::unique_ptr<PoolSlot> fresh = connect_slot();
        fresh->idle_since = Clock::now();
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(fresh));
        returned_.notify_one();
    } catch (...) {
        // The server is unreachable now: the slot frees up, the next borrow
        // connects (and reports the error to a caller who can act on it).
        discard(std::move(slot));
    }
}

PoolStats Pool::stats() const {
    std::lock_guard lock(mutex_);
    PoolStats s = stats_;
    s.open = open_;
    s.idle = idle_.size();
    return s;
}

}  // namespace sluice::mariadb
