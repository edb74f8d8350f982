// The same workloads through MariaDB Connector/C (libmariadb), the control:
// its array binding, mysql_reset_connection, local-infile handler, cursors
// with prefetch, and MYSQL_OPT_COMPRESS.
#include <mysql.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "speed_bench.hpp"

namespace sluice::mariadb::speed_bench {
namespace {

[[noreturn]] void fail(MYSQL* m, const std::string& what) {
    throw std::runtime_error("Connector/C: " + what + ": " + mysql_error(m));
}
[[noreturn]] void fail(MYSQL_STMT* s, const std::string& what) {
    throw std::runtime_error("Connector/C: " + what + ": " + mysql_stmt_error(s));
}

struct ConnectFlags {
    bool tls = false;
    bool compress = false;
    bool multi_statements = false;
};

MYSQL* open(const Target& t, ConnectFlags f) {
    MYSQL* m = mysql_init(nullptr);
    if (!m) throw std::runtime_error("Connector/C: mysql_init failed");
    my_bool yes = 1;
    unsigned int local = 1;
    mysql_optionsv(m, MYSQL_OPT_LOCAL_INFILE, &local);
    if (f.tls) {
        mysql_optionsv(m, MYSQL_OPT_SSL_CA, t.ca.c_str());
        mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes);
        mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &yes);
    } else {
        my_bool no = 0;
        mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &no);
    }
    if (f.compress) mysql_optionsv(m, MYSQL_OPT_COMPRESS, nullptr);
    if (!mysql_real_connect(m, t.host.c_str(), t.user.c_str(), t.password.c_str(), t.database.c_str(), t.port,
                            nullptr, f.multi_statements ? CLIENT_MULTI_STATEMENTS : 0)) {
        std::string message = mysql_error(m);
        mysql_close(m);
        throw std::runtime_error("Connector/C: connect: " + message);
    }
    return m;
}

void exec(MYSQL* m, const std::string& sql) {
    if (mysql_real_query(m, sql.data(), sql.size()) != 0) fail(m, sql);
    if (MYSQL_RES* r = mysql_store_result(m)) mysql_free_result(r);
}

std::uint64_t scalar(MYSQL* m, const std::string& sql) {
    if (mysql_real_query(m, sql.data(), sql.size()) != 0) fail(m, sql);
    MYSQL_RES* r = mysql_store_result(m);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : nullptr;
    std::uint64_t v = row && row[0] ? std::stoull(row[0]) : 0;
    if (r) mysql_free_result(r);
    return v;
}

std::uint64_t parse_u64(const char* p, unsigned long n) {
    std::uint64_t v = 0;
    std::from_chars(p, p + n, v);
    return v;
}

MYSQL_STMT* prepare(MYSQL* m, const std::string& sql) {
    MYSQL_STMT* s = mysql_stmt_init(m);
    if (!s || mysql_stmt_prepare(s, sql.data(), sql.size()) != 0) fail(m, "prepare " + sql);
    return s;
}

// The local-infile handler: lines generated on demand, or copied from a
// buffer materialized first.
struct InfileSource {
    const std::vector<std::uint8_t>* buffer = nullptr;  // buffered mode
    std::size_t total = 0;
    std::size_t line = 0;
    std::size_t offset = 0;
};
int infile_init(void** ptr, const char*, void* userdata) {
    *ptr = userdata;
    return 0;
}
int infile_read(void* ptr, char* buf, unsigned int len) {
    auto* s = static_cast<InfileSource*>(ptr);
    auto* out = reinterpret_cast<std::uint8_t*>(buf);
    if (s->buffer) {
        const std::size_t n = std::min<std::size_t>(len, s->total - s->offset);
        std::memcpy(out, s->buffer->data() + s->offset, n);
        s->offset += n;
        return static_cast<int>(n);
    }
    return static_cast<int>(generate_lines(out, len, s->offset, s->total, s->line));
}
void infile_end(void*) {}
int infile_error(void*, char* buf, unsigned int len) {
    std::snprintf(buf, len, "upload source failed");
    return 2000;
}

class ConnectorC final : public Client {
public:
    explicit ConnectorC(const Target& t) : t_(t), suffix_(std::to_string(::getpid())) {
        m_ = open(t_, {});
        bulk_table_ = "speed_bulk_cc_" + suffix_;
        upload_table_ = "speed_upload_cc_" + suffix_;
        exec(m_, "CREATE OR REPLACE TABLE " + bulk_table_ + " (a BIGINT, b BIGINT, s VARCHAR(40))");
        exec(m_, "CREATE OR REPLACE TABLE " + upload_table_ + " (id BIGINT PRIMARY KEY, pad VARCHAR(5000))");
        // The first bulk_rows rows are the bulk rows; all pipeline_inserts
        // of them the 20,000-row insert rows (the same formula).
        for (std::int64_t i = 0; i < std::max(bulk_rows, pipeline_inserts); ++i) {
            a_.push_back(i);
            b_.push_back(bulk_b(i));
            s_.push_back(bulk_s(i));
        }
        for (auto& s : s_) {
            s_ptr_.push_back(s.data());
            s_len_.push_back(s.size());
        }
    }
    ~ConnectorC() override {
        for (MYSQL_STMT* s : {insert_, insert_array_, wide_, narrow_, point_}) {
            if (s) mysql_stmt_close(s);
        }
        try {
            exec(m_, "DROP TABLE IF EXISTS " + bulk_table_ + ", " + upload_table_);
        } catch (const std::exception&) {
        }
        mysql_close(m_);
        if (tls_) mysql_close(tls_);
        if (tls2_) mysql_close(tls2_);
        if (held_stmt_) mysql_stmt_close(held_stmt_);
        if (held_) mysql_close(held_);
        if (z_) mysql_close(z_);
        if (multi_) mysql_close(multi_);
    }

    void prepare_run(const std::string& w) override {
        if (w.rfind("bulk", 0) == 0 || w.rfind("text_batch", 0) == 0 || w.rfind("insert_", 0) == 0) {
            exec(m_, "TRUNCATE TABLE " + bulk_table_);
        }
        if (w.rfind("upload", 0) == 0) exec(m_, "TRUNCATE TABLE " + upload_table_);
    }

    Outcome run(const std::string& w) override {
        if (w == "bulk_native") return bulk_array();
        if (w == "point_sequential") return point_sequential();
        if (w == "point_async_64") return connector_c_point_async(t_);
        if (w == "point_threads_64") return connector_c_point_threads(t_);
        if (w == "insert_bulk_20k") return bulk_array(pipeline_inserts);
        if (w == "insert_sequential_20k") return bulk_sequential(pipeline_inserts);
        if (w == "bulk_sequential") return bulk_sequential();
        if (w == "text_batch") return text_batch();
        if (w == "text_batch_statements") return text_batch_statements();
        if (w == "meta_cached") return meta();
        if (w == "pool_reset") return pool(true);
        if (w == "pool_reset_2") return pool(true, 2);
        if (w == "pool_reconnect") return pool(false);
        if (w == "pool_held") return pool_held();
        if (w == "upload_streamed") return upload(false, upload_small, upload_line, false);
        if (w == "upload_buffered") return upload(true, upload_small, upload_line, false);
        if (w == "upload_streamed_64m") return upload(false, upload_large, large_line, true);
        if (w == "upload_buffered_64m") return upload(true, upload_large, large_line, true);
        if (w == "cursor_512") return narrow_binary(true);
        if (w == "stream_plain") return narrow_binary(false);
        if (w == "narrow_zlib") return text_select(true, false);
        if (w == "narrow_plain") return text_select(false, false);
        if (w == "wide_zlib") return text_select(true, true);
        if (w == "wide_plain") return text_select(false, true);
        throw std::runtime_error("Connector/C has no workload " + w);
    }

private:
    Outcome finish_bulk(Outcome o, int rows = bulk_rows) {
        o.count = scalar(m_, "SELECT COUNT(*) FROM " + bulk_table_);
        o.checksum = scalar(m_, "SELECT SUM(a + b + LENGTH(s)) FROM " + bulk_table_);
        o.units = rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome bulk_array(int rows = bulk_rows) {
        const std::string sql = "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (?, ?, ?)";
        if (!insert_array_) insert_array_ = prepare(m_, sql);
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        MYSQL_BIND bind[3];
        std::memset(bind, 0, sizeof bind);
        bind[0].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[0].buffer = a_.data();
        bind[1].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[1].buffer = b_.data();
        bind[2].buffer_type = MYSQL_TYPE_STRING;
        bind[2].buffer = s_ptr_.data();  // column-wise: an array of pointers
        bind[2].length = s_len_.data();
        unsigned int size = static_cast<unsigned int>(rows);
        if (mysql_stmt_attr_set(insert_array_, STMT_ATTR_ARRAY_SIZE, &size) != 0) fail(insert_array_, "array size");
        if (mysql_stmt_bind_param(insert_array_, bind) != 0) fail(insert_array_, "bind");
        if (mysql_stmt_execute(insert_array_) != 0) fail(insert_array_, "array execute");
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        return finish_bulk(o, rows);
    }

    Outcome bulk_sequential(int rows = bulk_rows) {
        const std::string sql = "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (?, ?, ?)";
        if (!insert_) insert_ = prepare(m_, sql);
        Outcome o;
        long long a = 0, b = 0;
        unsigned long len = 0;
        MYSQL_BIND bind[3];
        std::memset(bind, 0, sizeof bind);
        bind[0].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[0].buffer = &a;
        bind[1].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[1].buffer = &b;
        bind[2].buffer_type = MYSQL_TYPE_STRING;
        bind[2].length = &len;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i) {
            a = a_[i];
            b = b_[i];
            bind[2].buffer = s_ptr_[i];
            bind[2].buffer_length = s_len_[i];
            len = s_len_[i];
            if (mysql_stmt_bind_param(insert_, bind) != 0) fail(insert_, "bind");
            if (mysql_stmt_execute(insert_) != 0) fail(insert_, "execute");
        }
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        return finish_bulk(o, rows);
    }

    // One INSERT per row, all in one COM_QUERY on a CLIENT_MULTI_STATEMENTS
    // connection; every result read with mysql_next_result.
    Outcome text_batch_statements() {
        if (!multi_) multi_ = open(t_, {false, false, true});
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        const std::string prefix = "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES (";
        std::string sql;
        std::vector<char> escaped(2 * 64 + 1);
        for (std::size_t i = 0; i < static_cast<std::size_t>(bulk_rows); ++i) {
            if (i) sql += ';';
            sql += prefix;
            sql += std::to_string(a_[i]);
            sql += ',';
            sql += std::to_string(b_[i]);
            sql += ",'";
            unsigned long n = mysql_real_escape_string(multi_, escaped.data(), s_[i].data(), s_len_[i]);
            sql.append(escaped.data(), n);
            sql += "')";
        }
        if (mysql_real_query(multi_, sql.data(), sql.size()) != 0) fail(multi_, "multi-statement batch");
        std::uint64_t affected = 0;
        for (;;) {
            if (MYSQL_RES* r = mysql_store_result(multi_)) mysql_free_result(r);
            affected += mysql_affected_rows(multi_);
            const int next = mysql_next_result(multi_);
            if (next > 0) fail(multi_, "multi-statement batch");
            if (next < 0) break;
        }
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        check(affected == bulk_rows, "affected rows of the batch");
        return finish_bulk(o);
    }

    Outcome text_batch() {
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        std::string sql = "INSERT INTO " + bulk_table_ + " (a, b, s) VALUES ";
        std::vector<char> escaped(2 * 64 + 1);
        for (std::size_t i = 0; i < static_cast<std::size_t>(bulk_rows); ++i) {
            if (i) sql += ',';
            sql += '(';
            sql += std::to_string(a_[i]);
            sql += ',';
            sql += std::to_string(b_[i]);
            sql += ",'";
            unsigned long n = mysql_real_escape_string(m_, escaped.data(), s_[i].data(), s_len_[i]);
            sql.append(escaped.data(), n);
            sql += "')";
        }
        exec(m_, sql);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        return finish_bulk(o);
    }

    // 20,000 point SELECTs, one prepared execute + fetch each: Connector/C
    // has no pipelining, so sequential is its best.
    Outcome point_sequential() {
        if (!point_) point_ = prepare(m_, "SELECT v FROM speed_narrow WHERE id = ?");
        long long id = 0, v = 0;
        MYSQL_BIND param, result;
        std::memset(&param, 0, sizeof param);
        std::memset(&result, 0, sizeof result);
        param.buffer_type = MYSQL_TYPE_LONGLONG;
        param.buffer = &id;
        result.buffer_type = MYSQL_TYPE_LONGLONG;
        result.buffer = &v;
        if (mysql_stmt_bind_param(point_, &param) != 0) fail(point_, "bind");
        if (mysql_stmt_bind_result(point_, &result) != 0) fail(point_, "bind result");
        return timed_operations(point_selects, [&](int i) {
            id = point_id(i);
            if (mysql_stmt_execute(point_) != 0) fail(point_, "execute");
            check(mysql_stmt_fetch(point_) == 0, "point row");
            check(mysql_stmt_fetch(point_) == MYSQL_NO_DATA, "one point row");
            return static_cast<std::uint64_t>(v);
        });
    }

    // The wide row's result bindings: 26 integers, 24 strings.
    struct WideBinds {
        MYSQL_BIND bind[1 + wide_ints + wide_texts];
        long long ints[1 + wide_ints];
        char texts[wide_texts][64];
        unsigned long lengths[1 + wide_ints + wide_texts];
        WideBinds() {
            std::memset(bind, 0, sizeof bind);
            for (int k = 0; k <= wide_ints; ++k) {
                bind[k].buffer_type = MYSQL_TYPE_LONGLONG;
                bind[k].buffer = &ints[k];
                bind[k].length = &lengths[k];
            }
            for (int k = 0; k < wide_texts; ++k) {
                MYSQL_BIND& b = bind[1 + wide_ints + k];
                b.buffer_type = MYSQL_TYPE_STRING;
                b.buffer = texts[k];
                b.buffer_length = sizeof texts[k];
                b.length = &lengths[1 + wide_ints + k];
            }
        }
        std::uint64_t checksum() const {
            std::uint64_t sum = 0;
            for (int k = 0; k <= wide_ints; ++k) sum += static_cast<std::uint64_t>(ints[k]);
            for (int k = 0; k < wide_texts; ++k) sum += lengths[1 + wide_ints + k];
            return sum;
        }
    };

    Outcome meta() {
        if (!wide_) wide_ = prepare(m_, "SELECT * FROM speed_wide WHERE id = ?");
        long long id = 0;
        MYSQL_BIND param;
        std::memset(&param, 0, sizeof param);
        param.buffer_type = MYSQL_TYPE_LONGLONG;
        param.buffer = &id;
        auto binds = std::make_unique<WideBinds>();
        return timed_operations(meta_executions, [&](int i) {
            id = 1 + (i * 7919) % wide_rows;
            if (mysql_stmt_bind_param(wide_, &param) != 0) fail(wide_, "bind");
            if (mysql_stmt_execute(wide_) != 0) fail(wide_, "execute");
            if (mysql_stmt_bind_result(wide_, binds->bind) != 0) fail(wide_, "bind result");
            check(mysql_stmt_fetch(wide_) == 0, "wide row");
            const std::uint64_t sum = binds->checksum();
            check(mysql_stmt_fetch(wide_) == MYSQL_NO_DATA, "one row");
            return sum;
        });
    }

    static constexpr const char* restore = "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'";

    std::uint64_t point_query(MYSQL* m, long long id) {
        MYSQL_STMT* s = prepare(m, "SELECT v FROM speed_narrow WHERE id = ?");
        MYSQL_BIND param, result;
        std::memset(&param, 0, sizeof param);
        std::memset(&result, 0, sizeof result);
        long long v = 0;
        param.buffer_type = MYSQL_TYPE_LONGLONG;
        param.buffer = &id;
        result.buffer_type = MYSQL_TYPE_LONGLONG;
        result.buffer = &v;
        if (mysql_stmt_bind_param(s, &param) != 0 || mysql_stmt_execute(s) != 0 ||
            mysql_stmt_bind_result(s, &result) != 0 || mysql_stmt_fetch(s) != 0) {
            fail(s, "point query");
        }
        mysql_stmt_close(s);
        return static_cast<std::uint64_t>(v);
    }

    // reset: requests on `connections` TLS connections taken in turn, each
    // reset and restored (synchronously: Connector/C has no pipelined
    // reset) before its statement is prepared and run.
    Outcome pool(bool reset, int connections = 1) {
        if (reset && !tls_) {
            tls_ = open(t_, {true, false});
            exec(tls_, restore);
        }
        if (reset && connections == 2 && !tls2_) {
            tls2_ = open(t_, {true, false});
            exec(tls2_, restore);
        }
        return timed_operations(pool_requests, [&](int i) {
            if (reset) {
                MYSQL* m = connections == 2 && i % 2 == 1 ? tls2_ : tls_;
                if (mysql_reset_connection(m) != 0) fail(m, "reset");
                exec(m, restore);
                return point_query(m, 1 + i * 97);
            }
            MYSQL* m = open(t_, {true, false});
            exec(m, restore);
            const std::uint64_t v = point_query(m, 1 + i * 97);
            mysql_close(m);
            return v;
        });
    }

    // One TLS connection held open, its statement prepared once: the floor
    // under every pool row.
    Outcome pool_held() {
        if (!held_) {
            held_ = open(t_, {true, false});
            exec(held_, restore);
            held_stmt_ = prepare(held_, "SELECT v FROM speed_narrow WHERE id = ?");
        }
        long long id = 0, v = 0;
        MYSQL_BIND param, result;
        std::memset(&param, 0, sizeof param);
        std::memset(&result, 0, sizeof result);
        param.buffer_type = MYSQL_TYPE_LONGLONG;
        param.buffer = &id;
        result.buffer_type = MYSQL_TYPE_LONGLONG;
        result.buffer = &v;
        return timed_operations(pool_requests, [&](int i) {
            id = 1 + i * 97;
            if (mysql_stmt_bind_param(held_stmt_, &param) != 0 || mysql_stmt_execute(held_stmt_) != 0 ||
                mysql_stmt_bind_result(held_stmt_, &result) != 0 || mysql_stmt_fetch(held_stmt_) != 0) {
                fail(held_stmt_, "point query");
            }
            check(mysql_stmt_fetch(held_stmt_) == MYSQL_NO_DATA, "one row");
            return static_cast<std::uint64_t>(v);
        });
    }

    Outcome upload(bool buffered, std::size_t total, std::size_t line, bool memory) {
        const std::string sql =
            memory ? "LOAD DATA LOCAL INFILE 'big.csv' IGNORE INTO TABLE " + upload_table_ +
                         " FIELDS TERMINATED BY ',' (@n, pad) SET id = 1"
                   : "LOAD DATA LOCAL INFILE 'speed.csv' INTO TABLE " + upload_table_ + " FIELDS TERMINATED BY ','";
        Outcome o;
        const std::size_t rss0 = resident_bytes();
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        InfileSource source;
        source.total = total;
        source.line = line;
        std::vector<std::uint8_t> all;
        if (buffered) {
            all.resize(total);
            std::size_t offset = 0;
            generate_lines(all.data(), all.size(), offset, total, line);
            source.buffer = &all;
        }
        mysql_set_local_infile_handler(m_, infile_init, infile_read, infile_end, infile_error, &source);
        if (mysql_real_query(m_, sql.data(), sql.size()) != 0) fail(m_, sql);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        const char* info = mysql_info(m_);
        check(info != nullptr, "LOAD DATA info");
        o.count = std::stoull(std::string(info).substr(std::string(info).find("Records: ") + 9));
        if (memory) {
            o.retained_bytes = static_cast<double>(peak_resident_bytes() - std::min(peak_resident_bytes(), rss0));
        } else {
            o.checksum = scalar(m_, "SELECT SUM(id) FROM " + upload_table_);
        }
        o.units = static_cast<double>(total);
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome narrow_binary(bool cursor) {
        // A fresh statement per run: the cursor attributes stay with it.
        MYSQL_STMT* s = mysql_stmt_init(m_);
        if (cursor) {
            unsigned long type = CURSOR_TYPE_READ_ONLY;
            unsigned long prefetch = cursor_batch;
            mysql_stmt_attr_set(s, STMT_ATTR_CURSOR_TYPE, &type);
            mysql_stmt_attr_set(s, STMT_ATTR_PREFETCH_ROWS, &prefetch);
        }
        const std::string sql = "SELECT id, v FROM speed_narrow WHERE id > ?";
        if (mysql_stmt_prepare(s, sql.data(), sql.size()) != 0) fail(s, "prepare");
        Outcome o;
        long long after = 0, id = 0, v = 0;
        MYSQL_BIND param, result[2];
        std::memset(&param, 0, sizeof param);
        std::memset(result, 0, sizeof result);
        param.buffer_type = MYSQL_TYPE_LONGLONG;
        param.buffer = &after;
        result[0].buffer_type = MYSQL_TYPE_LONGLONG;
        result[0].buffer = &id;
        result[1].buffer_type = MYSQL_TYPE_LONGLONG;
        result[1].buffer = &v;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        if (mysql_stmt_bind_param(s, &param) != 0 || mysql_stmt_execute(s) != 0 ||
            mysql_stmt_bind_result(s, result) != 0) {
            fail(s, "execute");
        }
        int rc = 0;
        while ((rc = mysql_stmt_fetch(s)) == 0) {
            o.checksum += static_cast<std::uint64_t>(id + v);
            ++o.count;
        }
        check(rc == MYSQL_NO_DATA, "fetch ended cleanly");
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        mysql_stmt_close(s);
        o.units = narrow_rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Outcome text_select(bool compressed, bool wide) {
        if (compressed && !z_) z_ = open(t_, {false, true});
        MYSQL* m = compressed ? z_ : m_;
        Outcome o;
        const std::uint64_t a0 = allocations();
        const auto t0 = Clock::now();
        const std::string sql = wide ? "SELECT * FROM speed_wide" : "SELECT id, v FROM speed_narrow";
        if (mysql_real_query(m, sql.data(), sql.size()) != 0) fail(m, sql);
        MYSQL_RES* r = mysql_use_result(m);
        while (MYSQL_ROW row = mysql_fetch_row(r)) {
            unsigned long* len = mysql_fetch_lengths(r);
            if (wide) {
                for (int k = 0; k <= wide_ints; ++k) o.checksum += parse_u64(row[k], len[k]);
                for (int k = wide_ints + 1; k <= wide_ints + wide_texts; ++k) o.checksum += len[k];
            } else {
                o.checksum += parse_u64(row[0], len[0]) + parse_u64(row[1], len[1]);
            }
            ++o.count;
        }
        mysql_free_result(r);
        o.elapsed_ns = ns_since(t0);
        o.allocations = allocations() - a0;
        o.units = wide ? wide_rows : narrow_rows;
        o.latencies_ns = {o.elapsed_ns};
        return o;
    }

    Target t_;
    std::string suffix_;
    MYSQL* m_ = nullptr;
    MYSQL* tls_ = nullptr;
    MYSQL* tls2_ = nullptr;  // pool_reset_2's second connection
    MYSQL* held_ = nullptr;  // pool_held
    MYSQL_STMT* held_stmt_ = nullptr;
    MYSQL* z_ = nullptr;
    MYSQL* multi_ = nullptr;  // CLIENT_MULTI_STATEMENTS, for the multi-statement text batch
    MYSQL_STMT* insert_ = nullptr;
    MYSQL_STMT* insert_array_ = nullptr;
    MYSQL_STMT* wide_ = nullptr;
    MYSQL_STMT* narrow_ = nullptr;
    MYSQL_STMT* point_ = nullptr;
    std::string bulk_table_;
    std::string upload_table_;
    std::vector<long long> a_, b_;
    std::vector<std::string> s_;
    std::vector<char*> s_ptr_;
    std::vector<unsigned long> s_len_;
};

}  // namespace

std::unique_ptr<Client> make_connector_c(const Target& target) { return std::make_unique<ConnectorC>(target); }
std::string connector_c_version() { return mysql_get_client_info(); }

}  // namespace sluice::mariadb::speed_bench
