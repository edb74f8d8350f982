// BinlogSource (binlog_source.hpp) on the fixture's MariaDB, without the run
// loop: a graceful stop asked for inside a transaction that comes in parts
// ends the step (Step::Kind::end) before the next part is read, with the
// position still before the transaction. The run loop then stops as at the
// end of the source (run.cpp: the parts applied are abandoned, what came
// before is committed), and the next run reads the transaction from its
// start, here a second source from that position reading it whole.
// Without it a stop waited for the transaction's last part, which for a
// huge one outlasts the stop's grace.
#include <gtest/gtest.h>

#include <memory>

#include "pipeline_support.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/source.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"

namespace sluice::pipeline::test {
namespace {

// Says stop from its `after`-th question on (the source asks before each
// part after the first).
class StopAfter final : public RunObserver {
public:
    explicit StopAfter(int after) : after_(after) {}
    bool stop_requested() const override { return ++asked_ >= after_; }
    int asked() const { return asked_; }

private:
    int after_;
    mutable int asked_ = 0;
};

// The next step that is not another table's transaction or a quiet moment
// (other tests write to the server too); `before`: the position before it.
Step next_of_the_table(Source& source, TransactionMapper& mapper, std::string* before = nullptr) {
    for (;;) {
        if (before) *before = source.position();
        const Step step = source.next(mapper, false);
        if (step.kind != Step::Kind::skipped && step.kind != Step::Kind::idle) return step;
    }
}

Options binlog_options(const std::string& from_gtid, RunObserver* observer) {
    Options o;
    o.source_url = mariadb_url();
    o.run.db = "pipeline_test";
    o.run.table = "stop_parts";
    o.run.columns = ColumnNames{"id", "k", "t", "v"};
    o.run.sink_table = "stop_parts";
    o.run.observer = observer;
    o.binlog.start = StartMode::from_gtid;
    o.binlog.from_gtid = from_gtid;
    return o;
}

TEST(BinlogSource, AStopAskedForInsideATransactionInPartsEndsTheStepBeforeItsNextPart) {
    auto my = mariadb::Connection::connect(mariadb::parse_url(mariadb_url()));
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.stop_parts");
    my.execute("CREATE TABLE pipeline_test.stop_parts (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    // One transaction of about 5 MiB of binlog rows: parts of 1 MiB.
    constexpr int rows = 150000;
    my.execute("SET SESSION max_recursive_iterations = 1000000");
    my.execute("INSERT INTO pipeline_test.stop_parts WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s "
               "WHERE i < " + std::to_string(rows) + ") SELECT i, CONCAT('k', i % 50), i, 1 FROM s");

    StopAfter stop(2);  // the stop comes after part 2 is applied
    const std::unique_ptr<Source> source = make_source(binlog_options(start, &stop));
    source->check();
    source->open(std::nullopt);
    TransactionMapper mapper(ColumnNames{"id", "k", "t", "v"});
    std::size_t parts_applied = 0;
    mapper.split_into_parts(1000, [&](TransactionMapper&) { ++parts_applied; });
    std::string before;
    const Step step = next_of_the_table(*source, mapper, &before);
    EXPECT_EQ(step.kind, Step::Kind::end);
    EXPECT_EQ(stop.asked(), 2);     // asked before part 2 and before part 3
    EXPECT_GT(parts_applied, 0U);   // part 1 and 2's changes went to the handler
    EXPECT_LT(mapper.changes(), static_cast<std::size_t>(rows));
    EXPECT_EQ(source->position(), before);  // still before the transaction

    // A next run from there: the transaction, whole.
    const std::unique_ptr<Source> again = make_source(binlog_options(source->position(), nullptr));
    again->check();
    again->open(std::nullopt);
    TransactionMapper whole(ColumnNames{"id", "k", "t", "v"});
    whole.split_into_parts(1000, [](TransactionMapper&) {});
    const Step read = next_of_the_table(*again, whole);
    EXPECT_EQ(read.kind, Step::Kind::transaction);
    EXPECT_EQ(whole.changes(), static_cast<std::size_t>(rows));
}

}  // namespace
}  // namespace sluice::pipeline::test
