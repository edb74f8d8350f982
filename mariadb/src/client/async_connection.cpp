// AsyncConnection: the exchanges of src/client/exchange/ driven by
// readiness. One operation at a time; its steps run in advance() until one
// has to wait, which sets wants() and deadline().
#include "sluice/mariadb/async_connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "async_pipeline.hpp"
#include "async_resolver.hpp"
#include "session.hpp"
#include "sluice/mariadb/async_pipeline.hpp"
#include "sluice/mariadb/exchange/commands.hpp"
#include "sluice/mariadb/exchange/login.hpp"
#include "sluice/mariadb/exchange/response_scanner.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"
#include "sluice/mariadb/transport/socket.hpp"
#include "sluice/mariadb/transport/tls.hpp"

namespace sluice::mariadb {

using exchange::Step;
using protocol::Bytes;

using Address = detail::ResolvedAddress;

struct AsyncConnection::Impl {
    enum class Op { none, connect, init_command, query, execute, prepare, simple, pipeline, close };
    enum class Stage { resolve, tcp, tls, exchange };

    std::unique_ptr<detail::Session> session = std::make_unique<detail::Session>();
    Socket socket;
    std::optional<TlsSession> tls;
    std::optional<PacketFramer> framer;

    Op op = Op::none;
    Stage stage = Stage::exchange;
    Step step = Step::done;
    unsigned wants = none;
    Deadline deadline = Deadline::max();
    std::exception_ptr error;

    // connect
    std::string peer;
    // A host name's lookup (none for a numeric address or a unix socket):
    // kept until the connect ends, so the socket never takes the number of
    // the eventfd a loop may still watch.
    std::optional<detail::AsyncResolver> resolver;
    std::vector<Address> addresses;
    std::size_t next_address = 0;
    int connecting_fd = -1;
    std::optional<exchange::LoginExchange> login;
    std::size_t next_init_command = 0;
    // the exchanges of the other operations
    bool command_sent = false;
    bool outbox_framed = false;
    bool awaiting_reply = false;  // a write just finished: wait before reading
    std::optional<exchange::ResponseScanner> scanner;
    std::optional<exchange::PrepareExchange> prepare;
    std::optional<exchange::SimpleCommand> simple;
    detail::Replay replay;
    bool binary = false;
    std::shared_ptr<std::vector<Column>>* statement_columns = nullptr;
    // the pipeline under way (src/client/async_pipeline.cpp)
    std::optional<detail::AsyncPipelineRun> pipeline_run;
    // outcomes
    std::optional<ResultSet> result;
    std::optional<Statement> statement;
    std::optional<PipelineSummary> summary;

    // `statement` (declared last) goes first: its close is deferred into
    // the session, which is still alive then.
    ~Impl() {
        if (connecting_fd >= 0) ::close(connecting_fd);
    }

    const ConnectOptions& o() const noexcept { return session->options; }

    // --- starting -----------------------------------------------------------
    void begin(Op what) {
        if (op != Op::none) throw Error(ErrorKind::usage, "an operation is already under way on this connection");
        error = nullptr;
        result.reset();
        statement.reset();
        summary.reset();
        op = what;
        step = Step::done;
        wants = none;
        deadline = Deadline::max();
        command_sent = false;
        outbox_framed = false;
        awaiting_reply = false;
    }

    // A command on a logged-in connection: the previous response is
    // dropped, deferred statement closes go first.
    void begin_command(Op what) {
        session->check_usable();
        if (!framer) throw Error(ErrorKind::usage, "AsyncConnection is not connected");
        begin(what);
        session->replay = nullptr;
        replay.clear();
        session->result.reset();
        ++session->result.generation;
        for (std::uint32_t id : session->deferred_closes) {
            session->outbox.add(true, [&](protocol::Writer& w) {
                protocol::write_statement_command(w, protocol::Command::stmt_close, id);
            });
        }
        session->deferred_closes.clear();
        scanner.reset();
        stage = Stage::exchange;
    }

    void start_response(bool binary_rows, std::shared_ptr<std::vector<Column>>* columns) {
        binary = binary_rows;
        statement_columns = columns;
        scanner.emplace(session->capabilities, session->deprecate_eof);
        step = Step::write;
        advance();
    }

    // --- driving -------------------------------------------------------------
    void wait(unsigned events, std::chrono::milliseconds timeout) {
        wants = events;
        if (deadline == Deadline::max()) deadline = deadline_after(timeout);
    }
    void progressed() noexcept { deadline = Deadline::max(); }

    void advance() {
        try {
            run();
        } catch (const Error& e) {
            fail(e);
        } catch (const std::bad_alloc&) {
            fail(Error(ErrorKind::io, "out of memory"));
        }
    }

    void run() {
        wants = none;
        for (;;) {
            if (op == Op::none) return;
            if (stage == Stage::resolve) {
                if (!resolver->done()) {
                    wait(readable, o().timeouts.connect);
                    return;
                }
                addresses = resolver->take();
                progressed();
                stage = Stage::tcp;
                continue;
            }
            if (stage == Stage::tcp) {
                if (!continue_tcp()) return;
                continue;
            }
            if (stage == Stage::tls) {
                const TlsWant want = tls->continue_handshake();
                if (want != TlsWant::none) {
                    wait(want == TlsWant::read ? readable : writable, o().timeouts.read);
                    return;
                }
                progressed();
                stage = Stage::exchange;
                step = resume({}, false);
                continue;
            }
            switch (step) {
                case Step::read: {
                    if (std::optional<Bytes> p = framer->next_packet()) {
                        progressed();
                        step = resume(*p, true);
                        break;
                    }
                    // Right after a request went out its reply cannot be
                    // here yet: wait instead of a recv() that would say
                    // EAGAIN (one syscall less per round trip).
                    const unsigned need = std::exchange(awaiting_reply, false) ? readable : receive();
                    if (need != none) {
                        wait(need, o().timeouts.read);
                        return;
                    }
                    break;
                }
                case Step::write: {
                    if (!outbox_framed) {
                        for (const exchange::Outbox::Packet& p : session->outbox.packets()) {
                            if (p.new_command) framer->reset_sequence();
                            framer->write_packet(session->outbox.payload(p));
                        }
                        session->outbox.clear();
                        outbox_framed = true;
                    }
                    const unsigned need = send();
                    if (need != none) {
                        wait(need, o().timeouts.write);
                        return;
                    }
                    progressed();
                    outbox_framed = false;
                    awaiting_reply = true;
                    step = resume({}, false);
                    break;
                }
                case Step::start_tls:
                    tls.emplace(TlsSession::start(socket, login->tls_options(), login->tls_host()));
                    stage = Stage::tls;
                    break;
                case Step::compress:
                    // The login's OK was the last uncompressed packet.
                    framer->enable_compression(login->compress_threshold());
                    step = resume({}, false);
                    break;
                case Step::done:
                    complete();
                    if (op == Op::none) return;
                    break;
            }
        }
    }

    // Reads what the socket has into the framer; the events to wait for
    // when it has nothing.
    unsigned receive() {
        std::span<std::uint8_t> space = framer->input_space();
        if (tls) {
            TlsWant want = TlsWant::none;
            const std::size_t n = tls->try_read(space, want);
            if (n > 0) {
                framer->received(n);
                return none;
            }
            return want == TlsWant::write ? writable : readable;
        }
        for (;;) {
            const ssize_t n = ::recv(socket.fd(), space.data(), space.size(), 0);
            if (n > 0) {
                framer->received(static_cast<std::size_t>(n));
                return none;
            }
            if (n == 0) throw Error(ErrorKind::closed, "connection to " + peer + " closed by the server");
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return readable;
            if (errno == ECONNRESET) throw Error(ErrorKind::closed, "connection to " + peer + " reset by the server");
            throw Error(ErrorKind::io, "read from " + peer + " failed: " + std::strerror(errno));
        }
    }

    unsigned send() {
        for (;;) {
            std::span<const std::uint8_t> out = framer->output();
            if (out.empty()) return none;
            if (tls) {
                TlsWant want = TlsWant::none;
                const std::size_t n = tls->try_write(out, want);
                if (n == 0) return want == TlsWant::read ? readable : writable;
                framer->sent(n);
                continue;
            }
            const ssize_t n = ::send(socket.fd(), out.data(), out.size(), MSG_NOSIGNAL);
            if (n >= 0) {
                framer->sent(static_cast<std::size_t>(n));
                continue;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return writable;
            if (errno == EPIPE || errno == ECONNRESET) {
                throw Error(ErrorKind::closed, "connection to " + peer + " closed by the server");
            }
            throw Error(ErrorKind::io, "write to " + peer + " failed: " + std::strerror(errno));
        }
    }

    // The running exchange's resume: after a read with the packet
    // (is_packet), after a write or the TLS handshake without.
    Step resume(Bytes p, bool is_packet) {
        switch (op) {
            case Op::connect: return login->resume(session->outbox, p);
            case Op::init_command:
            case Op::query:
            case Op::execute:
                if (!is_packet && !command_sent) {
                    command_sent = true;
                    return Step::read;
                }
                if (is_packet) replay.add(p);
                return scanner->resume(session->outbox, p);
            case Op::prepare: return prepare->resume(p);
            case Op::simple: return simple->resume(p);
            case Op::pipeline: return pipeline_run->resume(session->outbox, p, is_packet);
            case Op::close: return Step::done;
            case Op::none: break;
        }
        throw Error(ErrorKind::usage, "AsyncConnection resumed without an operation");
    }

    // --- TCP / unix connect --------------------------------------------------
    void resolve() {
        addresses.clear();
        next_address = 0;
        if (!o().unix_socket.empty()) {
            peer = o().unix_socket;
            Address a;
            auto* un = reinterpret_cast<sockaddr_un*>(&a.storage);
            un->sun_family = AF_UNIX;
            if (peer.size() >= sizeof un->sun_path) {
                throw Error(ErrorKind::usage, "unix socket path '" + peer + "' is empty or longer than " +
                                                  std::to_string(sizeof un->sun_path - 1) + " bytes");
            }
            std::memcpy(un->sun_path, peer.data(), peer.size());
            a.length = sizeof(sockaddr_un);
            a.family = AF_UNIX;
            addresses.push_back(a);
            stage = Stage::tcp;
            return;
        }
        peer = o().host + ":" + std::to_string(o().port);
        resolver.emplace(o().host, o().port, detail::connection_lookup());
        stage = Stage::resolve;
    }

    // True once connected (the login starts); false when it waits.
    bool continue_tcp() {
        std::string last_error = "cannot connect to " + peer + ": no address";
        for (;;) {
            if (connecting_fd >= 0) {
                int so_error = 0;
                socklen_t len = sizeof so_error;
                ::getsockopt(connecting_fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
                if (so_error == EINPROGRESS || so_error == EALREADY) {
                    wait(writable, o().timeouts.connect);
                    return false;
                }
                if (so_error == 0) {
                    const int fd = std::exchange(connecting_fd, -1);
                    connected(fd);
                    return true;
                }
                ::close(std::exchange(connecting_fd, -1));
                last_error = "cannot connect to " + peer + ": " + std::strerror(so_error);
            }
            if (next_address == addresses.size()) throw Error(ErrorKind::io, last_error);
            const Address& a = addresses[next_address++];
            const int fd = ::socket(a.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) throw Error(ErrorKind::io, "cannot create a socket for " + peer + ": " + std::strerror(errno));
            if (::connect(fd, reinterpret_cast<const sockaddr*>(&a.storage), a.length) == 0) {
                connected(fd);
                return true;
            }
            if (errno == EINPROGRESS || errno == EAGAIN) {
                connecting_fd = fd;
                wait(writable, o().timeouts.connect);
                return false;
            }
            last_error = "cannot connect to " + peer + ": " + std::strerror(errno);
            ::close(fd);
        }
    }

    void connected(int fd) {
        progressed();
        if (o().unix_socket.empty()) {
            const int one = 1;
            // Small request/response packets must not wait for Nagle's algorithm.
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        socket = Socket::adopt(fd, peer);
        const PeerLocality locality = !o().unix_socket.empty()    ? PeerLocality::unix_socket
                                      : socket.peer_is_loopback() ? PeerLocality::loopback
                                                                  : PeerLocality::network;
        framer.emplace(peer, o().max_packet_size);
        login.emplace(o(), locality, peer);
        stage = Stage::exchange;
        step = login->start(session->outbox);
    }

    // --- endings ---------------------------------------------------------------
    void complete() {
        switch (op) {
            case Op::connect: {
                const exchange::LoginOutcome& done = login->outcome();
                detail::Session& s = *session;
                s.connection_id = done.connection_id;
                s.server_version = done.server_version;
                s.capabilities = done.capabilities;
                s.deprecate_eof = done.deprecate_eof;
                s.result.set_connection(done.capabilities, done.deprecate_eof);
                s.result.server_status = done.server_status;
                login.reset();
                resolver.reset();
                next_init_command = 0;
                next_init();
                return;
            }
            case Op::init_command: {
                ResultSet rs = read_response();
                rs.discard();
                next_init();
                return;
            }
            case Op::query:
            case Op::execute:
                op = Op::none;
                result.emplace(read_response());
                return;
            case Op::prepare:
                op = Op::none;
                statement.emplace(session.get(), prepare->statement_id, std::move(prepare->params),
                                  std::move(prepare->columns));
                return;
            case Op::simple: op = Op::none; return;
            case Op::pipeline: {
                op = Op::none;
                error = pipeline_run->handler_error();
                PipelineSummary done = pipeline_run->finish();
                pipeline_run.reset();
                if (!error) summary = std::move(done);
                return;
            }
            case Op::close:
                op = Op::none;
                session->mark_broken("connection was closed");
                close_transport();
                return;
            case Op::none: return;
        }
    }

    // Hands the response read ahead to the session's ResultReader: the
    // blocking API's ResultSet over it, errors as a blocking query's.
    ResultSet read_response() {
        detail::Session& s = *session;
        if (const std::string& name = scanner->refused_local_infile(); !name.empty()) {
            // The refusal's final reply is the last packet read; an ERR in it
            // is the server's word.
            Bytes reply = replay.ends.empty() ? Bytes{} : (replay.next = replay.ends.size() - 1, replay.take());
            if (protocol::is_err(reply)) protocol::throw_server_error(reply);
            throw Error(ErrorKind::usage, "server requested LOCAL INFILE '" + name +
                                              "', which is not the source registered for this statement: "
                                              "refused, nothing was read");
        }
        s.replay = &replay;
        s.read_result_head(binary, statement_columns);
        return ResultSet(&s, s.result.generation);
    }

    void next_init() {
        const std::vector<std::string>& commands = o().init_commands;
        if (next_init_command == commands.size()) {
            op = Op::none;
            return;
        }
        const std::string& sql = commands[next_init_command++];
        op = Op::none;
        begin_command(Op::init_command);
        exchange::write_query(session->outbox, sql);
        binary = false;
        statement_columns = nullptr;
        scanner.emplace(session->capabilities, session->deprecate_eof);
        step = Step::write;
    }

    void fail(const Error& failure) {
        detail::Session& s = *session;
        // A pipeline's breakage names how far it got, as the blocking one's.
        const Error e = op == Op::pipeline && pipeline_run ? pipeline_run->broken(failure) : failure;
        pipeline_run.reset();
        s.on_error(e);
        if (s.is_broken || (op == Op::connect || op == Op::init_command)) {
            if (!s.is_broken) s.mark_broken(e.what());
            close_transport();
        }
        if (s.lacks_peer(e)) {
            error = std::make_exception_ptr(s.naming_peer(e));
        } else {
            error = std::make_exception_ptr(e);
        }
        op = Op::none;
        wants = none;
        deadline = Deadline::max();
        s.replay = nullptr;
    }

    void close_transport() noexcept {
        if (tls) tls->shutdown();
        tls.reset();
        socket.close();
        if (connecting_fd >= 0) ::close(std::exchange(connecting_fd, -1));
        resolver.reset();
    }

    void rethrow() {
        if (std::exception_ptr e = std::exchange(error, nullptr)) std::rethrow_exception(e);
    }
    void check_finished() const {
        if (op != Op::none) throw Error(ErrorKind::usage, "the operation is still under way");
    }
};

AsyncConnection::AsyncConnection() : impl_(std::make_unique<Impl>()) {}
AsyncConnection::AsyncConnection(AsyncConnection&&) noexcept = default;
AsyncConnection& AsyncConnection::operator=(AsyncConnection&&) noexcept = default;
AsyncConnection::~AsyncConnection() {
    if (impl_) impl_->close_transport();
}

void AsyncConnection::start_connect(const ConnectOptions& options) {
    Impl& im = *impl_;
    if (im.framer || im.session->is_broken) throw Error(ErrorKind::usage, "AsyncConnection connects only once");
    im.begin(Impl::Op::connect);
    im.session->options = options;
    try {
        im.resolve();
    } catch (const Error& e) {
        im.fail(e);
        return;
    }
    im.advance();
}

void AsyncConnection::start_query(std::string_view sql) {
    Impl& im = *impl_;
    im.begin_command(Impl::Op::query);
    exchange::write_query(im.session->outbox, sql);
    im.start_response(false, nullptr);
}

void AsyncConnection::start_execute(const Statement& statement, std::span<const protocol::ParamValue> values) {
    Impl& im = *impl_;
    Statement& stmt = const_cast<Statement&>(statement);  // its column cache is updated by the result
    if (stmt.closed() || &stmt.session() != im.session.get()) {
        throw Error(ErrorKind::usage, "statement does not belong to this AsyncConnection");
    }
    if (values.size() != stmt.param_count()) {
        throw Error(ErrorKind::usage, "statement has " + std::to_string(stmt.param_count()) + " parameters, " +
                                          std::to_string(values.size()) + " values given");
    }
    im.begin_command(Impl::Op::execute);
    exchange::write_execute(im.session->outbox, stmt.id(), values, im.o().long_data_threshold);
    im.start_response(true, &stmt.columns_);
}

void AsyncConnection::start_prepare(std::string_view sql) {
    Impl& im = *impl_;
    im.begin_command(Impl::Op::prepare);
    im.prepare.emplace(im.session->capabilities, im.session->deprecate_eof);
    im.step = im.prepare->start(im.session->outbox, sql);
    im.advance();
}

void AsyncConnection::start_ping() {
    Impl& im = *impl_;
    im.begin_command(Impl::Op::simple);
    im.simple.emplace(im.session->capabilities);
    im.step = im.simple->start(im.session->outbox, protocol::Command::ping);
    im.advance();
}

void AsyncConnection::start_reset_session() {
    Impl& im = *impl_;
    im.begin_command(Impl::Op::simple);
    im.simple.emplace(im.session->capabilities);
    im.step = im.simple->start(im.session->outbox, protocol::Command::reset_connection);
    im.advance();
}

void AsyncConnection::start_pipeline(AsyncPipeline& pipeline) {
    Impl& im = *impl_;
    if (pipeline.session_ != im.session.get()) {
        throw Error(ErrorKind::usage, "pipeline belongs to another AsyncConnection");
    }
    // The framer inflates frames as they arrive, and each pipelined reply
    // restarts the frame numbers: it could only follow them reply by reply.
    if (im.framer && im.framer->is_compressed()) {
        throw Error(ErrorKind::usage,
                    "an AsyncPipeline cannot run on a compressed connection (compress=true): run the blocking Pipeline, "
                    "or connect without compression");
    }
    im.begin_command(Impl::Op::pipeline);
    im.pipeline_run.emplace(pipeline.pipeline_, *im.session, *im.framer);
    try {
        im.step = im.pipeline_run->start(im.session->outbox);
    } catch (const Error& e) {
        im.fail(e);
        return;
    }
    im.advance();
}

AsyncPipeline::AsyncPipeline(AsyncConnection& conn, PipelineOptions options)
    : session_(conn.impl_->session.get()), pipeline_(*conn.impl_->session, options, Pipeline::ReadAhead{}) {}

void AsyncConnection::start_close() {
    Impl& im = *impl_;
    if (im.session->is_broken || !im.framer) {
        im.begin(Impl::Op::close);
        im.complete();
        return;
    }
    im.begin_command(Impl::Op::close);
    im.session->outbox.add(true, [](protocol::Writer& w) { protocol::write_command(w, protocol::Command::quit); });
    im.step = Step::write;
    im.advance();
}

bool AsyncConnection::busy() const noexcept { return impl_->op != Impl::Op::none; }
int AsyncConnection::fd() const noexcept {
    if (impl_->stage == Impl::Stage::resolve && impl_->resolver) return impl_->resolver->fd();
    return impl_->connecting_fd >= 0 ? impl_->connecting_fd : impl_->socket.fd();
}
unsigned AsyncConnection::wants() const noexcept { return busy() ? impl_->wants : none; }
Deadline AsyncConnection::deadline() const noexcept { return busy() ? impl_->deadline : Deadline::max(); }

void AsyncConnection::on_ready() {
    if (busy()) impl_->advance();
}

std::span<std::uint8_t> AsyncConnection::readable_into() {
    Impl& im = *impl_;
    if (!busy() || im.tls || im.stage != Impl::Stage::exchange || !(im.wants & readable) || !im.framer) return {};
    return im.framer->input_space();
}

void AsyncConnection::on_received(std::size_t n) {
    Impl& im = *impl_;
    if (!busy()) return;
    if (n == 0) {
        im.fail(Error(ErrorKind::closed, "connection to " + im.peer + " closed by the server"));
        return;
    }
    im.framer->received(n);
    im.awaiting_reply = false;
    im.advance();
}

void AsyncConnection::on_read_error(int error_number) {
    Impl& im = *impl_;
    if (!busy()) return;
    if (error_number == ECONNRESET) {
        im.fail(Error(ErrorKind::closed, "connection to " + im.peer + " reset by the server"));
    } else {
        im.fail(Error(ErrorKind::io, "read from " + im.peer + " failed: " + std::strerror(error_number)));
    }
}

void AsyncConnection::on_deadline() {
    Impl& im = *impl_;
    if (!busy() || im.deadline == Deadline::max() || Clock::now() < im.deadline) return;
    if (im.stage == Impl::Stage::resolve) {
        im.fail(Error(ErrorKind::timeout, "connect to " + im.peer + " timed out looking up the host name"));
    } else if (im.stage == Impl::Stage::tcp) {
        im.fail(Error(ErrorKind::timeout, "connect to " + im.peer + " timed out"));
    } else if (im.wants & writable) {
        im.fail(Error(ErrorKind::timeout, "write to " + im.peer + " timed out"));
    } else {
        im.fail(Error(ErrorKind::timeout, "read from " + im.peer + " timed out"));
    }
}

void AsyncConnection::abort(const std::string& reason) {
    if (busy()) impl_->fail(Error(ErrorKind::io, reason));
}

void AsyncConnection::finish() {
    impl_->check_finished();
    impl_->rethrow();
}

ResultSet AsyncConnection::take_result() {
    finish();
    if (!impl_->result) throw Error(ErrorKind::usage, "the last operation gave no result set");
    ResultSet rs = *impl_->result;
    impl_->result.reset();
    return rs;
}

Statement AsyncConnection::take_statement() {
    finish();
    if (!impl_->statement) throw Error(ErrorKind::usage, "the last operation gave no statement");
    Statement st = std::move(*impl_->statement);
    impl_->statement.reset();
    return st;
}

PipelineSummary AsyncConnection::take_pipeline_summary() {
    finish();
    if (!impl_->summary) throw Error(ErrorKind::usage, "the last operation was no pipeline");
    PipelineSummary s = std::move(*impl_->summary);
    impl_->summary.reset();
    return s;
}

std::uint16_t AsyncConnection::response_error_code() const noexcept {
    return impl_->scanner ? impl_->scanner->final_error_code() : 0;
}

void AsyncConnection::forget_statement(Statement& statement) noexcept {
    if (!statement.closed() && &statement.session() == impl_->session.get()) {
        statement.detach();
    }
}

bool AsyncConnection::broken() const noexcept { return impl_->session->is_broken || !impl_->framer; }
bool AsyncConnection::is_tls() const noexcept { return impl_->tls.has_value(); }
bool AsyncConnection::is_compressed() const noexcept { return impl_->framer && impl_->framer->is_compressed(); }
std::uint32_t AsyncConnection::connection_id() const noexcept { return impl_->session->connection_id; }
std::string_view AsyncConnection::server_version() const noexcept { return impl_->session->server_version; }
std::uint64_t AsyncConnection::capabilities() const noexcept { return impl_->session->capabilities; }
const ConnectOptions& AsyncConnection::options() const { return impl_->session->options; }

}  // namespace sluice::mariadb
