// keal_servers_bench: the reference's two three-server tables, with the same
// Keal source (programs/servers.keal) built for all three servers.
//
//   calls    20,000 prepared `SELECT steps(?)` on one connection through each
//            server's C API: PostgreSQL (libpq), MariaDB (sluice's client,
//            and Connector/C as the control), SQLite (in process).
//   collatz  sum(steps(n)) over 300,000 rows: PL/pgSQL, Keal and C on
//            PostgreSQL; a SQL/PSM stored function and the Keal UDF on
//            MariaDB; a C function this program registers and the Keal
//            extension on SQLite.
//   agg      the variance of 3,000,000 bigints from a checked count, sum and
//            sum of squares: the Keal aggregate (programs/servers.keal),
//            the same in C (c/variance.c, CREATE AGGREGATE with C
//            functions), in PL/pgSQL, and the built-in SQL expression, on
//            PostgreSQL without parallel workers ("agg") and with
//            max_parallel_workers_per_gather = 2 ("agg parallel", with the
//            Keal aggregate's EXPLAIN captured); on SQLite the Keal
//            aggregate against a hand-written C one ("agg sqlite").
//   srf      a set-returning function yielding 1,000,000 rows (i, i * i),
//            summed by SQL: the Keal rows function (programs/series.keal),
//            a C SRF (c/series.c, value per call with funcapi.h) and
//            PL/pgSQL's RETURN NEXT, on PostgreSQL ("srf"); on SQLite the
//            same Keal source as a table-valued function against a
//            hand-written C virtual table (sqlite_series_c.cpp) and a
//            recursive CTE ("srf sqlite").
//
// Every contender of a table must return the same sum before any is timed.
// Rounds interleave the contenders (round-robin), so a noisy neighbour hurts
// them all alike; the best of the rounds (and the median) are reported, with
// the ratios the issue asks for, and written to a JSON capture that
// scripts/bench/render_keal_servers.py renders.
//
// Servers: the private servers named by --env FILE (scripts/servers/start
// --only mariadb,postgres; scripts/bench/run_keal_servers.sh starts them).
#include <libpq-fe.h>
#include <mysql.h>
#include <sqlite3.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sqlite_series_c.hpp"

#ifndef KEAL_EXE
#error "KEAL_EXE must name the keal compiler (set by CMake)"
#endif

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------- processes ---

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

std::string run_command(const std::string& command) {
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    std::string output;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0) throw std::runtime_error(command + " failed:\n" + output);
    return output;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// ------------------------------------------------------------ PostgreSQL ---

struct PgConn {
    PGconn* c = nullptr;
    explicit PgConn(const std::string& url) : c(PQconnectdb(url.c_str())) {
        if (PQstatus(c) != CONNECTION_OK) throw std::runtime_error(std::string("PostgreSQL: ") + PQerrorMessage(c));
    }
    ~PgConn() { PQfinish(c); }
    PgConn(const PgConn&) = delete;
    PgConn& operator=(const PgConn&) = delete;
    std::string scalar(const std::string& sql) {
        PGresult* r = PQexec(c, sql.c_str());
        const ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
            std::string e = PQresultErrorMessage(r);
            PQclear(r);
            throw std::runtime_error("PostgreSQL: " + sql + ": " + e);
        }
        std::string v = st == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
        PQclear(r);
        return v;
    }
    // Every row's first column (an EXPLAIN), one per element.
    std::vector<std::string> lines(const std::string& sql) {
        PGresult* r = PQexec(c, sql.c_str());
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            std::string e = PQresultErrorMessage(r);
            PQclear(r);
            throw std::runtime_error("PostgreSQL: " + sql + ": " + e);
        }
        std::vector<std::string> out;
        for (int i = 0; i < PQntuples(r); ++i) out.emplace_back(PQgetvalue(r, i, 0));
        PQclear(r);
        return out;
    }
};

// --------------------------------------------------------------- MariaDB ---

// The SQL/PSM function runs for minutes over 300,000 rows: no read timeout
// of 30 s (the client's default) may cut it. Plain TCP, as Connector/C
// connects without being asked for TLS: sluice's loopback default (prefer)
// would put TLS on every call of the prepared-calls row and only on ours.
sluice::mariadb::ConnectOptions maria_options(const std::string& url) {
    sluice::mariadb::ConnectOptions options = sluice::mariadb::parse_url(url);
    options.timeouts.read = std::chrono::hours(1);
    options.ssl_mode = sluice::mariadb::SslMode::disable;
    return options;
}

sluice::mariadb::Connection maria_connect(const std::string& url) {
    return sluice::mariadb::Connection::connect(maria_options(url));
}

std::string maria_scalar(sluice::mariadb::Connection& c, const std::string& sql) {
    sluice::mariadb::ResultSet rs = c.query(sql);
    const sluice::mariadb::Row* row = rs.next();
    std::string v = row != nullptr ? (*row)[0].get<std::optional<std::string>>().value_or("NULL") : "";
    while (rs.next() != nullptr) {
    }
    return v;
}

// ---------------------------------------------------------------- SQLite ---

// The hand-written control: Collatz steps as an SQLite C function, written
// the way one writes it by hand (no type checks, no overflow checks).
void steps_c_sqlite(sqlite3_context* ctx, int, sqlite3_value** argv) {
    sqlite3_int64 x = sqlite3_value_int64(argv[0]);
    sqlite3_int64 s = 0;
    while (x != 1) {
        if (x % 2 == 0)
            x = x / 2;
        else
            x = 3 * x + 1;
        s++;
    }
    sqlite3_result_int64(ctx, s);
}

// The hand-written SQLite aggregate for the "agg sqlite" table: the same
// checked count, sum and sum of squares as the Keal aggregate (overflow is an
// error), NULLs skipped; no argument type checks.
struct VarianceState {
    sqlite3_int64 n, sum, sq;
};

void variance_c_sqlite_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
    auto* st = static_cast<VarianceState*>(sqlite3_aggregate_context(ctx, sizeof(VarianceState)));
    if (st == nullptr) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    const sqlite3_int64 x = sqlite3_value_int64(argv[0]);
    sqlite3_int64 x2 = 0;
    if (__builtin_add_overflow(st->n, 1, &st->n) || __builtin_add_overflow(st->sum, x, &st->sum) ||
        __builtin_mul_overflow(x, x, &x2) || __builtin_add_overflow(st->sq, x2, &st->sq))
        sqlite3_result_error(ctx, "integer overflow", -1);
}

void variance_c_sqlite_final(sqlite3_context* ctx) {
    const auto* st = static_cast<const VarianceState*>(sqlite3_aggregate_context(ctx, 0));
    if (st == nullptr || st->n < 2) {
        sqlite3_result_null(ctx);
        return;
    }
    const double n = static_cast<double>(st->n);
    sqlite3_result_double(ctx, (static_cast<double>(st->sq) - static_cast<double>(st->sum) * static_cast<double>(st->sum) / n) /
                                   (n - 1.0));
}

struct Lite {
    sqlite3* db = nullptr;
    Lite(const std::string& extension, long rows, long agg_rows) {
        if (sqlite3_open(":memory:", &db) != SQLITE_OK) throw std::runtime_error("sqlite3_open");
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, nullptr);
        char* err = nullptr;
        if (sqlite3_load_extension(db, extension.c_str(), nullptr, &err) != SQLITE_OK)
            throw std::runtime_error(std::string("sqlite3_load_extension: ") + (err ? err : "?"));
        sqlite3_create_function_v2(db, "steps_c", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, steps_c_sqlite, nullptr,
                                   nullptr, nullptr);
        sqlite3_create_window_function(db, "variance_c", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, variance_c_sqlite_step,
                                       variance_c_sqlite_final, nullptr, nullptr, nullptr);
        exec("CREATE TABLE agg_rows(x INTEGER)");
        exec("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < " + std::to_string(agg_rows) +
             ") INSERT INTO agg_rows SELECT (g * 7919) % 2001 - 1000 FROM s");
        exec("CREATE TABLE nums(n INTEGER PRIMARY KEY)");
        exec("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < " + std::to_string(rows) +
             ") INSERT INTO nums SELECT n FROM s");
    }
    ~Lite() { sqlite3_close(db); }
    Lite(const Lite&) = delete;
    Lite& operator=(const Lite&) = delete;
    void load(const std::string& extension) {
        char* err = nullptr;
        if (sqlite3_load_extension(db, extension.c_str(), nullptr, &err) != SQLITE_OK)
            throw std::runtime_error(std::string("sqlite3_load_extension: ") + (err ? err : "?"));
    }
    void exec(const std::string& sql) {
        char* err = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
            throw std::runtime_error("SQLite: " + sql + ": " + (err ? err : "?"));
    }
    std::string scalar(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("SQLite: ") + sqlite3_errmsg(db));
        std::string v;
        if (sqlite3_step(st) == SQLITE_ROW) v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        else throw std::runtime_error(std::string("SQLite: ") + sql + ": " + sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return v;
    }
};

// ------------------------------------------------------------ contenders ---

// One contender: run() does the whole workload once and returns its value
// (the sum, which must agree within the table).
struct Contender {
    std::string table;   // "calls" or "collatz"
    std::string server;  // "PostgreSQL", "MariaDB", "SQLite"
    std::string name;
    std::function<std::string()> run;
    std::string value{};
    std::vector<double> ms{};
    double best() const { return *std::min_element(ms.begin(), ms.end()); }
    double median() const {
        std::vector<double> v = ms;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
};

// The n of call i: 1..1000, so every call does a little Collatz work.
std::int64_t call_arg(int i) { return 1 + i % 1000; }

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        o += c;
    }
    return o;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    }
    return "unknown";
}

double load_average() {
    double l = 0;
    std::ifstream in("/proc/loadavg");
    in >> l;
    return l;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"keal_servers_bench: Keal on PostgreSQL, MariaDB and SQLite (calls and Collatz)"};
    std::string env_path, out = "keal-servers-capture.json", work = fs::temp_directory_path().string();
    int rounds = 3, calls = 20000;
    long rows = 300000, psm_rows = 300000, agg_rows = 3000000, srf_rows = 1000000;
    app.add_option("--env", env_path, "env file of the private servers (scripts/servers/start)")->required();
    app.add_option("--out", out, "JSON capture to write");
    app.add_option("--work", work, "scratch folder for the built libraries");
    app.add_option("--rounds", rounds, "timed rounds per contender (best of them is reported)");
    app.add_option("--calls", calls, "prepared calls per connection");
    app.add_option("--rows", rows, "rows of the Collatz table");
    app.add_option("--psm-rows", psm_rows,
                   "rows for the SQL/PSM function only (it is slow; the report scales it to --rows and says so)");
    app.add_option("--agg-rows", agg_rows, "rows of the aggregate tables");
    app.add_option("--srf-rows", srf_rows, "rows the set-returning functions yield");
    CLI11_PARSE(app, argc, argv);

    try {
        const sluice::EnvFile env = sluice::EnvFile::load(env_path);
        const std::string program = KEAL_BENCH_SERVERS_PROGRAM;
        const std::string keal = KEAL_EXE;
        const std::string dir = work + "/keal-servers-bench-" + std::to_string(getpid());
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                 fs::perms::others_exec);

        // PostgreSQL: a fresh database with Keal, the C control and PL/pgSQL.
        const std::string pg_server = "postgresql://" + env.require("SLUICE_PG_USER") + "@" + env.require("SLUICE_HOST") +
                                      ":" + env.require("SLUICE_PG_PORT");
        const std::string pg_db = "keal_servers_bench";
        {
            PgConn admin(env.require("SLUICE_PG_URL"));
            admin.scalar("DROP DATABASE IF EXISTS " + pg_db + " WITH (FORCE)");
            admin.scalar("CREATE DATABASE " + pg_db);
        }
        const std::string pg_url = pg_server + "/" + pg_db;
        std::cerr << run_command(shell_quote(keal) + " deploy " + shell_quote(program) + " --db " + shell_quote(pg_url) +
                                 " --lib-dir " + shell_quote(dir + "/pg"));
        std::cerr << run_command(shell_quote(keal) + " deploy " + shell_quote(KEAL_BENCH_SERIES_PROGRAM) + " --db " +
                                 shell_quote(pg_url) + " --lib-dir " + shell_quote(dir + "/pg"));
        PgConn pg(pg_url);
        pg.scalar("CREATE FUNCTION series_c(n bigint) RETURNS TABLE(i bigint, sq bigint) AS '" + std::string(KEAL_BENCH_C_SO) +
                  "', 'series_c' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE");
        pg.scalar(R"(CREATE FUNCTION series_plpgsql(n bigint) RETURNS TABLE(i bigint, sq bigint)
LANGUAGE plpgsql STRICT IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  FOR k IN 1..n LOOP
    i := k;
    sq := i * i;
    RETURN NEXT;
  END LOOP;
END $$)");
        pg.scalar("CREATE FUNCTION steps_c(bigint) RETURNS bigint AS '" + std::string(KEAL_BENCH_C_SO) +
                  "', 'steps_c' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE");
        pg.scalar(R"(CREATE FUNCTION steps_plpgsql(n bigint) RETURNS bigint
LANGUAGE plpgsql STRICT IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  x bigint := n;
  s bigint := 0;
BEGIN
  WHILE x <> 1 LOOP
    IF x % 2 = 0 THEN x := x / 2; ELSE x := 3 * x + 1; END IF;
    s := s + 1;
  END LOOP;
  RETURN s;
END $$)");
        // One backend process per query, no parallel workers: the
        // function's speed, as on the other two servers.
        pg.scalar("SET max_parallel_workers_per_gather = 0");
        const std::string pg_version = first_line(pg.scalar("SELECT version()"));

        // The aggregate rows: x in -1000..1000, spread by a multiplier.
        pg.scalar("CREATE TABLE agg_rows AS SELECT ((g::bigint * 7919) % 2001 - 1000) AS x FROM generate_series(1, " +
                  std::to_string(agg_rows) + ") AS g");
        pg.scalar("VACUUM ANALYZE agg_rows");
        const std::string c_so = KEAL_BENCH_C_SO;
        for (const char* fn : {"step(internal, bigint) RETURNS internal", "final(internal) RETURNS double precision",
                               "combine(internal, internal) RETURNS internal", "serial(internal) RETURNS bytea",
                               "deserial(bytea, internal) RETURNS internal"}) {
            const std::string f = fn;
            const std::string name = f.substr(0, f.find('('));
            const bool strict = name == "serial" || name == "deserial";
            pg.scalar("CREATE FUNCTION variance_c_" + f + " AS '" + c_so + "', 'variance_c_" + name + "' LANGUAGE C" +
                      (strict ? " STRICT" : "") + " IMMUTABLE PARALLEL SAFE");
        }
        pg.scalar("CREATE AGGREGATE variance_c(bigint) (SFUNC = variance_c_step, STYPE = internal, FINALFUNC = variance_c_final, "
                  "COMBINEFUNC = variance_c_combine, SERIALFUNC = variance_c_serial, DESERIALFUNC = variance_c_deserial, "
                  "PARALLEL = SAFE)");
        pg.scalar(R"(CREATE FUNCTION variance_plpgsql_step(s bigint[], x bigint) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF x IS NULL THEN RETURN s; END IF;
  RETURN ARRAY[s[1] + 1, s[2] + x, s[3] + x * x];
END $$)");
        pg.scalar(R"(CREATE FUNCTION variance_plpgsql_combine(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ARRAY[a[1] + b[1], a[2] + b[2], a[3] + b[3]];
END $$)");
        pg.scalar(R"(CREATE FUNCTION variance_plpgsql_final(s bigint[]) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF s[1] < 2 THEN RETURN NULL; END IF;
  RETURN (s[3]::float8 - s[2]::float8 * s[2]::float8 / s[1]::float8) / (s[1]::float8 - 1.0);
END $$)");
        pg.scalar("CREATE AGGREGATE variance_plpgsql(bigint) (SFUNC = variance_plpgsql_step, STYPE = bigint[], "
                  "INITCOND = '{0,0,0}', FINALFUNC = variance_plpgsql_final, COMBINEFUNC = variance_plpgsql_combine, "
                  "PARALLEL = SAFE)");
        // The parallel rows: a second connection with two workers per Gather.
        PgConn pg_parallel(pg_url);
        pg_parallel.scalar("SET max_parallel_workers_per_gather = 2");
        const std::vector<std::string> keal_parallel_plan =
            pg_parallel.lines("EXPLAIN (COSTS OFF) SELECT variance_keal(x) FROM agg_rows");
        const std::vector<std::string> keal_serial_plan = pg.lines("EXPLAIN (COSTS OFF) SELECT variance_keal(x) FROM agg_rows");
        auto plan_has = [](const std::vector<std::string>& plan, const std::string& what) {
            return std::any_of(plan.begin(), plan.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; });
        };
        if (!plan_has(keal_parallel_plan, "Partial Aggregate") || !plan_has(keal_parallel_plan, "Finalize Aggregate"))
            throw std::runtime_error("the Keal aggregate's plan with 2 workers has no Partial/Finalize Aggregate");

        // MariaDB: the Keal UDF and the SQL/PSM function.
        const std::string maria_url = env.require("SLUICE_MARIADB_URL");
        std::cerr << run_command(shell_quote(keal) + " deploy " + shell_quote(program) + " --db " + shell_quote(maria_url));
        sluice::mariadb::Connection maria = maria_connect(maria_url);
        maria.execute("DROP FUNCTION IF EXISTS steps_psm");
        maria.execute(R"(CREATE FUNCTION steps_psm(n BIGINT) RETURNS BIGINT DETERMINISTIC NO SQL
BEGIN
  DECLARE x BIGINT DEFAULT n;
  DECLARE s BIGINT DEFAULT 0;
  WHILE x <> 1 DO
    IF x % 2 = 0 THEN SET x = x DIV 2; ELSE SET x = 3 * x + 1; END IF;
    SET s = s + 1;
  END WHILE;
  RETURN s;
END)");
        const std::string maria_version = maria_scalar(maria, "SELECT version()");

        // SQLite: the Keal extension and the C function, in this process.
        const std::string lite_so = dir + "/servers-sqlite.so";
        run_command(shell_quote(keal) + " build " + shell_quote(program) + " --target sqlite -o " + shell_quote(lite_so));
        Lite lite(lite_so, rows, agg_rows);
        const std::string series_so = dir + "/series-sqlite.so";
        run_command(shell_quote(keal) + " build " + shell_quote(KEAL_BENCH_SERIES_PROGRAM) + " --target sqlite -o " +
                    shell_quote(series_so));
        lite.load(series_so);
        if (keal::bench::register_series_c(lite.db) != SQLITE_OK) throw std::runtime_error("registering series_c failed");

        // Connector/C, the control for sluice's MariaDB client.
        const sluice::mariadb::ConnectOptions mu = maria_options(maria_url);
        MYSQL* cc = mysql_init(nullptr);
        if (!mysql_real_connect(cc, mu.host.c_str(), mu.user.c_str(), mu.password.c_str(), mu.database.c_str(), mu.port,
                                nullptr, 0))
            throw std::runtime_error(std::string("Connector/C: ") + mysql_error(cc));

        std::vector<Contender> all;
        // ---- table 1: prepared calls ----
        PGresult* prep = PQprepare(pg.c, "steps_call", "SELECT steps($1::bigint)", 1, nullptr);
        if (PQresultStatus(prep) != PGRES_COMMAND_OK) throw std::runtime_error(PQresultErrorMessage(prep));
        PQclear(prep);
        all.push_back({"calls", "PostgreSQL", "libpq", [&] {
                           long long sum = 0;
                           for (int i = 0; i < calls; ++i) {
                               const std::string v = std::to_string(call_arg(i));
                               const char* values[1] = {v.c_str()};
                               PGresult* r = PQexecPrepared(pg.c, "steps_call", 1, values, nullptr, nullptr, 0);
                               if (PQresultStatus(r) != PGRES_TUPLES_OK) throw std::runtime_error(PQresultErrorMessage(r));
                               sum += std::stoll(PQgetvalue(r, 0, 0));
                               PQclear(r);
                           }
                           return std::to_string(sum);
                       }});
        sluice::mariadb::Statement maria_call = maria.prepare("SELECT steps(?)");
        all.push_back({"calls", "MariaDB", "sluice", [&] {
                           long long sum = 0;
                           for (int i = 0; i < calls; ++i) {
                               sluice::mariadb::ResultSet rs = maria_call.execute(call_arg(i));
                               const sluice::mariadb::Row* row = rs.next();
                               sum += (*row)[0].get<std::int64_t>();
                               while (rs.next() != nullptr) {
                               }
                           }
                           return std::to_string(sum);
                       }});
        MYSQL_STMT* cst = mysql_stmt_init(cc);
        const char* csql = "SELECT steps(?)";
        if (mysql_stmt_prepare(cst, csql, std::strlen(csql)) != 0) throw std::runtime_error(mysql_stmt_error(cst));
        all.push_back({"calls", "MariaDB", "Connector/C", [&] {
                           long long sum = 0;
                           long long arg = 0, result = 0;
                           MYSQL_BIND in{};
                           in.buffer_type = MYSQL_TYPE_LONGLONG;
                           in.buffer = &arg;
                           MYSQL_BIND outb{};
                           outb.buffer_type = MYSQL_TYPE_LONGLONG;
                           outb.buffer = &result;
                           mysql_stmt_bind_param(cst, &in);
                           for (int i = 0; i < calls; ++i) {
                               arg = call_arg(i);
                               if (mysql_stmt_execute(cst) != 0) throw std::runtime_error(mysql_stmt_error(cst));
                               mysql_stmt_bind_result(cst, &outb);
                               if (mysql_stmt_fetch(cst) != 0) throw std::runtime_error("Connector/C: no row");
                               sum += result;
                               while (mysql_stmt_fetch(cst) == 0) {
                               }
                               mysql_stmt_free_result(cst);
                           }
                           return std::to_string(sum);
                       }});
        sqlite3_stmt* lst = nullptr;
        if (sqlite3_prepare_v2(lite.db, "SELECT steps(?)", -1, &lst, nullptr) != SQLITE_OK)
            throw std::runtime_error(sqlite3_errmsg(lite.db));
        all.push_back({"calls", "SQLite", "in process", [&] {
                           long long sum = 0;
                           for (int i = 0; i < calls; ++i) {
                               sqlite3_bind_int64(lst, 1, call_arg(i));
                               if (sqlite3_step(lst) != SQLITE_ROW) throw std::runtime_error(sqlite3_errmsg(lite.db));
                               sum += sqlite3_column_int64(lst, 0);
                               sqlite3_reset(lst);
                           }
                           return std::to_string(sum);
                       }});

        // ---- table 2: Collatz over the rows ----
        const std::string series = " FROM generate_series(1, " + std::to_string(rows) + ") AS n";
        const std::string seq = " FROM seq_1_to_" + std::to_string(rows);
        all.push_back({"collatz", "PostgreSQL", "PL/pgSQL", [&] { return pg.scalar("SELECT sum(steps_plpgsql(n))" + series); }});
        all.push_back({"collatz", "PostgreSQL", "Keal", [&] { return pg.scalar("SELECT sum(steps(n))" + series); }});
        all.push_back({"collatz", "PostgreSQL", "C", [&] { return pg.scalar("SELECT sum(steps_c(n))" + series); }});
        all.push_back({"collatz", "MariaDB", "SQL/PSM", [&] {
                           return maria_scalar(maria, "SELECT sum(steps_psm(seq)) FROM seq_1_to_" + std::to_string(psm_rows));
                       }});
        all.push_back({"collatz", "MariaDB", "Keal UDF", [&] { return maria_scalar(maria, "SELECT sum(steps(seq))" + seq); }});
        all.push_back({"collatz", "SQLite", "C (registered here)", [&] { return lite.scalar("SELECT sum(steps_c(n)) FROM nums"); }});
        all.push_back({"collatz", "SQLite", "Keal extension", [&] { return lite.scalar("SELECT sum(steps(n)) FROM nums"); }});

        // ---- table 3: the aggregate over agg_rows ----
        const auto pg_agg = [](const std::string& expression) {
            return "SELECT round(v::numeric, 3)::text FROM (SELECT " + expression + " AS v FROM agg_rows) AS a";
        };
        const std::string sql_expression =
            "(sum(x * x)::float8 - sum(x)::float8 * sum(x)::float8 / count(x)::float8) / (count(x)::float8 - 1.0)";
        all.push_back({"agg", "PostgreSQL", "PL/pgSQL", [&] { return pg.scalar(pg_agg("variance_plpgsql(x)")); }});
        all.push_back({"agg", "PostgreSQL", "SQL expression", [&] { return pg.scalar(pg_agg(sql_expression)); }});
        all.push_back({"agg", "PostgreSQL", "C", [&] { return pg.scalar(pg_agg("variance_c(x)")); }});
        all.push_back({"agg", "PostgreSQL", "Keal", [&] { return pg.scalar(pg_agg("variance_keal(x)")); }});
        all.push_back({"agg parallel", "PostgreSQL", "PL/pgSQL", [&] { return pg_parallel.scalar(pg_agg("variance_plpgsql(x)")); }});
        all.push_back({"agg parallel", "PostgreSQL", "SQL expression", [&] { return pg_parallel.scalar(pg_agg(sql_expression)); }});
        all.push_back({"agg parallel", "PostgreSQL", "C", [&] { return pg_parallel.scalar(pg_agg("variance_c(x)")); }});
        all.push_back({"agg parallel", "PostgreSQL", "Keal", [&] { return pg_parallel.scalar(pg_agg("variance_keal(x)")); }});
        all.push_back({"agg sqlite", "SQLite", "C (registered here)",
                       [&] { return lite.scalar("SELECT printf('%.3f', variance_c(x)) FROM agg_rows"); }});
        all.push_back({"agg sqlite", "SQLite", "Keal extension",
                       [&] { return lite.scalar("SELECT printf('%.3f', variance_keal(x)) FROM agg_rows"); }});

        // ---- table 4: a set-returning function yielding srf_rows rows ----
        const auto pg_srf = [&](const std::string& fn) {
            return "SELECT count(*) || ' ' || sum(sq) FROM " + fn + "(" + std::to_string(srf_rows) + ")";
        };
        all.push_back({"srf", "PostgreSQL", "PL/pgSQL RETURN NEXT", [&] { return pg.scalar(pg_srf("series_plpgsql")); }});
        all.push_back({"srf", "PostgreSQL", "C", [&] { return pg.scalar(pg_srf("series_c")); }});
        all.push_back({"srf", "PostgreSQL", "Keal", [&] { return pg.scalar(pg_srf("series_keal")); }});
        // The same query on SQLite, whose table-valued functions run one row
        // per xNext (nothing collected first), and the recursive CTE SQL
        // alone would write.
        all.push_back({"srf sqlite", "SQLite", "C vtab (registered here)", [&] { return lite.scalar(pg_srf("series_c")); }});
        all.push_back({"srf sqlite", "SQLite", "Keal extension", [&] { return lite.scalar(pg_srf("series_keal")); }});
        all.push_back({"srf sqlite", "SQLite", "recursive CTE", [&] {
                           return lite.scalar("WITH RECURSIVE s(i, sq) AS (SELECT 1, 1 UNION ALL SELECT i + 1, (i + 1) * (i + 1) "
                                              "FROM s WHERE i < " + std::to_string(srf_rows) +
                                              ") SELECT count(*) || ' ' || sum(sq) FROM s");
                       }});

        // Agreement first: everything of a table returns the same sum (the
        // PSM function over its own row count: against Keal's over as many).
        std::map<std::string, std::string> expected;
        for (Contender& c : all) {
            c.value = c.run();
            // Serial and parallel aggregates must agree with each other too.
            std::string key = c.table == "agg parallel" ? "agg" : c.table;
            if (c.name == "SQL/PSM" && psm_rows != rows) {
                const std::string keal_psm =
                    maria_scalar(maria, "SELECT sum(steps(seq)) FROM seq_1_to_" + std::to_string(psm_rows));
                if (keal_psm != c.value) throw std::runtime_error("SQL/PSM disagrees with Keal: " + c.value + " vs " + keal_psm);
                continue;
            }
            if (!expected.count(key)) expected[key] = c.value;
            if (expected[key] != c.value)
                throw std::runtime_error(c.table + ": " + c.server + " " + c.name + " returned " + c.value + ", not " + expected[key]);
            std::cerr << c.table << " " << c.server << " " << c.name << ": " << c.value << "\n";
        }
        const double load_before = load_average();
        for (int r = 0; r < rounds; ++r) {
            for (Contender& c : all) {
                const auto start = Clock::now();
                const std::string v = c.run();
                const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                if (v != c.value) throw std::runtime_error(c.name + " changed its answer");
                c.ms.push_back(c.name == "SQL/PSM" ? ms * static_cast<double>(rows) / static_cast<double>(psm_rows) : ms);
                std::cerr << "round " << r + 1 << " " << c.table << " " << c.server << " " << c.name << ": " << ms << " ms\n";
            }
        }
        const double load_after = load_average();
        auto best = [&](const std::string& table, const std::string& name) {
            for (const Contender& c : all)
                if (c.table == table && c.name == name) return c.best();
            throw std::logic_error(name);
        };
        auto median = [&](const std::string& table, const std::string& name) {
            for (const Contender& c : all)
                if (c.table == table && c.name == name) return c.median();
            throw std::logic_error(name);
        };
        const double psm_ratio = best("collatz", "SQL/PSM") / best("collatz", "Keal UDF");
        const double lite_ratio = best("collatz", "Keal extension") / best("collatz", "C (registered here)");
        const double pg_ratio = best("collatz", "Keal") / best("collatz", "C");
        const double agg_over_c = best("agg", "Keal") / best("agg", "C");
        const double plpgsql_over_agg = best("agg", "PL/pgSQL") / best("agg", "Keal");
        const double agg_serial_over_parallel = best("agg", "Keal") / best("agg parallel", "Keal");
        const double agg_lite_over_c = best("agg sqlite", "Keal extension") / best("agg sqlite", "C (registered here)");
        const double srf_over_c = best("srf", "Keal") / best("srf", "C");
        const double plpgsql_over_srf = best("srf", "PL/pgSQL RETURN NEXT") / best("srf", "Keal");
        const double srf_lite_over_c = best("srf sqlite", "Keal extension") / best("srf sqlite", "C vtab (registered here)");
        const double cte_over_srf_lite = best("srf sqlite", "recursive CTE") / best("srf sqlite", "Keal extension");

        utsname un{};
        uname(&un);
        std::ostringstream j;
        j << "{\n  \"machine\": {\"host\": \"" << json_escape(un.nodename) << "\", \"cpu\": \"" << json_escape(cpu_model()) << "\", \"cores\": " << sysconf(_SC_NPROCESSORS_ONLN)
          << ", \"kernel\": \"" << json_escape(std::string(un.sysname) + " " + un.release) << "\", \"load_before\": " << load_before
          << ", \"load_after\": " << load_after << "},\n";
        j << "  \"versions\": {\"postgresql\": \"" << json_escape(pg_version) << "\", \"mariadb\": \"" << json_escape(maria_version)
          << "\", \"sqlite\": \"" << sqlite3_libversion() << "\", \"connector_c\": \"" << mysql_get_client_info() << "\"},\n";
        j << "  \"settings\": {\"rounds\": " << rounds << ", \"calls\": " << calls << ", \"rows\": " << rows
          << ", \"psm_rows\": " << psm_rows << ", \"agg_rows\": " << agg_rows << ", \"srf_rows\": " << srf_rows << "},\n";
        auto json_lines = [&](const std::vector<std::string>& lines) {
            std::string o = "[";
            for (std::size_t k = 0; k < lines.size(); ++k) o += (k ? ", \"" : "\"") + json_escape(lines[k]) + "\"";
            return o + "]";
        };
        j << "  \"plans\": {\"keal_parallel\": " << json_lines(keal_parallel_plan) << ", \"keal_serial\": "
          << json_lines(keal_serial_plan) << "},\n";
        j << "  \"goals\": {\"psm_over_keal_udf\": " << psm_ratio << ", \"keal_sqlite_over_c\": " << lite_ratio
          << ", \"keal_pg_over_c\": " << pg_ratio << ", \"keal_agg_over_c\": " << agg_over_c
          << ", \"plpgsql_over_keal_agg\": " << plpgsql_over_agg << ", \"keal_agg_serial_over_parallel\": " << agg_serial_over_parallel
          << ", \"keal_agg_serial_over_parallel_median\": " << median("agg", "Keal") / median("agg parallel", "Keal")
          << ", \"keal_sqlite_agg_over_c\": " << agg_lite_over_c << ", \"keal_srf_over_c\": " << srf_over_c
          << ", \"plpgsql_over_keal_srf\": " << plpgsql_over_srf << ", \"keal_sqlite_srf_over_c\": " << srf_lite_over_c
          << ", \"cte_over_keal_sqlite_srf\": " << cte_over_srf_lite << "},\n  \"contenders\": [\n";
        for (std::size_t i = 0; i < all.size(); ++i) {
            const Contender& c = all[i];
            j << "    {\"table\": \"" << c.table << "\", \"server\": \"" << c.server << "\", \"name\": \"" << json_escape(c.name)
              << "\", \"value\": \"" << c.value << "\", \"best_ms\": " << c.best() << ", \"median_ms\": " << c.median()
              << ", \"ms\": [";
            for (std::size_t k = 0; k < c.ms.size(); ++k) j << (k ? ", " : "") << c.ms[k];
            j << "]}" << (i + 1 < all.size() ? "," : "") << "\n";
        }
        j << "  ]\n}\n";
        std::ofstream(out) << j.str();

        std::printf("\n%-13s %-11s %-22s %12s %12s\n", "table", "server", "contender", "best ms", "median ms");
        for (const Contender& c : all)
            std::printf("%-13s %-11s %-22s %12.1f %12.1f\n", c.table.c_str(), c.server.c_str(), c.name.c_str(), c.best(), c.median());
        std::printf("\nSQL/PSM / Keal UDF: %.1fx (goal >= 100x)\n", psm_ratio);
        std::printf("Keal SQLite extension / C: %.2fx (goal <= 1.2x)\n", lite_ratio);
        std::printf("Keal on PostgreSQL / C: %.2fx (goal <= 1.2x)\n", pg_ratio);
        std::printf("Keal aggregate / C aggregate (PostgreSQL, serial): %.2fx (goal <= 1.2x)\n", agg_over_c);
        std::printf("PL/pgSQL aggregate / Keal aggregate: %.1fx (goal >= 20x)\n", plpgsql_over_agg);
        std::printf("Keal aggregate serial / parallel (2 workers): %.2fx (goal > 1x)\n", agg_serial_over_parallel);
        std::printf("Keal SQLite aggregate / C aggregate: %.2fx (goal <= 1.2x)\n", agg_lite_over_c);
        std::printf("Keal SRF / C SRF: %.2fx (goal <= 1.3x)\n", srf_over_c);
        std::printf("PL/pgSQL RETURN NEXT / Keal SRF: %.1fx (goal >= 10x)\n", plpgsql_over_srf);
        std::printf("Keal SQLite table-valued function / C vtab: %.2fx (no goal set)\n", srf_lite_over_c);
        std::printf("recursive CTE / Keal SQLite table-valued function: %.2fx\n", cte_over_srf_lite);
        std::printf("load average %.2f -> %.2f; capture: %s\n", load_before, load_after, out.c_str());

        sqlite3_finalize(lst);
        mysql_stmt_close(cst);
        mysql_close(cc);
        fs::remove_all(dir);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "keal_servers_bench: " << e.what() << "\n";
        return 1;
    }
}
