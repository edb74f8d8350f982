// The workloads through MariaDB Connector/C, written the way its manual
// recommends for speed: mysql_use_result (streaming, like ours), one
// MYSQL_BIND array bound once for the prepared insert.
#include "connector_c.hpp"

#include <mysql.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sluice::mariadb::bench {
namespace {

[[noreturn]] void fail(MYSQL* m, const std::string& what) {
    throw std::runtime_error("Connector/C: " + what + ": " + mysql_error(m));
}

MYSQL* open(const Target& t, bool tls) {
    MYSQL* m = mysql_init(nullptr);
    if (m == nullptr) throw std::runtime_error("Connector/C: mysql_init failed");
    if (tls) {
        mysql_optionsv(m, MYSQL_OPT_SSL_CA, t.ca.c_str());
        my_bool verify = 1;
        mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
    } else {
        my_bool enforce = 0;
        mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
    }
    if (mysql_real_connect(m, t.host.c_str(), t.user.c_str(), t.password.c_str(), t.database.c_str(), t.port,
                           nullptr, 0) == nullptr) {
        const std::string message = mysql_error(m);
        mysql_close(m);
        throw std::runtime_error("Connector/C: connect failed: " + message);
    }
    return m;
}

void run(MYSQL* m, const std::string& sql) {
    if (mysql_real_query(m, sql.data(), sql.size()) != 0) fail(m, sql);
    if (MYSQL_RES* res = mysql_store_result(m)) mysql_free_result(res);
}

std::int64_t single_int(MYSQL* m, const std::string& sql) {
    if (mysql_real_query(m, sql.data(), sql.size()) != 0) fail(m, sql);
    MYSQL_RES* res = mysql_store_result(m);
    if (res == nullptr) fail(m, sql);
    MYSQL_ROW row = mysql_fetch_row(res);
    const std::int64_t value = row && row[0] ? std::strtoll(row[0], nullptr, 10) : -1;
    mysql_free_result(res);
    return value;
}

class ConnectorC final : public Client {
public:
    explicit ConnectorC(Target target) : target_(std::move(target)), m_(open(target_, false)) {}
    ~ConnectorC() override { mysql_close(m_); }
    ConnectorC(const ConnectorC&) = delete;
    ConnectorC& operator=(const ConnectorC&) = delete;

    Timing inserts(int rows) override {
        run(m_, "TRUNCATE TABLE bench_insert");
        run(m_, "BEGIN");
        MYSQL_STMT* stmt = mysql_stmt_init(m_);
        const std::string sql = "INSERT INTO bench_insert (id, v, s) VALUES (?, ?, ?)";
        if (stmt == nullptr || mysql_stmt_prepare(stmt, sql.data(), sql.size()) != 0) fail(m_, "prepare");
        long long id = 0;
        long long v = 0;
        char s[32];
        unsigned long s_length = 0;
        MYSQL_BIND bind[3];
        std::memset(bind, 0, sizeof bind);
        bind[0].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[0].buffer = &id;
        bind[1].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[1].buffer = &v;
        bind[2].buffer_type = MYSQL_TYPE_STRING;
        bind[2].buffer = s;
        bind[2].length = &s_length;
        if (mysql_stmt_bind_param(stmt, bind) != 0) fail(m_, "bind");
        std::string text;
        const Stopwatch watch;
        for (long long i = 1; i <= rows; ++i) {
            id = i;
            v = insert_v(i);
            text = insert_s(i);
            std::memcpy(s, text.data(), text.size());
            s_length = text.size();
            if (mysql_stmt_execute(stmt) != 0) {
                throw std::runtime_error(std::string("Connector/C: execute: ") + mysql_stmt_error(stmt));
            }
        }
        const Timing elapsed = watch.elapsed();
        mysql_stmt_close(stmt);
        run(m_, "COMMIT");
        std::int64_t expected_sum = 0;
        for (std::int64_t i = 1; i <= rows; ++i) expected_sum += i + insert_v(i);
        check(single_int(m_, "SELECT COUNT(*) FROM bench_insert") == rows, "insert count");
        check(single_int(m_, "SELECT SUM(id + v) FROM bench_insert") == expected_sum, "insert sum");
        return elapsed;
    }

    Timing narrow_select() override {
        const Stopwatch watch;
        const std::string sql = "SELECT id, v FROM bench_narrow";
        if (mysql_real_query(m_, sql.data(), sql.size()) != 0) fail(m_, sql);
        MYSQL_RES* res = mysql_use_result(m_);
        if (res == nullptr) fail(m_, "use_result");
        std::int64_t sum = 0;
        std::int64_t count = 0;
        while (MYSQL_ROW row = mysql_fetch_row(res)) {
            sum += std::strtoll(row[0], nullptr, 10) + std::strtoll(row[1], nullptr, 10);
            ++count;
        }
        if (mysql_errno(m_) != 0) fail(m_, "fetch");
        mysql_free_result(res);
        const Timing elapsed = watch.elapsed();
        check(count == narrow_rows, "narrow row count");
        check(sum == narrow_checksum(), "narrow checksum");
        return elapsed;
    }

    Timing wide_select() override {
        const Stopwatch watch;
        const std::string sql = "SELECT * FROM bench_wide";
        if (mysql_real_query(m_, sql.data(), sql.size()) != 0) fail(m_, sql);
        MYSQL_RES* res = mysql_use_result(m_);
        if (res == nullptr) fail(m_, "use_result");
        std::int64_t sum = 0;
        std::int64_t count = 0;
        while (MYSQL_ROW row = mysql_fetch_row(res)) {
            const unsigned long* lengths = mysql_fetch_lengths(res);
            for (int k = 0; k <= wide_int_columns; ++k) sum += std::strtoll(row[k], nullptr, 10);
            for (int k = wide_int_columns + 1; k < wide_columns; ++k) sum += static_cast<std::int64_t>(lengths[k]);
            ++count;
        }
        if (mysql_errno(m_) != 0) fail(m_, "fetch");
        mysql_free_result(res);
        const Timing elapsed = watch.elapsed();
        check(count == wide_rows, "wide row count");
        check(sum == wide_checksum(), "wide checksum");
        return elapsed;
    }

    Timing connects(int count) override {
        const Stopwatch watch;
        for (int i = 0; i < count; ++i) {
            MYSQL* m = open(target_, true);
            check(mysql_get_ssl_cipher(m) != nullptr, "Connector/C connection is TLS");
            mysql_close(m);
        }
        return watch.elapsed();
    }

private:
    Target target_;
    MYSQL* m_;
};

}  // namespace

std::unique_ptr<Client> make_connector_c(const Target& target) { return std::make_unique<ConnectorC>(target); }

}  // namespace sluice::mariadb::bench
