// Transactions larger than a line (issue 25): `cdc --out FILE
// --max-line-bytes N` writes them as consecutive part lines, a SIGKILL
// inside one and a restart give the file an uninterrupted run gives, and
// the file rebuilds the table as SELECT shows it.
//
// Rows: SLUICE_LARGE_TXN_ROWS (default 60,000 in CI; the full form
// is `SLUICE_LARGE_TXN_ROWS=3000000 ctest --test-dir build/dev -R
// CdcLargeTransaction`), lines of 64 KiB so that each big transaction is
// dozens of parts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <thread>

#include "cdc_support.hpp"
#include "cli_child.hpp"
#include "sluice/mariadb/cdc/ndjson_reader.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;
namespace nd = cdc::ndjson;

std::size_t rows_asked() {
    const char* e = std::getenv("SLUICE_LARGE_TXN_ROWS");
    return e && *e ? std::stoul(e) : 60000;
}

std::size_t file_size(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

// The "changes" array's text of each transaction, its parts joined, by gtid
// in file order: two files hold the same changes when these are equal.
std::vector<std::pair<std::string, std::string>> changes_by_transaction(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& line : lines_of(text)) {
        const std::string gtid = line.substr(9, line.find('"', 9) - 9);
        const std::size_t at = line.find(",\"changes\":[");
        if (at == std::string::npos) continue;  // DDL
        std::string changes = line.substr(at + 12, line.size() - at - 12 - 2);
        const bool continues = line.find(",\"part\":") < at && line.find(",\"part\":1,") > at;
        if (continues) {
            EXPECT_EQ(out.back().first, gtid);
            if (!changes.empty()) out.back().second += "," + changes;
        } else {
            out.emplace_back(gtid, changes);
        }
    }
    return out;
}

class CdcLargeTransaction : public ::testing::Test {
protected:
    void SetUp() override {
        conn_.emplace(Connection::connect(admin_options()));
        sql().execute("CREATE DATABASE IF NOT EXISTS cdc_stream");
        sql().execute("DROP TABLE IF EXISTS cdc_stream.large");
        start_ = binlog_pos(sql());
        dir_ = std::string(SLUICE_OWN_SERVERS_DIR) + "/cdc-large-" + std::to_string(::getpid());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    Connection& sql() { return *conn_; }
    std::vector<std::string> args(const std::string& file, std::size_t max_line) const {
        return {"cdc", url_of(admin_options()), "--from-gtid", start_, "--tables", "cdc_stream.large", "--out", file,
                "--until-end", "--max-line-bytes", std::to_string(max_line)};
    }
    std::optional<Connection> conn_;
    std::string start_, dir_;
};

TEST_F(CdcLargeTransaction, SigkillInsideAnInsertInPartsThenARestartGivesTheUninterruptedFile) {
    const std::size_t n = rows_asked();
    const std::string rows = std::to_string(n);
    sql().execute("CREATE TABLE cdc_stream.large (id INT PRIMARY KEY, v INT, pad CHAR(40))");
    sql().execute("INSERT INTO cdc_stream.large VALUES (0, 0, 'small before')");
    sql().execute("INSERT INTO cdc_stream.large SELECT seq, seq, REPEAT('i', 40) FROM seq_1_to_" + rows);
    sql().execute("UPDATE cdc_stream.large SET pad = 'small between' WHERE id = 0");
    sql().execute("UPDATE cdc_stream.large SET v = v + 1, pad = REPEAT('u', 30)");
    sql().execute("INSERT INTO cdc_stream.large VALUES (" + std::to_string(n + 1) + ", 1, 'small')");
    sql().execute("DELETE FROM cdc_stream.large WHERE id % 3 = 0 AND id > 0");
    sql().execute("START TRANSACTION");
    sql().execute("INSERT INTO cdc_stream.large VALUES (" + std::to_string(n + 2) + ", 2, 'small after')");
    sql().execute("UPDATE cdc_stream.large SET v = 7 WHERE id = 1");
    sql().execute("COMMIT");
    constexpr std::size_t max_line = 64 * 1024;

    // Uninterrupted, in 64 KiB lines and with the default bound (one line each).
    const std::string whole = dir_ + "/whole.ndjson", parted = dir_ + "/parted.ndjson", killed = dir_ + "/killed.ndjson";
    ASSERT_EQ(wait_exit(spawn_cli(args(parted, max_line), dir_ + "/log")), 0) << read_file(dir_ + "/log");
    ASSERT_EQ(wait_exit(spawn_cli(args(whole, std::size_t{1} << 30), dir_ + "/log")), 0) << read_file(dir_ + "/log");
    const std::string parted_text = read_file(parted);
    const std::vector<std::string> lines = lines_of(parted_text);

    // The part lines: bounded, keys in the documented order, numbered 1..K,
    // the last with "last":true; the small transactions have no "part".
    std::size_t part_lines = 0, transactions_in_parts = 0, expected_part = 1;
    std::string big_insert;
    for (const std::string& line : lines) {
        EXPECT_LE(line.size() + 1, max_line);
        const std::size_t part_at = line.find(",\"part\":");
        const std::size_t changes_at = line.find(",\"changes\":[");
        if (part_at == std::string::npos || part_at > changes_at) {
            EXPECT_EQ(expected_part, 1U) << "a whole line inside a transaction in parts";
            continue;
        }
        ++part_lines;
        EXPECT_EQ(line.substr(0, 9), "{\"gtid\":\"");
        EXPECT_LT(line.find(",\"server_id\":"), line.find(",\"ts\":"));
        EXPECT_LT(line.find(",\"ts\":"), part_at);
        const std::string k = std::to_string(expected_part);
        EXPECT_EQ(line.substr(part_at, 8 + k.size() + 1), ",\"part\":" + k + ",") << line.substr(0, 120);
        const bool last = line.substr(part_at + 8 + k.size(), 12) == ",\"last\":true";
        if (last) EXPECT_EQ(part_at + 8 + k.size() + 12, changes_at);
        else EXPECT_EQ(part_at + 8 + k.size(), changes_at);
        if (big_insert.empty()) big_insert = line.substr(9, line.find('"', 9) - 9);
        expected_part = last ? 1 : expected_part + 1;
        if (last) ++transactions_in_parts;
    }
    EXPECT_EQ(expected_part, 1U);
    EXPECT_EQ(transactions_in_parts, 3U);  // the insert, the update, the delete
    EXPECT_GT(part_lines, 3 * (n * 60 / 3 / max_line));
    // The same changes as one line per transaction.
    EXPECT_EQ(changes_by_transaction(parted_text), changes_by_transaction(read_file(whole)));

    // With a bound over 128 KiB, only the first part fills it: the later
    // ones are lines of at most 128 KiB (the CLI keeps the line being
    // filled in cache), and the changes are still the same.
    const std::string wide = dir_ + "/wide.ndjson";
    ASSERT_EQ(wait_exit(spawn_cli(args(wide, 1024 * 1024), dir_ + "/log")), 0) << read_file(dir_ + "/log");
    const std::string wide_text = read_file(wide);
    std::size_t first_parts_over = 0, later_parts_over = 0, wide_parts = 0;
    for (const std::string& line : lines_of(wide_text)) {
        const std::size_t part_at = line.find(",\"part\":");
        if (part_at == std::string::npos || part_at > line.find(",\"changes\":[")) continue;
        ++wide_parts;
        EXPECT_LE(line.size() + 1, 1024U * 1024U);
        const bool first = line.compare(part_at, 10, ",\"part\":1,") == 0;
        if (line.size() + 1 > 128 * 1024) ++(first ? first_parts_over : later_parts_over);
    }
    EXPECT_EQ(first_parts_over, 3U);  // each big transaction's part 1 fills the bound
    EXPECT_EQ(later_parts_over, 0U);
    EXPECT_GT(wide_parts, 3 * 10U);
    EXPECT_EQ(changes_by_transaction(wide_text), changes_by_transaction(read_file(whole)));

    // SIGKILL while the insert's parts are being written: stopped at each
    // write until the file holds some of its parts but not its last one.
    bool killed_inside = false;
    for (int attempt = 0; attempt < 5 && !killed_inside; ++attempt) {
        std::filesystem::remove(killed);
        pid_t pid = spawn_cli(args(killed, max_line), dir_ + "/log");
        std::size_t seen = 0;
        for (;;) {
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid) break;  // finished first: try again
            const std::size_t size = file_size(killed);
            if (size == seen) {
                std::this_thread::sleep_for(200us);
                continue;
            }
            ::kill(pid, SIGSTOP);
            seen = file_size(killed);
            const std::string text = read_file(killed);
            const bool has_part = text.find("{\"gtid\":\"" + big_insert + "\",") != std::string::npos;
            const bool has_last = text.find(",\"last\":true") != std::string::npos;
            if (has_part && !has_last) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
                killed_inside = true;
                break;
            }
            ::kill(pid, SIGCONT);
            if (has_last) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
                break;
            }
        }
    }
    ASSERT_TRUE(killed_inside) << "no kill landed inside the insert in 5 attempts";
    ASSERT_EQ(wait_exit(spawn_cli(args(killed, max_line), dir_ + "/log")), 0) << read_file(dir_ + "/log");
    EXPECT_TRUE(read_file(killed) == parted_text) << "the restarted file differs from the uninterrupted one";

    // The file rebuilds the table, read with the reader and its part checks.
    nd::LineReader reader({{"id", ""}, {"v", ""}, {"pad", ""}}, "cdc_stream", "large");
    nd::PartSequence parts;
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> table, open;
    bool inside = false;
    std::size_t line_no = 0;
    for (const std::string& line : lines) {
        const std::string where = "line " + std::to_string(++line_no);
        const nd::Line& l = reader.parse(line, where);
        const nd::PartSequence::Step step = parts.next(l, where);
        if (step == nd::PartSequence::Step::opens) {
            open = table;  // applied to a copy: committed at the last part
            inside = true;
        }
        auto& target = inside ? open : table;
        for (const nd::LineChange& c : l.changes) {
            if (c.op == nd::RowOp::remove) target.erase(c.before[0].i);
            else target[c.after[0].i] = {c.after[1].i, std::string(c.after[2].text)};
            if (c.op == nd::RowOp::update && c.before[0].i != c.after[0].i) target.erase(c.before[0].i);
        }
        if (step == nd::PartSequence::Step::completes) {
            table = std::move(open);
            inside = false;
        }
    }
    parts.finish("the end of the file");
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> selected;
    ResultSet rs = sql().query("SELECT id, v, pad FROM cdc_stream.large");
    while (const Row* r = rs.next())
        selected[r->get<std::int64_t>(0)] = {r->get<std::int64_t>(1), r->get<std::string>(2)};
    EXPECT_EQ(selected.size(), n + 3 - (n + 1) / 3);
    EXPECT_TRUE(table == selected) << "the file rebuilds " << table.size() << " rows, SELECT shows " << selected.size();
    sql().execute("DROP TABLE cdc_stream.large");
}

}  // namespace
}  // namespace sluice::mariadb::test
