// The workloads through sluice's client: each feature and its same-build
// baseline.
#include <chrono>
#include <optional>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "sluice/mariadb/bulk.hpp"
#include "sluice/mariadb/cursor.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/pool.hpp"
#include "sluice/mariadb/text_batch.hpp"
#include "sluice/mariadb/upload.hpp"
#include "speed_bench.hpp"

namespace sluice::mariadb::speed_bench {
namespace {

std::uint64_t scalar_u64(Connection& c, const std::string& sql, std::size_t column = 0) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::uint64_t v = r && !(*r)[column].is_null() ? std::stoull(r->get<std::string>(column)) : 0;
    rs.discard();
    return v;
}

class Sluice final : public Client {
public:
    Sluice(const Target& t, long server_pid) : suffix_(std::to_string(::getpid())), server_pid_(server_pid) {
        plain_.host = t.host;
        plain_.port = t.port;
        plain_.user = t.user;
        plain_.password = t.password;
        plain_.database = t.database;
        plain_.ssl_mode = SslMode::disable;
        tls_ = plain_;
        tls_.ssl_mode = SslMode::verify_full;
        tls_.ssl_ca = t.ca;
        tls_.init_commands = {"SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'"};
        unix_socket_ = t.unix_socket;
        conn_.emplace(Connection::connect(plain_));
        bulk_table_ = "speed_bulk_" + suffix_;
        upload_table_ = "speed_upload_" + suffix_;
        conn_->execute("CREATE OR REPLACE TABLE " + bulk_table_ + " (a BIGINT, b BIGINT, s VARCHAR(40))");
        conn_->execute("CREATE OR REPLACE TABLE " + upload_table_ + " (id BIGINT PRIMARY KEY, pad VARCHAR(5000))");
        for (std::int64_t i = 0; i < bulk_rows; ++i) rows_.emplace_back(i, bulk_b(i), bulk_s(i));
        for (std::int64_t i = 0; i < pipeline_inserts; ++i) rows20k_.emplace_back(i, bulk_b(i), bulk_s(i));
        create_server_loops();
    }
    ~Sluice() override {
        try {
            for (const std::string* p : {&loop_proc_, &execute_proc_, &empty_proc_}) {
                conn_->execute("DROP PROCEDURE IF EXISTS " + *p);
            }
            conn_->execute("DROP TABLE IF EXISTS " + bulk_table_ + ", " + upload_table_);
        } catch (const Error&) {
        }
    }

    void prepare_run(const std::string& w) override {
        if (w.rfind("bulk", 0) == 0 || w.rfind("text_batch", 0) == 0 || w.rfind("insert_", 0) == 0) {
            conn_->execute("TRUNCATE TABLE " + bulk_table_);
        }
        if (w.rfind("upload", 0) == 0) conn_->execute("TRUNCATE TABLE " + upload_table_);
    }

    Outcome run(const std::string& w) override {
        if (w == "bulk_native") return bulk(BulkOptions::Mode::native);
        if (w == "bulk_sequential") return bulk(BulkOptions::Mode::sequential);
        if (w == "text_batch") return text_batch();
        if (w == "text_batch_statements") return text_batch_statements();
        if (w == "meta_cached") return meta(true);
        if (w == "meta_uncached") return meta(false);
        if (w == "pool_reset") return pool_reset(pool_, 1);
        if (w == "pool_reset_2") return pool_reset(pool2_, 2);
        if (w == "pool_reconnect") return pool_reconnect();
        if (w == "pool_held") return pool_held();
        if (w == "upload_streamed") return upload_small_run(false);
        if (w == "upload_buffered") return upload_small_run(true);
        if (w == "upload_streamed_64m") return upload_large_run(false);
        if (w == "upload_buffered_64m") return upload_large_run(true);
        if (w == "cursor_512") return narrow_binary(true);
        if (w == "stream_plain") return narrow_binary(false);
        if (w == "narrow_zlib") return text_select(true, false);
        if (w == "narrow_plain") return text_select(false, false);
        if (w == "wide_zlib") return text_select(true, true);
        if (w == "wide_plain") return text_select(false, true);
        if (w == "point_sequential") return point_sequential();
        if (w == "point_async_64") return sluice_point_async(plain_, server_pid_);
        if (w == "point_threads_64") return sluice_point_threads(plain_, server_pid_);
        if (w == "point_pipelined_16") return point_pipelined(16);
        if (w == "point_pipelined_64") return point_pipelined(64);
        if (w == "point_pipelined_256") return point_pipelined(256);
        if (w == "insert_pipelined") return insert_pipelined(*conn_, insert_statement());
        if (w == "insert_pipelined_unix") {
            Statement& insert = unix_insert_statement();  // connects first
            return insert_pipelined(*unix_conn_, insert);
        }
        if (w == "insert_bulk_20k_unix") return insert_bulk_20k(BulkOptions::Mode::native, unix_insert_statement());
        if (w == "insert_server_loop_20k") return server_loop(loop_proc_);
        if (w == "insert_server_execute_20k") return server_loop(execute_proc_);
        if (w == "server_loop_empty_20k") return server_loop_empty();
        if (w == "insert_bulk_20k") return insert_bulk_20k(BulkOptions::Mode::native, insert_statement());
        if (w == "insert_sequential_20k") return insert_bulk_20k(BulkOptions::Mode::sequential, insert_statement());
        throw std::runtime_error("unknown workload " + w);
    }

private:
    Outcome finish_bulk(Outcome o, int rows = bulk_rows) {
        o.count = scalar_u64(*conn_, "SELECT COUNT(*) FROM " + bulk_table_);
        o.checksum = scalar_u64(*conn_, "SELECT SUM(a + b + LENGTH(s)) FROM " + bulk_table_);
        o.units = rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome bulk(BulkOptions::Mode mode) {
        if (!insert_) insert_.emplace(conn_->prepare("INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (?, ?, ?)"));
        BulkOptions options;
        options.mode = mode;
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        execute_bulk(*insert_, rows_, options);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        return finish_bulk(o);
    }

    Outcome text_batch() {
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        InsertBatch batch(*conn_, "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES");
        for (const auto& [a, b, s] : rows_) batch.add(a, b, s);
        batch.finish();
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        return finish_bulk(o);
    }

    // The other text batch: one INSERT per row, all rows in one
    // multi-statement COM_QUERY (execute_batch reads the 5,000 OKs).
    Outcome text_batch_statements() {
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        const bool nbe = no_backslash_escapes(*conn_);
        const std::string prefix = "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (";
        std::vector<std::string> statements;
        statements.reserve(rows_.size());
        for (const auto& [a, b, s] : rows_) {
            std::string& sql = statements.emplace_back();
            sql.reserve(prefix.size() + 48);  // one allocation per statement
            sql += prefix;
            append_literal(sql, bind::value(a), nbe);
            sql += ',';
            append_literal(sql, bind::value(b), nbe);
            sql += ',';
            append_literal(sql, bind::value(s), nbe);
            sql += ')';
        }
        const OkInfo ok = execute_batch(*conn_, statements);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        check(ok.affected_rows == bulk_rows, "affected rows of the batch");
        return finish_bulk(o);
    }

    Outcome meta(bool cached) {
        std::optional<Connection>& c = cached ? conn_ : nocache_;
        std::optional<Statement>& stmt = cached ? wide_stmt_ : wide_stmt_nocache_;
        if (!c) {
            ConnectOptions o = plain_;
            o.cache_metadata = false;
            c.emplace(Connection::connect(o));
        }
        if (!stmt) stmt.emplace(c->prepare("SELECT * FROM speed_wide WHERE id = ?"));
        return timed_operations(meta_executions, [&](int i) {
            ResultSet rs = stmt->execute(1 + (i * 7919) % wide_rows);
            const Row* r = rs.next();
            check(r != nullptr && r->size() == 1 + wide_ints + wide_texts, "wide row");
            std::uint64_t sum = 0;
            for (int k = 0; k <= wide_ints; ++k) sum += r->get<std::uint64_t>(static_cast<std::size_t>(k));
            for (int k = wide_ints + 1; k <= wide_ints + wide_texts; ++k) {
                sum += r->get<std::string_view>(static_cast<std::size_t>(k)).size();
            }
            check(rs.next() == nullptr, "one row");
            return sum;
        });
    }

    // ---- pipelines ----

    Statement& point_statement() {
        if (!point_stmt_) point_stmt_.emplace(conn_->prepare(point_query));
        return *point_stmt_;
    }

    // One round trip per SELECT: the baseline.
    Outcome point_sequential() {
        Statement& stmt = point_statement();
        const CpuMeter cpu(server_pid_);
        Outcome o = timed_operations(point_selects, [&](int i) {
            ResultSet rs = stmt.execute(point_id(i));
            const Row* r = rs.next();
            check(r != nullptr, "point row");
            const std::uint64_t v = r->get<std::uint64_t>(0);
            check(rs.next() == nullptr, "one point row");
            return v;
        });
        o.cpu = cpu.elapsed();
        return o;
    }

    // The same SELECTs through a Pipeline of the given depth: one write per
    // depth/2 steps. Per-operation latency is not defined for a step (its
    // reply is read long after it was queued): the run's time is recorded.
    Outcome point_pipelined(std::size_t depth) {
        Statement& stmt = point_statement();
        Outcome o;
        PipelineOptions po;
        po.max_depth = depth;
        const std::uint64_t a0 = allocations();
        const CpuMeter cpu(server_pid_);
        const auto t0 = Clock::now();
        {
            Pipeline p(*conn_, po);
            for (int i = 0; i < point_selects; ++i) {
                p.execute_then(
                    [out = &o](StepResult& r) {
                        check(!r.failed(), "point step");
                        const Row* row = r.next();
                        check(row != nullptr, "point row");
                        out->checksum += row->get<std::uint64_t>(0);
                        ++out->count;
                        check(r.next() == nullptr, "one point row");
                    },
                    stmt, point_id(i));
            }
            p.finish();
        }
        o.elapsed_ns = ns_since(t0);
        o.cpu = cpu.elapsed();
        o.allocations = allocations() - a0;
        o.units = point_selects;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Statement& insert_statement() {
        if (!insert_) insert_.emplace(conn_->prepare("INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (?, ?, ?)"));
        return *insert_;
    }

    // The same statement on a second connection, over the server's unix
    // socket (the *_unix rows); the table and the checks are the same.
    Statement& unix_insert_statement() {
        if (!unix_insert_) {
            if (unix_socket_.empty()) throw std::runtime_error("the servers' env names no SLUICE_MARIADB_SOCKET");
            ConnectOptions o = plain_;
            o.unix_socket = unix_socket_;
            unix_conn_.emplace(Connection::connect(o));
            unix_insert_.emplace(unix_conn_->prepare("INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (?, ?, ?)"));
        }
        return *unix_insert_;
    }

    // 20,000 single-row INSERT executes through a Pipeline (depth 256),
    // in one transaction (START TRANSACTION and COMMIT are steps too): one
    // commit, as native bulk's one statement has. Without it each row is
    // its own commit and binlog group, and the row measures the server's
    // commits rather than the round trips the pipeline removes.
    Outcome insert_pipelined(Connection& conn, Statement& insert) {
        Outcome o;
        PipelineOptions po;
        po.max_depth = 256;
        const std::uint64_t a0 = allocations();
        const CpuMeter cpu(server_pid_);
        const auto t0 = Clock::now();
        PipelineSummary s;
        {
            Pipeline p(conn, po);
            p.query("START TRANSACTION");
            for (const auto& [a, b, text] : rows20k_) p.execute(insert, a, b, text);
            p.query("COMMIT");
            s = p.finish();
        }
        o.elapsed_ns = ns_since(t0);
        o.cpu = cpu.elapsed();
        o.allocations = allocations() - a0;
        check(s.failed == 0 && s.affected_rows == static_cast<std::uint64_t>(pipeline_inserts), "pipelined inserts");
        return finish_bulk(o, pipeline_inserts);
    }

    // The same 20,000 rows by native bulk or by sequential executes.
    Outcome insert_bulk_20k(BulkOptions::Mode mode, Statement& insert) {
        BulkOptions options;
        options.mode = mode;
        Outcome o;
        const std::uint64_t a0 = allocations();
        const CpuMeter cpu(server_pid_);
        const auto t0 = Clock::now();
        execute_bulk(insert, rows20k_, options);
        o.elapsed_ns = ns_since(t0);
        o.cpu = cpu.elapsed();
        o.allocations = allocations() - a0;
        return finish_bulk(o, pipeline_inserts);
    }

    // ---- the server floor: the same INSERTs with no client in the way ----

    // Stored procedures (per process, as the tables) that run the 20,000
    // single-row INSERTs of the pipeline rows inside the server, in one
    // transaction: a plain INSERT in a loop (parsed once, as a prepared
    // statement), the same through EXECUTE ... USING (the path of a
    // prepared execute), and the loop with no statement (its own cost).
    void create_server_loops() {
        loop_proc_ = "speed_insert_loop_" + suffix_;
        execute_proc_ = "speed_insert_execute_" + suffix_;
        empty_proc_ = "speed_loop_empty_" + suffix_;
        const std::string values = "i, i * 7 % 1000, CONCAT('name-', i)";  // bulk_b, bulk_s
        conn_->execute("CREATE OR REPLACE PROCEDURE " + loop_proc_ +
                       "(n INT) BEGIN DECLARE i INT DEFAULT 0; START TRANSACTION; "
                       "WHILE i < n DO INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (" + values +
                       "); SET i = i + 1; END WHILE; COMMIT; END");
        conn_->execute("CREATE OR REPLACE PROCEDURE " + execute_proc_ +
                       "(n INT) BEGIN DECLARE i INT DEFAULT 0; PREPARE speed_insert FROM 'INSERT INTO " +
                       bulk_table_ + " (a, b, s) VALUES (?, ?, ?)'; START TRANSACTION; "
                       "WHILE i < n DO EXECUTE speed_insert USING " + values +
                       "; SET i = i + 1; END WHILE; COMMIT; DEALLOCATE PREPARE speed_insert; END");
        conn_->execute("CREATE OR REPLACE PROCEDURE " + empty_proc_ +
                       "(n INT, OUT done INT) BEGIN DECLARE i INT DEFAULT 0; START TRANSACTION; "
                       "WHILE i < n DO SET i = i + 1; END WHILE; COMMIT; SET done = i; END");
    }

    // One CALL: a round trip, then the server's loop. Validated as the
    // pipeline rows are (count and checksum of the table).
    Outcome server_loop(const std::string& procedure) {
        Outcome o;
        const std::uint64_t a0 = allocations();
        const CpuMeter cpu(server_pid_);
        const auto t0 = Clock::now();
        conn_->execute("CALL " + procedure + "(" + std::to_string(pipeline_inserts) + ")");
        o.elapsed_ns = ns_since(t0);
        o.cpu = cpu.elapsed();
        o.allocations = allocations() - a0;
        return finish_bulk(o, pipeline_inserts);
    }

    // The loop alone, so that its share of the floor is known; its count is
    // the iterations the procedure reports.
    Outcome server_loop_empty() {
        Outcome o;
        const std::uint64_t a0 = allocations();
        const CpuMeter cpu(server_pid_);
        const auto t0 = Clock::now();
        conn_->execute("CALL " + empty_proc_ + "(" + std::to_string(pipeline_inserts) + ", @speed_done)");
        o.elapsed_ns = ns_since(t0);
        o.cpu = cpu.elapsed();
        o.allocations = allocations() - a0;
        o.count = scalar_u64(*conn_, "SELECT @speed_done");
        o.units = pipeline_inserts;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    static constexpr const char* point_query = "SELECT v FROM speed_narrow WHERE id = ?";

    // Request i of the pool rows: the point query's value for id 1 + 97 i.
    static std::uint64_t point_value(Statement& stmt, int i) {
        ResultSet rs = stmt.execute(1 + i * 97);
        const Row* r = rs.next();
        check(r != nullptr, "point row");
        const std::uint64_t v = r->get<std::uint64_t>(0);
        rs.discard();
        return v;
    }

    // `connections` = max_size = min_idle: with 1 every borrow waits for the
    // reset replies of the return just before it; with 2 the ready-first
    // borrow alternates and takes the connection whose replies have arrived.
    Outcome pool_reset(std::optional<Pool>& pool, std::size_t connections) {
        if (!pool) {
            PoolOptions po;
            po.connect = tls_;
            po.max_size = connections;
            po.min_idle = connections == 1 ? 0 : connections;  // the row keeps its one lazy connection
            pool.emplace(po);
        }
        return timed_operations(pool_requests, [&](int i) {
            PooledConnection c = pool->borrow();
            return point_value(c.prepare(point_query), i);
        });  // each lease returned at the end of its request: reset, restore and re-prepare
             // written in one go, read by the next borrow
    }

    // The floor under every pool row: the same request on one TLS connection
    // held open, its statement prepared once, nothing reset. What a pooled
    // request costs above this is the reset's.
    Outcome pool_held() {
        if (!held_) {
            held_.emplace(Connection::connect(tls_));
            check(held_->is_tls(), "TLS");
            held_stmt_.emplace(held_->prepare(point_query));
        }
        return timed_operations(pool_requests, [&](int i) { return point_value(*held_stmt_, i); });
    }

    Outcome pool_reconnect() {
        return timed_operations(pool_requests, [&](int i) {
            Connection c = Connection::connect(tls_);  // TCP + TLS + auth + restore
            check(c.is_tls(), "TLS");
            Statement stmt = c.prepare(point_query);
            return point_value(stmt, i);
        });
    }

    // Uploads `total` bytes of generated lines as source `name`: buffered =
    // the whole source materialized first and sent from memory; otherwise
    // generated straight into the client's send buffer.
    OkInfo upload_lines(const std::string& sql, const std::string& name, std::size_t total, std::size_t line,
                        bool buffered) {
        std::size_t offset = 0;
        if (!buffered) {
            return upload(*conn_, sql, name, [&](std::span<std::uint8_t> buf) {
                return generate_lines(buf.data(), buf.size(), offset, total, line);
            });
        }
        std::vector<std::uint8_t> all(total);
        generate_lines(all.data(), all.size(), offset, total, line);
        std::size_t sent = 0;
        return upload(*conn_, sql, name, [&](std::span<std::uint8_t> buf) {
            const std::size_t n = std::min(buf.size(), all.size() - sent);
            std::copy_n(all.data() + sent, n, buf.data());
            sent += n;
            return n;
        });
    }

    Outcome upload_small_run(bool buffered) {
        const std::string sql = "LOAD DATA LOCAL INFILE 'speed.csv' INTO TABLE " + upload_table_ +
                                " FIELDS TERMINATED BY ','";
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        const OkInfo ok = upload_lines(sql, "speed.csv", upload_small, upload_line, buffered);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        o.count = ok.affected_rows;
        o.checksum = scalar_u64(*conn_, "SELECT SUM(id) FROM " + upload_table_);
        o.units = static_cast<double>(upload_small);
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome upload_large_run(bool buffered) {
        // Every line lands on key 1 (IGNORE skips the rest): the server reads
        // and counts 64 MiB without storing it.
        const std::string sql = "LOAD DATA LOCAL INFILE 'big.csv' IGNORE INTO TABLE " + upload_table_ +
                                " FIELDS TERMINATED BY ',' (@n, pad) SET id = 1";
        Outcome o;
        const std::size_t rss0 = resident_bytes();
        const auto t0 = Clock::now();
        const OkInfo ok = upload_lines(sql, "big.csv", upload_large, large_line, buffered);
        o.elapsed_ns = ns_since(t0);
        o.retained_bytes = static_cast<double>(peak_resident_bytes() - std::min(peak_resident_bytes(), rss0));
        // "Records: N  Deleted: 0  Skipped: N-1  Warnings: ..."
        o.count = std::stoull(ok.info.substr(ok.info.find("Records: ") + 9));
        o.units = static_cast<double>(upload_large);
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome narrow_binary(bool cursor) {
        if (!narrow_stmt_) narrow_stmt_.emplace(conn_->prepare("SELECT id, v FROM speed_narrow WHERE id > ?"));
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        if (cursor) {
            Cursor cur = Cursor::open(*narrow_stmt_, cursor_batch, 0);
            while (const Row* r = cur.next()) {
                o.checksum += r->get<std::uint64_t>(0) + r->get<std::uint64_t>(1);
                ++o.count;
            }
        } else {
            ResultSet rs = narrow_stmt_->execute(0);
            while (const Row* r = rs.next()) {
                o.checksum += r->get<std::uint64_t>(0) + r->get<std::uint64_t>(1);
                ++o.count;
            }
        }
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        o.units = narrow_rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome text_select(bool compressed, bool wide) {
        if (compressed && !zconn_) {
            ConnectOptions z = plain_;
            z.compress = true;
            zconn_.emplace(Connection::connect(z));
            check(zconn_->is_compressed(), "compression negotiated");
        }
        Connection& c = compressed ? *zconn_ : *conn_;
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        ResultSet rs = c.query(wide ? "SELECT * FROM speed_wide" : "SELECT id, v FROM speed_narrow");
        while (const Row* r = rs.next()) {
            if (wide) {
                for (int k = 0; k <= wide_ints; ++k) o.checksum += r->get<std::uint64_t>(static_cast<std::size_t>(k));
                for (int k = wide_ints + 1; k <= wide_ints + wide_texts; ++k) {
                    o.checksum += r->get<std::string_view>(static_cast<std::size_t>(k)).size();
                }
            } else {
                o.checksum += r->get<std::uint64_t>(0) + r->get<std::uint64_t>(1);
            }
            ++o.count;
        }
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        o.units = wide ? wide_rows : narrow_rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    std::string suffix_;
    long server_pid_;  // for the CPU columns; -1: unknown
    std::string loop_proc_, execute_proc_, empty_proc_;
    std::string unix_socket_;
    ConnectOptions plain_;
    ConnectOptions tls_;
    std::string bulk_table_;
    std::string upload_table_;
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> rows_;
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> rows20k_;  // pipeline rows
    // Declared before the statements that refer to them.
    std::optional<Connection> conn_;
    std::optional<Connection> nocache_;
    std::optional<Connection> zconn_;
    std::optional<Pool> pool_;   // pool_reset: max_size 1
    std::optional<Pool> pool2_;  // pool_reset_2: max_size 2, min_idle 2
    std::optional<Connection> held_;  // pool_held
    std::optional<Connection> unix_conn_;  // the *_unix rows
    std::optional<Statement> insert_;
    std::optional<Statement> unix_insert_;
    std::optional<Statement> wide_stmt_;
    std::optional<Statement> wide_stmt_nocache_;
    std::optional<Statement> narrow_stmt_;
    std::optional<Statement> held_stmt_;
    std::optional<Statement> point_stmt_;
};

}  // namespace

std::unique_ptr<Client> make_sluice(const Target& target, long server_pid) {
    return std::make_unique<Sluice>(target, server_pid);
}

}  // namespace sluice::mariadb::speed_bench
