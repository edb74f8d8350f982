// The C ABI of keal_native_sql.h over sluice::postgres: what a native Keal
// program's embedded SQL calls. One connection per program; each statement
// site keeps its prepared statement (and, for loops whose body runs SQL,
// its DECLARE ... CURSOR per nesting depth) for the connection's life.
//
// Every failure ends the program: `FILE:LINE: error: message [SQLSTATE]` on
// stderr, exit status 1. The process state is never torn down by static
// destructors (an open stream would be read to its end first); an atexit
// handler closes the connection cleanly when no statement is running.
#include "keal_native_sql.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/postgres/connection.hpp"

// [[gnu::hot]] marks what runs once per statement or row: GCC places those
// functions together (.text.hot), with the layer's own, so a query's path
// touches a few code pages rather than a dozen spread over the program (a
// client that waited on the server resumes with cold caches and TLB).

// What a loop or a `query one` reads: a whole result (query one, a cursor's
// batch) or a stream's current row.
struct keal_nsql_rows {
    const keal_nsql_site* site = nullptr;
    std::optional<sluice::postgres::Result> batch;  // query one, cursor loops
    int index = -1;                                 // the current row in batch
    std::optional<sluice::postgres::Row> current;   // batch's row `index`, made once per row
    std::optional<sluice::postgres::RowStream> stream;
    const sluice::postgres::Row* streamed = nullptr;  // the stream's current row
    bool cancel_on_close = false;                     // stream: stopping early may cancel
    int cursor_depth = -1;                            // cursor loops
    bool exhausted = false;
    bool owned = true;  // false for the per-site `query one` holder

    const sluice::postgres::Row& row() const { return streamed != nullptr ? *streamed : *current; }
    // Makes batch's row `i` the current one.
    void at(int i) {
        index = i;
        current.emplace(batch->row(i));
    }
};

namespace {

namespace pg = sluice::postgres;

constexpr int kCursorBatch = 1000;

struct SiteState {
    std::optional<pg::Statement> statement;          // exec, query one, streamed loops
    std::unique_ptr<keal_nsql_rows> one;             // what `query one` returns, reused
    bool columns_checked = false;                    // the declared row was compared once
    std::vector<std::optional<pg::Statement>> declare;  // per cursor depth
};

struct CursorStatements {
    pg::Statement fetch;
    pg::Statement close;
};

struct Runtime {
    std::string source = "program.keal";
    std::vector<SiteState> sites;
    std::optional<pg::Connection> conn;
    std::optional<pg::CancelRequest> cancel;
    std::vector<std::optional<CursorStatements>> cursors;  // per depth
    int open_cursors = 0;
    int busy = 0;  // statements in flight (a streamed loop counts while open)
    bool trace = false;
};

[[gnu::hot]] Runtime& rt() {
    static Runtime* r = new Runtime();  // never destroyed: see the top of the file
    return *r;
}

volatile std::sig_atomic_t interrupted = 0;

[[noreturn]] void fail_at(int line, const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s:%d: error: %s\n", rt().source.c_str(), line, message.c_str());
    std::fflush(stderr);
    // _exit, not exit: an open stream must not be read to its end, and the
    // server rolls back what the lost connection had open.
    _exit(1);
}

[[noreturn]] void fail_with(int line, const pg::Error& e) {
    if (e.kind() == pg::ErrorKind::connection && interrupted)
        fail_at(line, "interrupted (SIGINT): " + std::string(e.what()));
    fail_at(line, e.what());
}

void on_sigint(int) {
    Runtime& r = rt();
    if (r.busy > 0 && r.cancel && !interrupted) {
        interrupted = 1;
        r.cancel->send();
        // A second SIGINT ends the program at once.
        std::signal(SIGINT, SIG_DFL);
        return;
    }
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
}

void close_at_exit() {
    Runtime& r = rt();
    if (r.busy == 0) r.conn.reset();  // a clean Terminate; else the kernel closes the socket
}

pg::Connection& connection(int line) {
    Runtime& r = rt();
    if (!r.conn) {
        try {
            r.conn.emplace(pg::Connection::from_environment());
            r.conn->set_notice_handler({});
            r.cancel.emplace(r.conn->cancel_request());
        } catch (const pg::Error& e) {
            fail_at(line, e.what());
        }
        struct sigaction sa {};
        sa.sa_handler = on_sigint;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, nullptr);
        std::atexit(close_at_exit);
    }
    return *r.conn;
}

pg::Oid param_oid(unsigned char kind) {
    switch (kind) {
        case KEAL_NSQL_INT: return pg::type_oid::int8;
        case KEAL_NSQL_FLOAT: return pg::type_oid::float8;
        case KEAL_NSQL_BOOL: return pg::type_oid::boolean;
        case KEAL_NSQL_BYTES: return pg::type_oid::bytea;
        default: return pg::type_oid::text;
    }
}

std::vector<pg::Oid> param_oids(const keal_nsql_site* site) {
    std::vector<pg::Oid> oids;
    for (int i = 0; i < site->nparams; ++i) oids.push_back(param_oid(site->param_kinds[i]));
    return oids;
}

[[gnu::hot]] pg::Param param_of(unsigned char kind, const keal_nsql_param& p) {
    if (p.is_null) return pg::Param(nullptr);
    switch (kind) {
        case KEAL_NSQL_INT: return pg::Param(static_cast<long long>(p.i));
        case KEAL_NSQL_FLOAT: return pg::Param(p.f);
        case KEAL_NSQL_BOOL: return pg::Param(p.i != 0);
        case KEAL_NSQL_BYTES:
            return pg::Param(pg::Bytes(reinterpret_cast<const std::uint8_t*>(p.ptr),
                                       reinterpret_cast<const std::uint8_t*>(p.ptr) + p.len));
        default: return pg::Param(std::string_view(p.ptr, static_cast<std::size_t>(p.len)));
    }
}

// A statement's parameters as the layer takes them, built on the stack for
// up to kInline of them: a statement executed in a loop allocates nothing
// for its integer, float and bool parameters.
class Params {
public:
    [[gnu::hot]] Params(const keal_nsql_site* site, const keal_nsql_param* given) : count_(static_cast<std::size_t>(site->nparams)) {
        pg::Param* at = count_ <= kInline ? inline_params() : nullptr;
        if (at == nullptr) [[unlikely]] {
            on_heap(site, given);
            return;
        }
        for (std::size_t i = 0; i < count_; ++i) {
            new (at + i) pg::Param(param_of(site->param_kinds[i], given[i]));
            built_ = i + 1;
        }
    }
    [[gnu::hot]] ~Params() {
        for (std::size_t i = 0; i < built_; ++i) inline_params()[i].~Param();
    }
    Params(const Params&) = delete;
    Params& operator=(const Params&) = delete;

    std::span<const pg::Param> span() const {
        return count_ <= kInline ? std::span<const pg::Param>(inline_params(), count_) : std::span<const pg::Param>(heap_);
    }

private:
    static constexpr std::size_t kInline = 8;
    [[gnu::noinline]] void on_heap(const keal_nsql_site* site, const keal_nsql_param* given) {
        heap_.reserve(count_);
        for (std::size_t i = 0; i < count_; ++i) heap_.push_back(param_of(site->param_kinds[i], given[i]));
    }
    pg::Param* inline_params() const { return std::launder(reinterpret_cast<pg::Param*>(storage_)); }

    std::size_t count_;
    std::size_t built_ = 0;
    alignas(pg::Param) mutable unsigned char storage_[kInline * sizeof(pg::Param)];
    std::vector<pg::Param> heap_;
};

const char* kind_name(unsigned char kind) {
    switch (kind) {
        case KEAL_NSQL_INT: return "int";
        case KEAL_NSQL_FLOAT: return "float";
        case KEAL_NSQL_BOOL: return "bool";
        case KEAL_NSQL_CHAR: return "char";
        case KEAL_NSQL_BYTES: return "bytes";
        default: return "text";
    }
}

bool type_fits(unsigned char kind, pg::Oid type) {
    namespace t = pg::type_oid;
    switch (kind) {
        case KEAL_NSQL_INT: return type == t::int8 || type == t::int4 || type == t::int2;
        case KEAL_NSQL_FLOAT: return type == t::float8 || type == t::float4;
        case KEAL_NSQL_BOOL: return type == t::boolean;
        case KEAL_NSQL_BYTES: return type == t::bytea;
        default: return type == t::text || type == t::varchar || type == t::bpchar || type == t::name;
    }
}

// The described columns against the declared row (as the PostgreSQL
// target's keal_spi_check_columns words it), once per site and connection.
void check_columns(const keal_nsql_site* site, const std::vector<pg::Column>& columns) {
    SiteState& s = rt().sites[static_cast<std::size_t>(site->id)];
    if (s.columns_checked) return;
    const int n = static_cast<int>(columns.size());
    if (n != site->ncolumns)
        fail_at(site->line, "the query returns " + std::to_string(n) + (n == 1 ? " column" : " columns") + ", but " +
                                std::to_string(site->ncolumns) + (site->ncolumns == 1 ? " is" : " are") +
                                " declared [42804]");
    for (int i = 0; i < n; ++i) {
        if (!type_fits(site->column_kinds[i], columns[static_cast<std::size_t>(i)].type))
            fail_at(site->line, "column " + std::to_string(i + 1) + " (" + site->column_names[i] + ") of the query is " +
                                    pg::type_name(columns[static_cast<std::size_t>(i)].type) + ", but it is declared " +
                                    kind_name(site->column_kinds[i]) + " [42804]");
    }
    s.columns_checked = true;
}

void traced(int line) {
    if (rt().trace) std::fprintf(stderr, "keal: prepared %s:%d\n", rt().source.c_str(), line);
}

// A statement in flight: SIGINT then cancels it on the server.
struct Busy {
    Busy() { ++rt().busy; }
    ~Busy() { --rt().busy; }
};

// Prepares the site's statement: once per connection, kept out of the hot
// path below.
[[gnu::noinline]] void prepare_site(const keal_nsql_site* site, SiteState& s) {
    {
        pg::Connection& c = connection(site->line);
        Busy busy;
        try {
            s.statement.emplace(c.prepare(site->sql, param_oids(site)));
        } catch (const pg::Error& e) {
            fail_with(site->line, e);
        }
        traced(site->line);
        if (site->ncolumns > 0) check_columns(site, s.statement->columns());
    }
}

// The site's own prepared statement (exec, query one, streamed loops).
[[gnu::hot]] const pg::Statement& statement(const keal_nsql_site* site) {
    SiteState& s = rt().sites[static_cast<std::size_t>(site->id)];
    if (!s.statement) [[unlikely]]
        prepare_site(site, s);
    return *s.statement;
}

std::string cursor_name(int depth) { return "keal_cursor_" + std::to_string(depth); }

}  // namespace

namespace {

[[gnu::hot]] keal_nsql_rows* one_holder(const keal_nsql_site* site) {
    auto& h = rt().sites[static_cast<std::size_t>(site->id)].one;
    if (!h) {
        h = std::make_unique<keal_nsql_rows>();
        h->owned = false;
    }
    return h.get();
}

template <class F>
auto read_field(const keal_nsql_rows* rows, F read) {
    try {
        return read(rows->row());
    } catch (const pg::Error& e) {
        fail_with(rows->site->line, e);
    }
}

}  // namespace

extern "C" {

void keal_nsql_start(const char* source_file, int site_count) {
    Runtime& r = rt();
    r.source = source_file;
    r.sites.resize(static_cast<std::size_t>(site_count));
    const char* trace = std::getenv("KEAL_SQL_TRACE");
    r.trace = trace != nullptr && *trace != '\0' && std::strcmp(trace, "0") != 0;
}

[[gnu::hot]] void keal_nsql_exec(const keal_nsql_site* site, const keal_nsql_param* params) {
    const pg::Statement& s = statement(site);
    Busy busy;
    try {
        rt().conn->execute(s, Params(site, params).span());
    } catch (const pg::Error& e) {
        fail_with(site->line, e);
    }
}

[[gnu::hot]] keal_nsql_rows* keal_nsql_one(const keal_nsql_site* site, const keal_nsql_param* params) {
    const pg::Statement& s = statement(site);
    keal_nsql_rows* rows = one_holder(site);
    rows->site = site;
    {
        Busy busy;
        try {
            rows->batch.emplace(rt().conn->execute(s, Params(site, params).span(), pg::Format::binary));
        } catch (const pg::Error& e) {
            fail_with(site->line, e);
        }
    }
    if (rows->batch->empty()) fail_at(site->line, "query returned no rows [P0002]");
    if (rows->batch->size() > 1) fail_at(site->line, "query returned more than one row [P0003]");
    rows->at(0);
    return rows;
}

keal_nsql_rows* keal_nsql_open(const keal_nsql_site* site, const keal_nsql_param* params, int cursor) {
    Runtime& r = rt();
    auto rows = std::make_unique<keal_nsql_rows>();
    rows->site = site;
    if (!cursor) {
        const pg::Statement& s = statement(site);
        // Stopping a stream early may cancel it only when the cancel's error
        // cannot abort anything the program relies on.
        rows->cancel_on_close = !r.conn->in_transaction() && !site->may_write;
        try {
            rows->stream.emplace(r.conn->open_stream(s, Params(site, params).span(), pg::Format::binary));
        } catch (const pg::Error& e) {
            fail_with(site->line, e);
        }
        ++r.busy;
        return rows.release();
    }
    pg::Connection& c = connection(site->line);
    SiteState& state = r.sites[static_cast<std::size_t>(site->id)];
    const int depth = r.open_cursors;
    Busy busy;
    try {
        if (!state.columns_checked) check_columns(site, c.describe(site->sql, param_oids(site)).columns());
        if (state.declare.size() <= static_cast<std::size_t>(depth)) state.declare.resize(static_cast<std::size_t>(depth) + 1);
        auto& declare = state.declare[static_cast<std::size_t>(depth)];
        if (!declare) {
            // WITH HOLD: the cursor outlives a COMMIT the body runs, and
            // works outside a transaction block.
            declare.emplace(c.prepare("DECLARE " + cursor_name(depth) + " NO SCROLL CURSOR WITH HOLD FOR " + site->sql,
                                      param_oids(site)));
            traced(site->line);
        }
        if (r.cursors.size() <= static_cast<std::size_t>(depth)) r.cursors.resize(static_cast<std::size_t>(depth) + 1);
        auto& fc = r.cursors[static_cast<std::size_t>(depth)];
        if (!fc) {
            fc.emplace(CursorStatements{c.prepare("FETCH FORWARD " + std::to_string(kCursorBatch) + " FROM " + cursor_name(depth)),
                                        c.prepare("CLOSE " + cursor_name(depth))});
        }
        c.execute(*declare, Params(site, params).span());
    } catch (const pg::Error& e) {
        fail_with(site->line, e);
    }
    rows->cursor_depth = depth;
    ++r.open_cursors;
    return rows.release();
}

[[gnu::hot]] int keal_nsql_next(keal_nsql_rows* rows) {
    Runtime& r = rt();
    const int line = rows->site->line;
    if (rows->exhausted) return 0;
    if (interrupted) fail_at(line, "canceling statement due to user request (SIGINT) [57014]");
    if (rows->stream) {
        try {
            rows->streamed = rows->stream->next();
        } catch (const pg::Error& e) {
            fail_with(line, e);
        }
        if (rows->streamed == nullptr) rows->exhausted = true;
        return rows->streamed != nullptr;
    }
    if (rows->batch && rows->index + 1 < rows->batch->size()) {
        rows->at(rows->index + 1);
        return 1;
    }
    if (rows->batch && rows->batch->size() < kCursorBatch) {
        rows->exhausted = true;
        return 0;
    }
    try {
        Busy busy;
        rows->batch.emplace(r.conn->execute(r.cursors[static_cast<std::size_t>(rows->cursor_depth)]->fetch, {},
                                            pg::Format::binary));
    } catch (const pg::Error& e) {
        fail_with(line, e);
    }
    if (rows->batch->empty()) {
        rows->current.reset();
        rows->exhausted = true;
        return 0;
    }
    rows->at(0);
    return 1;
}

[[gnu::hot]] void keal_nsql_close(keal_nsql_rows* rows) {
    Runtime& r = rt();
    if (rows->stream) {
        rows->streamed = nullptr;
        rows->stream->close(rows->cancel_on_close && !rows->exhausted);
        rows->stream.reset();
        --r.busy;
    } else if (rows->cursor_depth >= 0) {
        rows->current.reset();
        rows->batch.reset();
        try {
            r.conn->execute(r.cursors[static_cast<std::size_t>(rows->cursor_depth)]->close);
        } catch (const pg::Error& e) {
            fail_with(rows->site->line, e);
        }
        --r.open_cursors;
    }
    if (interrupted) fail_at(rows->site->line, "canceling statement due to user request (SIGINT) [57014]");
    if (rows->owned) {
        delete rows;
    } else {
        rows->current.reset();
        rows->batch.reset();
    }
}

[[gnu::hot]] int keal_nsql_is_null(const keal_nsql_rows* rows, int column) {
    return read_field(rows, [&](const pg::Row& row) { return row.is_null(column) ? 1 : 0; });
}

// Each reader checks for NULL itself (22004, keal_nsql_null): the emitted
// code then asks keal_nsql_is_null only for a column declared nullable, and
// a non-null column costs one call.
[[gnu::hot]] int64_t keal_nsql_int(const keal_nsql_rows* rows, int column) {
    const auto v = read_field(rows, [&](const pg::Row& row) { return row.get<std::optional<std::int64_t>>(column); });
    if (!v) [[unlikely]]
        keal_nsql_null(rows, column);
    return *v;
}

[[gnu::hot]] double keal_nsql_float(const keal_nsql_rows* rows, int column) {
    const auto v = read_field(rows, [&](const pg::Row& row) { return row.get<std::optional<double>>(column); });
    if (!v) [[unlikely]]
        keal_nsql_null(rows, column);
    return *v;
}

[[gnu::hot]] int keal_nsql_bool(const keal_nsql_rows* rows, int column) {
    const auto v = read_field(rows, [&](const pg::Row& row) { return row.get<std::optional<bool>>(column); });
    if (!v) [[unlikely]]
        keal_nsql_null(rows, column);
    return *v ? 1 : 0;
}

[[gnu::hot]] const char* keal_nsql_bytes(const keal_nsql_rows* rows, int column, int64_t* len) {
    // bytea's binary form is the bytes themselves; text is checked as text.
    const bool bytes = rows->site->column_kinds[column] == KEAL_NSQL_BYTES;
    const std::optional<std::string_view> v = read_field(rows, [&](const pg::Row& row) {
        return bytes ? row.raw(column) : row.get<std::optional<std::string_view>>(column);
    });
    if (!v) [[unlikely]]
        keal_nsql_null(rows, column);
    *len = static_cast<int64_t>(v->size());
    return v->data();
}

void keal_nsql_null(const keal_nsql_rows* rows, int column) {
    const keal_nsql_site* site = rows->site;
    const char* declared = kind_name(site->column_kinds[column]);
    fail_at(site->line, std::string("column ") + site->column_names[column] + " of the query is NULL, but it is declared " +
                            declared + "; declare it " + declared + "? to accept NULL [22004]");
}

}  // extern "C"
