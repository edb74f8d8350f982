// forget in the incremental engine looks only at keys with something to
// forget (it used to visit every key, so a stream with many idle keys paid
// for all of them at every forget).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "session_engine.hpp"

namespace sluice::tideweave {
namespace {

TEST(IncrementalEngine, ForgetVisitsOnlyKeysWithSomethingToForget) {
    const Config config{20, 20};  // gap 20
    auto engine = make_incremental_engine(config);
    // 1000 keys with one event far ahead, and key 0 with an early session
    // plus a later one straddling the horizon-to-be.
    for (KeyId key = 1; key <= 1000; ++key) engine->insert(key, 10000, "late-" + std::to_string(key), 1.0);
    engine->insert(0, 0, "early", 2.0);
    engine->insert(0, 90, "straddling-a", 3.0);
    engine->insert(0, 105, "straddling-b", 4.0);  // one session [90, 105], end 125
    engine->commit();

    std::vector<SessionRow> finalized;
    engine->finalize(100, finalized);  // horizon 100: the session at 0 (end 20) is final
    ASSERT_EQ(finalized.size(), 1U);
    EXPECT_EQ(finalized[0].start, 0);

    std::vector<std::string> released;
    const ReleaseFn release = [&](std::string_view id, KeyId, std::int64_t) { released.emplace_back(id); };
    std::vector<KeyId> emptied;
    const ForgetTally counts = engine->forget(100, release, emptied);
    EXPECT_EQ(counts.keys_visited, 1U);
    EXPECT_EQ(counts.rows_dropped, 1U);
    EXPECT_EQ(counts.events_folded, 1U);  // the straddling session's event at 90
    EXPECT_EQ(released, (std::vector<std::string>{"early", "straddling-a"}));
    EXPECT_TRUE(emptied.empty());

    // Nothing below the horizon but the straddling session now.
    EXPECT_EQ(engine->forget(100, release, emptied).keys_visited, 1U);
    // An idle stream: nothing at all to look at.
    EXPECT_EQ(engine->forget(50, release, emptied).keys_visited, 0U);

    // Keys whose sessions all went are dropped from the order too.
    finalized.clear();
    engine->finalize(20000, finalized);
    EXPECT_EQ(finalized.size(), 1001U);
    const ForgetTally all = engine->forget(20000, release, emptied);
    EXPECT_EQ(all.keys_visited, 1001U);
    EXPECT_EQ(all.rows_dropped, 1001U);
    EXPECT_EQ(emptied.size(), 1001U);
    EXPECT_EQ(engine->forget(20000, release, emptied).keys_visited, 0U);
    EXPECT_EQ(engine->active_events(), 0U);
}

}  // namespace
}  // namespace sluice::tideweave
