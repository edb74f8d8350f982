// The workloads through sluice's own client.
#include <chrono>
#include <memory>

#include "ours.hpp"
#include "sluice/mariadb/connection.hpp"

namespace sluice::mariadb::bench {
namespace {

ConnectOptions plain_options(const Target& t) {
    ConnectOptions o;
    o.host = t.host;
    o.port = t.port;
    o.user = t.user;
    o.password = t.password;
    o.database = t.database;
    o.ssl_mode = SslMode::disable;
    return o;
}

std::int64_t single_int(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* row = rs.next();
    check(row != nullptr, sql + " returned no row");
    const auto value = row->get<std::int64_t>(0);
    rs.discard();
    return value;
}

class Ours final : public Client {
public:
    explicit Ours(Target target) : target_(std::move(target)), conn_(Connection::connect(plain_options(target_))) {}

    Timing inserts(int rows) override {
        conn_.execute("TRUNCATE TABLE bench_insert");
        conn_.execute("BEGIN");
        Statement stmt = conn_.prepare("INSERT INTO bench_insert (id, v, s) VALUES (?, ?, ?)");
        std::string s;
        const Stopwatch watch;
        for (std::int64_t i = 1; i <= rows; ++i) {
            s = insert_s(i);
            stmt.execute(i, insert_v(i), s);
        }
        const Timing elapsed = watch.elapsed();
        conn_.execute("COMMIT");
        std::int64_t expected_sum = 0;
        for (std::int64_t i = 1; i <= rows; ++i) expected_sum += i + insert_v(i);
        check(single_int(conn_, "SELECT COUNT(*) FROM bench_insert") == rows, "insert count");
        check(single_int(conn_, "SELECT SUM(id + v) FROM bench_insert") == expected_sum, "insert sum");
        return elapsed;
    }

    Timing narrow_select() override {
        const Stopwatch watch;
        ResultSet rs = conn_.query("SELECT id, v FROM bench_narrow");
        std::int64_t sum = 0;
        std::int64_t count = 0;
        for (const Row& row : rs) {
            sum += row.get<std::int64_t>(0) + row.get<std::int64_t>(1);
            ++count;
        }
        const Timing elapsed = watch.elapsed();
        check(count == narrow_rows, "narrow row count");
        check(sum == narrow_checksum(), "narrow checksum");
        return elapsed;
    }

    Timing wide_select() override {
        const Stopwatch watch;
        ResultSet rs = conn_.query("SELECT * FROM bench_wide");
        std::int64_t sum = 0;
        std::int64_t count = 0;
        for (const Row& row : rs) {
            for (std::size_t k = 0; k <= static_cast<std::size_t>(wide_int_columns); ++k) {
                sum += row.get<std::int64_t>(k);
            }
            for (std::size_t k = wide_int_columns + 1; k < static_cast<std::size_t>(wide_columns); ++k) {
                sum += static_cast<std::int64_t>(row.get<std::string_view>(k).size());
            }
            ++count;
        }
        const Timing elapsed = watch.elapsed();
        check(count == wide_rows, "wide row count");
        check(sum == wide_checksum(), "wide checksum");
        return elapsed;
    }

    Timing connects(int count) override {
        ConnectOptions o = plain_options(target_);
        o.ssl_mode = SslMode::verify_full;
        o.ssl_ca = target_.ca;
        const Stopwatch watch;
        for (int i = 0; i < count; ++i) {
            Connection c = Connection::connect(o);
            check(c.is_tls(), "connection is TLS");
            c.close();
        }
        return watch.elapsed();
    }

private:
    Target target_;
    Connection conn_;
};

}  // namespace

std::unique_ptr<Client> make_ours(const Target& target) { return std::make_unique<Ours>(target); }

}  // namespace sluice::mariadb::bench
