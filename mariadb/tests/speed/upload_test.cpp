// Streamed LOAD DATA LOCAL INFILE: a 1 GiB generated source in a few MiB,
// counted by the server; requests for anything but the registered source
// refused with nothing read; reader failures; uploads under compression.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <string>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/upload.hpp"

namespace sluice::mariadb {
namespace {

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Lines "<number>,<pad>\n" of exactly line_size bytes, generated on demand.
class LineSource {
public:
    LineSource(std::size_t lines, std::size_t line_size) : lines_(lines), line_size_(line_size) {}
    std::size_t operator()(std::span<std::uint8_t> buf) {
        std::size_t n = 0;
        while (n < buf.size() && line_ < lines_) {
            if (pos_ == 0) make_line();
            std::size_t take = std::min(buf.size() - n, line_size_ - pos_);
            std::memcpy(buf.data() + n, current_.data() + pos_, take);
            n += take;
            pos_ += take;
            if (pos_ == line_size_) {
                pos_ = 0;
                ++line_;
            }
        }
        bytes_ += n;
        ++calls_;
        return n;
    }
    std::size_t bytes() const { return bytes_; }
    std::size_t calls() const { return calls_; }

private:
    // In place, without allocating: the RSS bound measures the client.
    void make_line() {
        current_.resize(line_size_);
        auto [end, ec] = std::to_chars(current_.data(), current_.data() + line_size_, line_);
        *end++ = ',';
        std::fill(end, current_.data() + line_size_ - 1, static_cast<char>('a' + line_ % 26));
        current_.back() = '\n';
    }
    std::size_t lines_, line_size_, line_ = 0, pos_ = 0, bytes_ = 0, calls_ = 0;
    std::string current_;
};

class Upload : public ::testing::Test {
protected:
    void SetUp() override {
        conn.emplace(Connection::connect(test::admin_options()));
        conn->execute("DROP TABLE IF EXISTS speed_upload");
        conn->execute("CREATE TABLE speed_upload (id BIGINT PRIMARY KEY, pad VARCHAR(5000))");
    }
    void TearDown() override {
        if (conn && !conn->broken()) conn->execute("DROP TABLE IF EXISTS speed_upload");
    }
    std::uint64_t count() {
        ResultSet rs = conn->query("SELECT COUNT(*) FROM speed_upload");
        std::uint64_t n = rs.next()->get<std::uint64_t>(0);
        rs.discard();
        return n;
    }
    std::optional<Connection> conn;
};

TEST_F(Upload, StreamsAnIstreamAndTheServerCountsItsRows) {
    std::stringstream csv;
    std::uint64_t id_sum = 0;
    for (int i = 0; i < 1000; ++i) {
        csv << i << ",row " << i << "\n";
        id_sum += static_cast<std::uint64_t>(i);
    }
    OkInfo ok = upload(*conn, "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE speed_upload FIELDS TERMINATED BY ','",
                       "rows.csv", csv);
    EXPECT_EQ(ok.affected_rows, 1000u);
    EXPECT_EQ(ok.info.rfind("Records: 1000", 0), 0u) << ok.info;
    ResultSet rs = conn->query("SELECT SUM(id), MAX(pad) FROM speed_upload");
    const Row* r = rs.next();
    EXPECT_EQ(r->get<std::uint64_t>(0), id_sum);
    EXPECT_EQ(r->get<std::string>(1), "row 999");
    rs.discard();
}

TEST_F(Upload, OneGibibyteInAFewMebibytes) {
    // Every line lands on key 1: IGNORE skips the duplicates, so the server
    // parses and counts all of them without storing a GiB.
    constexpr std::size_t line_size = 4096;
    constexpr std::size_t lines = (std::size_t{1} << 30) / line_size;
    LineSource source(lines, line_size);
    std::size_t rss_start = resident_bytes();
    std::size_t rss_peak = rss_start;
    // Plain TCP: OpenSSL allocates per record, and under AddressSanitizer
    // freed blocks stay resident in its quarantine, which would be counted
    // here as if the client held them.
    ConnectOptions plain = test::admin_options();
    plain.ssl_mode = SslMode::disable;
    conn.emplace(Connection::connect(plain));
    UploadReader reader = [&](std::span<std::uint8_t> buf) {
        std::size_t n = source(buf);
        if (source.calls() % 256 == 0) rss_peak = std::max(rss_peak, resident_bytes());
        return n;
    };
    OkInfo ok = upload(*conn,
                       "LOAD DATA LOCAL INFILE 'generated' IGNORE INTO TABLE speed_upload "
                       "FIELDS TERMINATED BY ',' (@n, pad) SET id = 1",
                       "generated", reader);
    rss_peak = std::max(rss_peak, resident_bytes());
    EXPECT_EQ(source.bytes(), std::size_t{1} << 30);
    EXPECT_EQ(ok.info.rfind("Records: " + std::to_string(lines) + "  Deleted: 0  Skipped: " +
                                std::to_string(lines - 1),
                            0),
              0u)
        << ok.info;
    std::size_t growth = rss_peak - rss_start;
    std::cout << "1 GiB upload: RSS growth " << growth << " bytes\n";
    EXPECT_LT(growth, 8u << 20) << "RSS grew by " << growth << " bytes";
    EXPECT_EQ(count(), 1u);
}

TEST_F(Upload, AHostileRequestForAnotherFileIsRefusedAndNothingIsRead) {
    // A plain query: no source is registered, so no request is honoured.
    conn->query("SELECT 1").discard();
    try {
        conn->execute("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE speed_upload FIELDS TERMINATED BY ':'");
        FAIL() << "the request was honoured";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_NE(std::string(e.what()).find("'/etc/passwd'"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(conn->broken());
    EXPECT_EQ(count(), 0u);

    // A registered source, but the statement names another file.
    LineSource source(10, 20);
    UploadReader reader = [&](std::span<std::uint8_t> buf) { return source(buf); };
    EXPECT_EQ(test::kind_of([&] {
                  upload(*conn, "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE speed_upload", "data.csv", reader);
              }),
              ErrorKind::usage);
    EXPECT_EQ(source.calls(), 0u);
    EXPECT_EQ(count(), 0u);

    // The connection is in step: the registered name is honoured.
    conn->query("SELECT 2").discard();
    EXPECT_EQ(count(), 0u);
    EXPECT_EQ(upload(*conn, "LOAD DATA LOCAL INFILE 'data.csv' INTO TABLE speed_upload FIELDS TERMINATED BY ','",
                     "data.csv", reader)
                  .affected_rows,
              10u);
}

TEST_F(Upload, AFailingReaderAbortsAndTheConnectionStaysUsable) {
    std::size_t calls = 0;
    UploadReader reader = [&](std::span<std::uint8_t> buf) -> std::size_t {
        if (++calls == 3) throw std::runtime_error("disk on fire");
        std::string line = std::to_string(calls) + ",x\n";
        std::memcpy(buf.data(), line.data(), line.size());
        return line.size();
    };
    try {
        upload(*conn, "LOAD DATA LOCAL INFILE 'f' INTO TABLE speed_upload FIELDS TERMINATED BY ','", "f", reader);
        FAIL() << "reader failure swallowed";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "disk on fire");
    }
    EXPECT_FALSE(conn->broken());
    EXPECT_LE(count(), 2u);
    EXPECT_EQ(conn->query("SELECT 7").next()->get<int>(0), 7);
}

TEST(UploadCompressed, StreamsThroughTheCompressedProtocol) {
    ConnectOptions o = test::admin_options();
    o.compress = true;
    Connection conn = Connection::connect(o);
    ASSERT_TRUE(conn.is_compressed());
    conn.execute("DROP TABLE IF EXISTS speed_upload_z");
    conn.execute("CREATE TABLE speed_upload_z (id BIGINT PRIMARY KEY, pad VARCHAR(5000))");
    LineSource source(5000, 1000);  // 5 MB
    UploadReader reader = [&](std::span<std::uint8_t> buf) { return source(buf); };
    OkInfo ok = upload(conn, "LOAD DATA LOCAL INFILE 'z' INTO TABLE speed_upload_z FIELDS TERMINATED BY ','", "z",
                       reader);
    EXPECT_EQ(ok.affected_rows, 5000u);
    ResultSet rs = conn.query("SELECT SUM(id), SUM(LENGTH(pad)) FROM speed_upload_z");
    const Row* r = rs.next();
    EXPECT_EQ(r->get<std::uint64_t>(0), 4999u * 5000u / 2);
    rs.discard();
    conn.execute("DROP TABLE speed_upload_z");
}

}  // namespace
}  // namespace sluice::mariadb
