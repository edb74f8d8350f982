// Source changes -> the Tideweave transaction: order, retractions with the
// before image's value, rejected after images.
#include <gtest/gtest.h>

#include "sluice/pipeline/transaction_mapper.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;
using tideweave::Mutation;

RowImage row(std::int64_t id, const char* key, std::int64_t ts, double value) {
    return {V::of_signed(id), V::of_text(key), V::of_signed(ts), V::of_double(value)};
}

SourceChange insert(RowImage a) { return {SourceChange::Op::insert, std::nullopt, a}; }
SourceChange update(RowImage b, RowImage a) { return {SourceChange::Op::update, b, a}; }
SourceChange remove(RowImage b) { return {SourceChange::Op::remove, b, std::nullopt}; }

TEST(TransactionMapper, InsertDeleteAndUpdateInBinlogOrder) {
    TransactionMapper m({"id", "key", "ts", "value"});
    m.begin();
    m.add(insert(row(1, "a", 10, 1.5)));
    m.add(update(row(1, "a", 10, 1.5), row(1, "b", 30, 2.5)));  // moves key and time
    m.add(remove(row(2, "c", 5, -1)));
    ASSERT_EQ(m.mutations().size(), 4U);
    const auto mu = m.mutations();
    EXPECT_EQ(mu[0].kind, Mutation::Kind::insert);
    EXPECT_EQ(mu[0].id, "1");
    EXPECT_EQ(mu[1].kind, Mutation::Kind::retract);
    EXPECT_EQ(mu[1].key, "a");
    EXPECT_EQ(mu[1].ts, 10);
    EXPECT_TRUE(mu[1].check_value);
    EXPECT_EQ(mu[1].value, 1.5);
    EXPECT_EQ(mu[2].kind, Mutation::Kind::insert);
    EXPECT_EQ(mu[2].key, "b");
    EXPECT_EQ(mu[2].ts, 30);
    EXPECT_EQ(mu[3].kind, Mutation::Kind::retract);
    EXPECT_EQ(mu[3].id, "2");
    EXPECT_EQ(mu[3].value, -1);
    EXPECT_EQ(std::vector<std::size_t>(m.origins().begin(), m.origins().end()), (std::vector<std::size_t>{0, 1, 1, 2}));
    EXPECT_EQ(m.max_after_ts(), 30);  // after images only: the deleted row's 5 and the before image's 10 do not count
    EXPECT_TRUE(m.rejected().empty());
}

TEST(TransactionMapper, RejectedAfterImagesAndBeforeImagesThatWereNeverEvents) {
    TransactionMapper m({"id", "key", "ts", "value"});
    m.begin();
    RowImage no_ts = {V::of_signed(3), V::of_text("a"), V::null_value(), V::of_double(1)};
    m.add(insert(no_ts));                             // rejected: no mutation
    m.add(update(no_ts, row(3, "a", 4, 1)));          // nothing to retract; the after image is an event
    m.add(update(row(3, "a", 4, 1), no_ts));          // retraction; the after image is rejected
    ASSERT_EQ(m.mutations().size(), 2U);
    EXPECT_EQ(m.mutations()[0].kind, Mutation::Kind::insert);
    EXPECT_EQ(m.mutations()[1].kind, Mutation::Kind::retract);
    ASSERT_EQ(m.rejected().size(), 2U);
    EXPECT_EQ(m.rejected()[0].change, 0U);
    EXPECT_EQ(m.rejected()[0].image, "after");
    EXPECT_EQ(m.rejected()[0].id, "3");
    EXPECT_EQ(m.rejected()[0].ts, std::nullopt);
    EXPECT_EQ(m.rejected()[0].reason, "ts column \"ts\": NULL");
    EXPECT_EQ(m.rejected()[1].change, 2U);
    EXPECT_EQ(m.max_after_ts(), 4);
}

TEST(TransactionMapper, RejectAllKeepsOwnReasonsAndNamesEveryChange) {
    TransactionMapper m({"id", "key", "ts", "value"});
    m.begin();
    m.add(insert(row(1, "a", 1, 1)));
    m.add(insert({V::of_signed(2), V::null_value(), V::of_signed(1), V::of_double(1)}));
    m.add(remove(row(9, "z", 1, 1)));
    auto all = m.reject_all("transaction rejected by Tideweave: x");
    ASSERT_EQ(all.size(), 3U);
    EXPECT_EQ(all[0].reason, "transaction rejected by Tideweave: x");
    EXPECT_EQ(all[0].image, "after");
    EXPECT_EQ(all[1].reason, "key column \"key\": NULL");
    EXPECT_EQ(all[2].image, "before");
    EXPECT_EQ(all[2].id, "9");
    m.begin();
    EXPECT_TRUE(m.mutations().empty());
    EXPECT_EQ(m.changes(), 0U);
}

}  // namespace
}  // namespace sluice::pipeline
