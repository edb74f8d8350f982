// AsioConnection: waits for AsyncConnection's descriptor through the
// executor's reactor (a ReactorSocket, which never owns the fd),
// with one steady_timer for the earliest deadline, and sends KILL QUERY
// from a side AsioConnection when a statement deadline passes or cancel()
// is called.
#include "sluice/mariadb/asio_connection.hpp"

#include <asio/co_spawn.hpp>
#include <asio/compose.hpp>
#include <asio/post.hpp>
#include <asio/detached.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "handler_memory.hpp"
#include "reactor_socket.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {

namespace {
// Whether the operation just driven had a KILL QUERY sent for it, and why.
struct Killed {
    bool sent = false;
    bool by_deadline = false;
};
}  // namespace

struct AsioConnection::State : std::enable_shared_from_this<AsioConnection::State> {
    explicit State(asio::any_io_executor ex) : executor(ex), descriptor(ex), timer(ex), kill_done(ex) {}

    asio::any_io_executor executor;
    AsyncConnection conn;
    // Never owns the fd; reads wait for the reactor once a read left the
    // socket empty (reactor_socket.hpp).
    detail::ReactorSocket descriptor;
    int assigned_fd = -1;
    asio::steady_timer timer;
    // Operation memory reused across waits (see handler_memory.hpp): the
    // descriptor's one wait; the timer's wait and the cancelled one before it.
    detail::HandlerMemory<1> socket_memory;
    detail::HandlerMemory<2> timer_memory;
    bool timer_armed = false;
    Deadline timer_at{};
    bool woken = false;  // the timer or cancel() interrupted a wait
    // Statement deadlines and cancellation.
    bool cancel_requested = false;
    bool kill_sent = false;
    int kills_in_flight = 0;
    asio::steady_timer kill_done;
    std::string kill_error;

    void wake() {
        woken = true;
        if (descriptor.is_open()) descriptor.cancel();
    }

    void arm(Deadline at) {
        if (at == Deadline::max()) return;
        // An earlier timer still covers a later deadline: it wakes the loop
        // early, which finds nothing due and waits again (no re-arming per
        // packet within an operation as the read deadline moves on).
        if (timer_armed && timer_at <= at) return;
        timer_armed = true;
        timer_at = at;
        timer.expires_at(at);
        // The handler keeps the state (and timer_memory) alive until the
        // wait ends: release_timer_if_idle() cancels it once no operation
        // follows.
        timer.async_wait(detail::WithMemory(
            [self = shared_from_this()](const std::error_code& ec) {
                if (ec) return;  // cancelled
                self->timer_armed = false;
                self->wake();
            },
            timer_memory));
    }

    // The non-blocking connect waited for writability, which left the
    // descriptor registered with the reactor for EPOLLOUT too (asio never
    // removes it): every ACK of a request then woke the reactor for nothing.
    // Requests are small and go out in one send(), so after the login the
    // descriptor is registered afresh, for reading only (a write that has
    // to wait adds EPOLLOUT back).
    void register_for_reading() {
        if (descriptor.is_open()) descriptor.release();
        assigned_fd = -1;
        watch_descriptor();
    }

    // Keeps `descriptor` on AsyncConnection's current fd (none once closed).
    void watch_descriptor() {
        const int fd = conn.fd();
        if (fd == assigned_fd) return;
        if (descriptor.is_open()) descriptor.release();
        assigned_fd = fd;
        if (fd >= 0) descriptor.assign(fd);
    }

    void start_kill() {
        if (kill_sent) return;
        kill_sent = true;
        ++kills_in_flight;
        ConnectOptions side = conn.options();
        side.init_commands.clear();
        const std::uint32_t id = conn.connection_id();
        asio::co_spawn(
            executor,
            [self = shared_from_this(), side, id]() -> asio::awaitable<void> {
                try {
                    AsioConnection killer = co_await AsioConnection::connect(self->executor, side);
                    co_await killer.async_execute("KILL QUERY " + std::to_string(id));
                    co_await killer.async_close();
                    self->kill_error.clear();
                } catch (const Error& e) {
                    self->kill_error = e.what();
                }
                if (--self->kills_in_flight == 0) self->kill_done.cancel();
            },
            asio::detached);
    }

    // A KILL still on its way would hit the next statement: wait for it
    // first, as QueryDeadline's disarm() does.
    asio::awaitable<void> wait_for_kills() {
        while (kills_in_flight > 0) {
            kill_done.expires_at(Deadline::max());
            std::error_code ec;
            co_await kill_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    // Starts the operation and drives it until it ends; `deadline` (zero:
    // none) triggers KILL QUERY. Not a coroutine: the operation starts when
    // the co_await on it evaluates, and the driving is a composed operation
    // (Drive below) whose state moves from one socket wait to the next, so
    // an operation costs no coroutine frame beyond its caller's.
    template <class Start>
    asio::awaitable<Killed> run(Start&& start, std::chrono::milliseconds deadline) {
        if (kills_in_flight > 0) return run_after_kills(std::function<void(AsyncConnection&)>(start), deadline);
        start(conn);
        return drive(deadline_after(deadline));
    }

    // A KILL QUERY of the previous operation still on its way (rare): wait
    // for it, then as run().
    asio::awaitable<Killed> run_after_kills(std::function<void(AsyncConnection&)> start,
                                            std::chrono::milliseconds deadline) {
        co_await wait_for_kills();
        start(conn);
        co_return co_await drive(deadline_after(deadline));
    }

    asio::awaitable<Killed> drive(Deadline statement_deadline) {
        cancel_requested = false;
        kill_sent = false;
        return asio::async_compose<const asio::use_awaitable_t<>&, void(Killed)>(
            Drive{shared_from_this(), statement_deadline}, asio::use_awaitable, executor);
    }

    // One step per call: handles what the last wait ended with, then waits
    // again (or completes when the operation is over).
    struct Drive {
        // Kept alive by the operation: socket_memory is freed after the
        // last wait's handler has run.
        std::shared_ptr<State> state;
        Deadline statement_deadline;
        enum class Waited { nothing, read, readiness } waited = Waited::nothing;

        template <class Self>
        void operator()(Self& self, std::error_code ec = {}, std::size_t n = 0) {
            State& s = *state;
            AsyncConnection& conn = s.conn;
            const bool interrupted = s.woken || ec == asio::error::operation_aborted;
            switch (std::exchange(waited, Waited::nothing)) {
                case Waited::read:
                    if (interrupted) {
                        conn.on_deadline();  // nothing unless the transport's deadline passed
                    } else if (ec == asio::error::eof) {
                        conn.on_received(0);
                    } else if (ec) {
                        conn.on_read_error(ec.value());
                    } else {
                        conn.on_received(n);
                    }
                    break;
                case Waited::readiness:
                    if (interrupted) {
                        conn.on_deadline();
                    } else {
                        conn.on_ready();
                    }
                    break;
                case Waited::nothing:
                    if (!conn.busy()) {
                        // Over before any wait (a close of a broken
                        // connection): completing inline would resume the
                        // caller inside its own co_await.
                        s.end_drive();
                        // `keep` first: moving `self` moves this Drive's `state`.
                        asio::post(s.executor, [keep = state, killed = s.killed(), self = std::move(self)]() mutable {
                            self.complete(killed);
                            keep->release_timer_if_idle();
                        });
                        return;
                    }
                    break;
            }
            // A connection that broke closed its socket just now: let go of
            // the descriptor before another socket can reuse its number.
            s.watch_descriptor();
            if (!conn.busy()) {
                s.end_drive();
                // `self`, and this Drive with it, are gone after complete().
                const std::shared_ptr<State> keep = state;
                self.complete(keep->killed());
                keep->release_timer_if_idle();
                return;
            }
            const bool kill_due = !s.kill_sent && (s.cancel_requested || (statement_deadline != Deadline::max() &&
                                                                          Clock::now() >= statement_deadline));
            if (kill_due) s.start_kill();
            if (!s.kill_sent) s.arm(std::min(conn.deadline(), statement_deadline));
            s.arm(conn.deadline());
            s.woken = false;
            // Plain TCP: the reactor reads, on the edge the descriptor is
            // registered for once. A readiness wait re-arms the descriptor
            // with epoll_ctl every time.
            if (std::span<std::uint8_t> into = conn.readable_into(); !into.empty()) {
                waited = Waited::read;
                s.descriptor.async_read_some(into.data(), into.size(),
                                             detail::WithMemory(std::move(self), s.socket_memory));
            } else {
                waited = Waited::readiness;
                s.descriptor.async_wait((conn.wants() & AsyncConnection::writable) != 0,
                                        detail::WithMemory(std::move(self), s.socket_memory));
            }
        }
    };

    Killed killed() const noexcept { return Killed{kill_sent, kill_sent && !cancel_requested}; }

    void end_drive() { watch_descriptor(); }

    // Called once an operation's completion has run. The caller usually
    // resumed inline and started its next operation, whose (later) deadline
    // the armed timer still covers: the timer stays, and a query costs no
    // timer insert, cancel and cancelled handler. A connection left idle
    // lets it go: an armed timer is pending work, which would keep the
    // executor's run() going until the deadline long after the last
    // operation ended.
    void release_timer_if_idle() {
        if (timer_armed && !conn.busy()) {
            timer.cancel();
            timer_armed = false;
        }
    }
};

namespace {
// A statement its KILL QUERY interrupted fails as a whole, even when the
// ERR came after some rows (the partial result is not handed out), and one
// its deadline killed reads as with_deadline's error.
template <class F>
auto finish_killable(AsyncConnection& conn, Killed killed, std::chrono::milliseconds after, F&& take)
    -> decltype(take()) {
    try {
        auto outcome = take();
        if constexpr (std::is_same_v<decltype(outcome), ResultSet>) {
            if (killed.sent && conn.response_error_code() == 1317) {
                // Walk to the ERR, so it is thrown with the server's words.
                do {
                    while (outcome.next()) {
                    }
                } while (outcome.next_result());
            }
        }
        return outcome;
    } catch (const Error& e) {
        if (killed.by_deadline && e.kind() == ErrorKind::server && e.server_code() == 1317) {
            throw Error(ErrorKind::timeout, "statement passed its deadline of " + std::to_string(after.count()) +
                                                " ms and was cancelled with KILL QUERY (connection still usable)");
        }
        throw;
    }
}
}  // namespace

AsioConnection::AsioConnection(std::shared_ptr<State> state) noexcept : state_(std::move(state)) {}

AsioConnection::State& AsioConnection::st() const {
    if (!state_) throw Error(ErrorKind::usage, "connection was moved from");
    return *state_;
}
AsioConnection::AsioConnection(AsioConnection&&) noexcept = default;
AsioConnection& AsioConnection::operator=(AsioConnection&&) noexcept = default;
AsioConnection::~AsioConnection() = default;

asio::awaitable<AsioConnection> AsioConnection::connect(asio::any_io_executor executor, ConnectOptions options) {
    auto state = std::make_shared<State>(executor);
    co_await state->run([&](AsyncConnection& c) { c.start_connect(options); }, {});
    state->conn.finish();
    state->register_for_reading();
    co_return AsioConnection(std::move(state));
}

asio::awaitable<ResultSet> AsioConnection::async_query(std::string sql, std::chrono::milliseconds deadline) {
    const Killed killed = co_await st().run([&](AsyncConnection& c) { c.start_query(sql); }, deadline);
    co_return finish_killable(state_->conn, killed, deadline, [&] { return st().conn.take_result(); });
}

asio::awaitable<OkInfo> AsioConnection::async_execute(std::string sql, std::chrono::milliseconds deadline) {
    const Killed killed = co_await st().run([&](AsyncConnection& c) { c.start_query(sql); }, deadline);
    co_return finish_killable(state_->conn, killed, deadline, [&] {
        ResultSet rs = st().conn.take_result();
        OkInfo last;
        do {
            while (rs.next()) {
            }
            last = rs.ok();
        } while (rs.next_result());
        return last;
    });
}

asio::awaitable<Statement> AsioConnection::async_prepare(std::string sql) {
    co_await st().run([&](AsyncConnection& c) { c.start_prepare(sql); }, {});
    co_return st().conn.take_statement();
}

asio::awaitable<ResultSet> AsioConnection::async_execute_values(Statement& statement,
                                                                std::vector<protocol::ParamValue> values,
                                                                std::chrono::milliseconds deadline) {
    const Killed killed =
        co_await st().run([&](AsyncConnection& c) { c.start_execute(statement, values); }, deadline);
    co_return finish_killable(state_->conn, killed, deadline, [&] { return st().conn.take_result(); });
}

asio::awaitable<void> AsioConnection::async_ping() {
    co_await st().run([](AsyncConnection& c) { c.start_ping(); }, {});
    st().conn.finish();
}

asio::awaitable<void> AsioConnection::async_reset_session() {
    co_await st().run([](AsyncConnection& c) { c.start_reset_session(); }, {});
    st().conn.finish();
}

asio::awaitable<PipelineSummary> AsioConnection::async_pipeline(AsyncPipeline& pipeline) {
    co_await st().run([&](AsyncConnection& c) { c.start_pipeline(pipeline); }, {});
    co_return st().conn.take_pipeline_summary();
}

asio::awaitable<void> AsioConnection::async_close() {
    co_await st().run([](AsyncConnection& c) { c.start_close(); }, {});
    st().conn.finish();
}

void AsioConnection::cancel() {
    if (!state_ || !st().conn.busy()) return;
    state_->cancel_requested = true;
    state_->wake();
}

bool AsioConnection::broken() const noexcept { return !state_ || st().conn.broken(); }
bool AsioConnection::is_tls() const noexcept { return state_ && st().conn.is_tls(); }
bool AsioConnection::is_compressed() const noexcept { return state_ && st().conn.is_compressed(); }
std::uint32_t AsioConnection::connection_id() const noexcept { return state_ ? st().conn.connection_id() : 0; }
std::string AsioConnection::kill_error() const { return state_ ? state_->kill_error : std::string(); }
AsyncConnection& AsioConnection::async_connection() { return st().conn; }

}  // namespace sluice::mariadb
