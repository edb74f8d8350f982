#include "sluice/postgres/connection.hpp"

#include <poll.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <span>
#include <type_traits>

#include "codec.hpp"
#include "handle.hpp"
#include "sluice/postgres/copy.hpp"

// [[gnu::hot]]: what executing a prepared statement runs each time, placed
// with the rest of the per-statement path (see result.cpp).

namespace sluice::postgres {

namespace detail {

namespace {
std::string field(const PGresult* r, int code) {
    const char* v = PQresultErrorField(r, code);
    return v != nullptr ? v : "";
}

std::string trimmed(const char* message) {
    std::string s = message != nullptr ? message : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}
}  // namespace

ServerDiagnostics diagnostics_of(const PGresult* r) {
    ServerDiagnostics d;
    d.sqlstate = field(r, PG_DIAG_SQLSTATE);
    d.message = field(r, PG_DIAG_MESSAGE_PRIMARY);
    d.detail = field(r, PG_DIAG_MESSAGE_DETAIL);
    d.hint = field(r, PG_DIAG_MESSAGE_HINT);
    d.context = field(r, PG_DIAG_CONTEXT);
    const std::string position = field(r, PG_DIAG_STATEMENT_POSITION);
    d.position = position.empty() ? 0 : std::atoi(position.c_str());
    return d;
}

void throw_failure(PGconn* conn, const PGresult* r, const std::string& context) {
    // A result with a SQLSTATE is the server speaking; anything else (no
    // result, or an error libpq made up, e.g. the connection dropped) is the
    // connection failing.
    if (r != nullptr && !field(r, PG_DIAG_SQLSTATE).empty() && PQstatus(conn) == CONNECTION_OK)
        throw Error(diagnostics_of(r));
    throw Error(ErrorKind::connection, context + ": " + trimmed(PQerrorMessage(conn)));
}

std::vector<Column> columns_of(const PGresult* r) {
    std::vector<Column> columns;
    const int n = PQnfields(r);
    columns.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const char* name = PQfname(r, i);
        columns.push_back(Column{name != nullptr ? name : "", PQftype(r, i), PQftable(r, i), PQftablecol(r, i)});
    }
    return columns;
}

}  // namespace detail

namespace {


std::atomic<std::uint64_t> next_serial{1};

std::string describe_target(PGconn* c) {
    auto text = [](const char* s) { return std::string(s != nullptr ? s : ""); };
    std::string host = text(PQhost(c));
    if (host.empty() || host[0] == '/') host = host.empty() ? "localhost" : host;  // a socket directory
    return text(PQuser(c)) + "@" + host + ":" + text(PQport(c)) + "/" + text(PQdb(c));
}

[[gnu::hot]] bool succeeded(const PGresult* r) {
    if (r == nullptr) return false;
    const ExecStatusType s = PQresultStatus(r);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_SINGLE_TUPLE;
}

void notice_trampoline(void* arg, const PGresult* r) {
    auto* handler = static_cast<std::function<void(const ServerDiagnostics&)>*>(arg);
    if (*handler) (*handler)(detail::diagnostics_of(r));
}

// Parameters encoded for the server, kept alive for the libpq call. Up to
// kInline parameters live in the object itself, and each one's bytes in its
// EncodedParam or in the caller's Param: executing a statement then
// allocates nothing here.
class Encoded {
public:
    [[gnu::hot]] Encoded(std::span<const Param> given, const std::vector<Oid>* targets) : count_(given.size()) {
        if (count_ > kInline) {
            heap_params_ = std::make_unique<detail::EncodedParam[]>(count_);
            heap_types_ = std::make_unique<Oid[]>(count_);
            heap_values_ = std::make_unique<const char*[]>(count_);
            heap_lengths_ = std::make_unique<int[]>(count_);
            heap_formats_ = std::make_unique<int[]>(count_);
        }
        detail::EncodedParam* params = count_ > kInline ? heap_params_.get() : inline_params();
        Oid* types = count_ > kInline ? heap_types_.get() : types_;
        const char** values = count_ > kInline ? heap_values_.get() : values_;
        int* lengths = count_ > kInline ? heap_lengths_.get() : lengths_;
        int* formats = count_ > kInline ? heap_formats_.get() : formats_;
        for (std::size_t i = 0; i < count_; ++i) {
            // Constructed in place (the inline slots start raw: see below).
            new (params + i) detail::EncodedParam(
                detail::encode_param(given[i], targets != nullptr ? (*targets)[i] : 0, static_cast<int>(i + 1)));
            types[i] = params[i].type;
            values[i] = params[i].data();
            lengths[i] = static_cast<int>(params[i].length);
            formats[i] = params[i].format;
        }
    }
    Encoded(const Encoded&) = delete;
    Encoded& operator=(const Encoded&) = delete;

    int count() const { return static_cast<int>(count_); }
    const Oid* types() const { return count_ > kInline ? heap_types_.get() : types_; }
    const char* const* values() const { return count_ > kInline ? heap_values_.get() : values_; }
    const int* lengths() const { return count_ > kInline ? heap_lengths_.get() : lengths_; }
    const int* formats() const { return count_ > kInline ? heap_formats_.get() : formats_; }

private:
    static constexpr std::size_t kInline = 8;
    std::size_t count_;
    // Raw storage, not EncodedParam[kInline]: only the first count_ are
    // constructed, so a one-parameter statement initializes one, not eight.
    // EncodedParam is trivially destructible: nothing to destroy.
    static_assert(std::is_trivially_destructible_v<detail::EncodedParam>);
    detail::EncodedParam* inline_params() { return std::launder(reinterpret_cast<detail::EncodedParam*>(params_)); }
    alignas(detail::EncodedParam) unsigned char params_[kInline * sizeof(detail::EncodedParam)];
    Oid types_[kInline];
    const char* values_[kInline];
    int lengths_[kInline];
    int formats_[kInline];
    std::unique_ptr<detail::EncodedParam[]> heap_params_;
    std::unique_ptr<Oid[]> heap_types_;
    std::unique_ptr<const char*[]> heap_values_;
    std::unique_ptr<int[]> heap_lengths_;
    std::unique_ptr<int[]> heap_formats_;
};

}  // namespace

Connection::Connection(std::unique_ptr<Session> session) : session_(std::move(session)) {}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;
Connection::~Connection() = default;

Connection Connection::open(const std::string& conninfo) {
    auto session = std::make_unique<Session>();
    session->conn = PQconnectdb(conninfo.c_str());
    if (session->conn == nullptr) throw Error(ErrorKind::connection, "libpq could not allocate a connection");
    if (PQstatus(session->conn) != CONNECTION_OK) {
        // A string libpq could not parse leaves no target to name.
        const char* db = PQdb(session->conn);
        const std::string where = (db == nullptr || *db == '\0') ? std::string("connection string rejected")
                                                                   : "cannot connect to " + describe_target(session->conn);
        throw Error(ErrorKind::connection, where + ": " + detail::trimmed(PQerrorMessage(session->conn)));
    }
    session->serial = next_serial++;
    return Connection(std::move(session));
}

Connection Connection::from_environment(const std::optional<std::string>& url) {
    const char* env = std::getenv("DATABASE_URL");
    return open(resolve_conninfo(url, env != nullptr ? std::optional<std::string>(env) : std::nullopt));
}

[[gnu::hot]] void Connection::require_no_stream(const char* what) const {
    if (session_->streaming)
        throw Error(ErrorKind::usage, std::string(what) + " while a row stream is open on the connection");
}

void Connection::run_script(const std::string& sql) {
    require_no_stream("running a script");
    ResultPtr r(PQexec(session_->conn, sql.c_str()));
    if (!succeeded(r.get())) detail::throw_failure(session_->conn, r.get(), "running a script");
}

Result Connection::query(const std::string& sql, const std::vector<Param>& params, Format format) {
    require_no_stream("a query");
    Encoded e(params, nullptr);
    ResultPtr r(PQexecParams(session_->conn, sql.c_str(), e.count(), e.types(), e.values(),
                             e.lengths(), e.formats(), static_cast<int>(format)));
    if (!succeeded(r.get())) detail::throw_failure(session_->conn, r.get(), "query");
    return Result(r.release(), nullptr, format);
}

Statement Connection::prepare_named(const std::string& name, const std::string& sql,
                                    const std::vector<Oid>& param_types) {
    require_no_stream("preparing a statement");
    ResultPtr prepared(PQprepare(session_->conn, name.c_str(), sql.c_str(), static_cast<int>(param_types.size()),
                                 param_types.empty() ? nullptr : param_types.data()));
    if (!succeeded(prepared.get())) detail::throw_failure(session_->conn, prepared.get(), "prepare");
    ResultPtr described(PQdescribePrepared(session_->conn, name.c_str()));
    if (!succeeded(described.get())) detail::throw_failure(session_->conn, described.get(), "describe");
    Statement s;
    s.name_ = name;
    s.sql_ = sql;
    const int n = PQnparams(described.get());
    for (int i = 0; i < n; ++i) s.param_types_.push_back(PQparamtype(described.get(), i));
    s.columns_ = std::make_shared<const std::vector<Column>>(detail::columns_of(described.get()));
    s.connection_serial_ = session_->serial;
    return s;
}

Statement Connection::prepare(const std::string& sql, const std::vector<Oid>& param_types) {
    Statement s = prepare_named("sluice_" + std::to_string(session_->prepared + 1), sql, param_types);
    ++session_->prepared;
    return s;
}

Statement Connection::describe(const std::string& sql, const std::vector<Oid>& param_types) {
    Statement s = prepare_named("", sql, param_types);
    s.connection_serial_ = 0;  // the unnamed statement is replaced by the next query
    return s;
}

namespace {
[[gnu::hot]] void check_parameter_count(const Statement& s, std::size_t given) {
    if (s.param_types().size() != given)
        throw Error(ErrorKind::usage, "statement has " + std::to_string(s.param_types().size()) +
                                          " parameters, " + std::to_string(given) + " given: " + s.sql());
}
}  // namespace

[[gnu::hot]] Result Connection::execute(const Statement& s, std::span<const Param> params, Format format) {
    if (s.connection_serial_ != session_->serial)
        throw Error(ErrorKind::usage, "statement was not prepared on this connection: " + s.sql());
    check_parameter_count(s, params.size());
    require_no_stream("executing a statement");
    Encoded e(params, &s.param_types_);
    ResultPtr r(PQexecPrepared(session_->conn, s.name_.c_str(), e.count(), e.values(), e.lengths(),
                               e.formats(), static_cast<int>(format)));
    if (!succeeded(r.get())) detail::throw_failure(session_->conn, r.get(), "execute");
    // The described columns are the result's (a statement whose result type
    // changed fails with 0A000 instead); a statement described with none
    // (a FETCH, a utility statement) reads them from the result.
    const bool described = !s.columns_->empty() && PQnfields(r.get()) == static_cast<int>(s.columns_->size());
    return Result(r.release(), described ? s.columns_ : nullptr, format);
}

std::uint64_t Connection::stream(const Statement& s, const std::vector<Param>& params,
                                 const std::function<void(const Row&)>& on_row, Format format) {
    if (s.connection_serial_ != session_->serial)
        throw Error(ErrorKind::usage, "statement was not prepared on this connection: " + s.sql());
    check_parameter_count(s, params.size());
    require_no_stream("streaming a statement");
    Encoded e(params, &s.param_types_);
    PGconn* c = session_->conn;
    if (PQsendQueryPrepared(c, s.name_.c_str(), e.count(), e.values(), e.lengths(), e.formats(),
                            static_cast<int>(format)) == 0)
        detail::throw_failure(c, nullptr, "stream");
    PQsetSingleRowMode(c);
    auto columns = s.columns_;
    std::uint64_t rows = 0;
    ResultPtr failure;
    std::exception_ptr callback_error;
    for (;;) {
        ResultPtr r(PQgetResult(c));
        if (!r) break;
        const ExecStatusType status = PQresultStatus(r.get());
        if (status == PGRES_SINGLE_TUPLE && !callback_error) {
            const Result one(r.release(), columns, format);
            ++rows;
            try {
                on_row(one.row(0));
            } catch (...) {
                // Stop the server sending the rest; what is already on the
                // way is drained below so the connection stays usable.
                callback_error = std::current_exception();
                if (PGcancel* cancel = PQgetCancel(c)) {
                    char buffer[256];
                    PQcancel(cancel, buffer, sizeof buffer);
                    PQfreeCancel(cancel);
                }
            }
        } else if (!succeeded(r.get()) && !failure) {
            failure = std::move(r);
        }
    }
    if (callback_error) std::rethrow_exception(callback_error);
    if (failure) detail::throw_failure(c, failure.get(), "stream");
    return rows;
}

[[gnu::hot]] RowStream Connection::open_stream(const Statement& s, std::span<const Param> params, Format format) {
    if (s.connection_serial_ != session_->serial)
        throw Error(ErrorKind::usage, "statement was not prepared on this connection: " + s.sql());
    check_parameter_count(s, params.size());
    require_no_stream("streaming a statement");
    Encoded e(params, &s.param_types_);
    PGconn* c = session_->conn;
    if (PQsendQueryPrepared(c, s.name_.c_str(), e.count(), e.values(), e.lengths(), e.formats(),
                            static_cast<int>(format)) == 0)
        detail::throw_failure(c, nullptr, "stream");
    PQsetSingleRowMode(c);
    auto state = std::make_unique<RowStream::State>();
    state->conn = c;
    state->streaming = &session_->streaming;
    state->columns = s.columns_;
    state->format = format;
    session_->streaming = true;
    return RowStream(std::move(state));
}

bool Connection::in_transaction() const { return PQtransactionStatus(session_->conn) != PQTRANS_IDLE; }

void Connection::check_not_ended() {
    PGconn* c = session_->conn;
    // An idle connection has nothing to read unless the server spoke on its
    // own: a notice, or the FATAL before it closes (then EOF). libpq reads
    // what is there; a FATAL or the EOF leaves the connection bad.
    for (int round = 0; round < 4 && PQstatus(c) == CONNECTION_OK; ++round) {
        pollfd p{PQsocket(c), POLLIN, 0};
        if (p.fd < 0 || ::poll(&p, 1, 0) <= 0) return;
        // (A notification read here stays in libpq's queue, as after any
        // statement.)
        if (PQconsumeInput(c) == 0) break;
    }
    if (PQstatus(c) != CONNECTION_OK || PQsocket(c) < 0) {
        // libpq's first line ("server closed the connection unexpectedly");
        // the rest is its guess about why.
        std::string why = detail::trimmed(PQerrorMessage(c));
        why = why.substr(0, why.find('\n'));
        throw Error(ErrorKind::connection, "connection to " + describe_target(c) + " was ended by the server: " + why);
    }
}

CopyIn Connection::copy_in(const std::string& copy_sql) {
    require_no_stream("COPY");
    ResultPtr r(PQexec(session_->conn, copy_sql.c_str()));
    if (r == nullptr || PQresultStatus(r.get()) != PGRES_COPY_IN) {
        if (succeeded(r.get())) throw Error(ErrorKind::usage, "not a COPY ... FROM STDIN statement: " + copy_sql);
        detail::throw_failure(session_->conn, r.get(), "copy");
    }
    return CopyIn(*this);
}

void Connection::set_notice_handler(std::function<void(const ServerDiagnostics&)> handler) {
    session_->notice_handler = std::move(handler);
    if (!session_->custom_notices) {
        PQsetNoticeReceiver(session_->conn, notice_trampoline, &session_->notice_handler);
        session_->custom_notices = true;
    }
}

std::string Connection::target() const { return describe_target(session_->conn); }

std::uint64_t Connection::prepared_count() const noexcept { return session_->prepared; }

int Connection::server_version() const { return PQserverVersion(session_->conn); }

}  // namespace sluice::postgres
