// Checkpoint/restore continues byte for byte; forget changes nothing that can
// still matter; and the two engines agree byte for byte on random workloads
// with retractions, late data, watermarks and bad lines.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "driver.hpp"

namespace sluice::tideweave::testing {
namespace {

struct Live {
    std::string id, key;
    long long ts;
};

// A random stream of lines. `forget_percent` of the non-tx lines are
// {"forget":true}; the generator tracks the events it believes are live so
// most retractions match, and some lines are deliberately wrong.
std::vector<std::string> workload(std::uint64_t seed, int lines, bool with_forget, bool with_checkpoints = true) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    std::vector<std::string> out;
    std::vector<Live> live;
    long long clock = 0, watermark = -1000;
    int next_id = 0;
    const char* values[] = {"1", "-2", "0.1", "0.7", "1e16", "-1e16", "3.25", "1e-9", "250"};
    for (int i = 0; i < lines; ++i) {
        const int what = pick(100);
        if (what < 70) {
            std::string line = "{\"tx\":[";
            const int n = 1 + pick(6);
            for (int m = 0; m < n; ++m) {
                if (m != 0) line += ",";
                if (!live.empty() && pick(100) < 35) {
                    const std::size_t at = static_cast<std::size_t>(pick(static_cast<int>(live.size())));
                    const Live gone = live[at];
                    live.erase(live.begin() + static_cast<long>(at));
                    const long long ts = pick(100) < 3 ? gone.ts + 1 : gone.ts;  // sometimes a mismatch
                    line += ret(gone.id, gone.key, ts);
                } else {
                    clock += pick(7);
                    const long long ts = clock - pick(40);  // some behind the horizon
                    Live ev{"e" + std::to_string(pick(100) < 2 ? std::max(0, next_id - 1) : next_id++),
                            "k" + std::to_string(pick(4)), ts};
                    line += ins(ev.id, ev.key, ev.ts, values[pick(9)]);
                    live.push_back(ev);
                }
            }
            out.push_back(line + "]}");
        } else if (what < 84) {
            watermark = pick(100) < 5 ? watermark - 1 : std::max(watermark, clock - pick(20));
            out.push_back(wm(watermark));
        } else if (what < 89) {
            out.push_back("{\"snapshot\":true}");
        } else if (what < 93 && with_checkpoints) {
            out.push_back("{\"checkpoint\":true}");
        } else if (what < 97 && with_forget) {
            out.push_back("{\"forget\":true}");
        } else if (what < 98) {
            out.push_back("{\"tx\":[{\"insert\":{\"id\":\"x\",\"key\":\"k\",\"ts\":1.5,\"value\":1}}]}");
        } else {
            out.push_back("");
        }
    }
    return out;
}

std::vector<std::string> run(EngineKind kind, const std::vector<std::string>& lines) {
    Driver d(kind);
    return d.feed_all(lines);
}

TEST(Engines, AgreeByteForByteOnRandomWorkloads) {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const auto lines = workload(seed, 300, true);
        const auto a = run(EngineKind::incremental, lines);
        const auto b = run(EngineKind::naive, lines);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "seed " << seed << " line " << i + 1;
    }
}

// Sessions of hundreds of events (many leaves of the incremental index),
// split and bridged by retractions and inserts anywhere inside them.
TEST(Engines, AgreeOnLargeSessionsCutAnywhere) {
    std::mt19937_64 rng(11);
    std::vector<std::string> lines;
    std::vector<Live> live;
    for (int i = 0; i < 3000; ++i) {
        std::string line = "{\"tx\":[";
        for (int m = 0; m < 4; ++m) {
            if (m != 0) line += ",";
            if (!live.empty() && rng() % 100 < 40) {
                const std::size_t at = rng() % live.size();
                line += ret(live[at].id, live[at].key, live[at].ts);
                live[at] = live.back();
                live.pop_back();
            } else {
                Live ev{"e" + std::to_string(i * 4 + m), "k" + std::to_string(rng() % 2),
                        static_cast<long long>(rng() % 4000)};
                line += ins(ev.id, ev.key, ev.ts, std::to_string(static_cast<int>(rng() % 2001) - 1000) + ".25");
                live.push_back(ev);
            }
        }
        lines.push_back(line + "]}");
        if (i % 500 == 499) lines.push_back("{\"snapshot\":true}");
    }
    Driver a(EngineKind::incremental, Config{3, 20});
    Driver b(EngineKind::naive, Config{3, 20});
    for (std::size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(a.feed(lines[i]), b.feed(lines[i])) << "line " << i + 1;
    EXPECT_GT(a.stream().active_events(), 1000U);
}

TEST(Engines, WorkloadsExerciseEveryOutputKind) {
    const auto outs = run(EngineKind::incremental, workload(3, 400, true));
    auto count = [&](std::string_view needle) {
        return std::count_if(outs.begin(), outs.end(), [&](const std::string& o) { return o.find(needle) != o.npos; });
    };
    EXPECT_GT(count("\"late\":[{"), 0);
    EXPECT_GT(count("\"error\""), 0);
    EXPECT_GT(count("\"finalized\":[{"), 0);
    EXPECT_GT(count("\"forgotten\":"), 0);
    EXPECT_GT(count("\"checkpoint\":"), 0);
    EXPECT_GT(count("\"before\":[{\"key\":\"k0\",\"start\""), 0);
}

class Checkpoints : public ::testing::TestWithParam<EngineKind> {};
INSTANTIATE_TEST_SUITE_P(Engines, Checkpoints, ::testing::Values(EngineKind::incremental, EngineKind::naive),
                         engine_name);

TEST_P(Checkpoints, RestoreThenContinueGivesIdenticalBytes) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto lines = workload(seed, 200, true);
        const auto whole = run(GetParam(), lines);
        for (std::size_t i = 0; i < whole.size(); ++i) {
            if (whole[i].rfind("{\"version\":", 0) != 0 || whole[i].find("\"checkpoint\":") == std::string::npos)
                continue;
            // Restore the whole line into this engine, its inner object into the other.
            const std::string inner = whole[i].substr(whole[i].find("\"checkpoint\":") + 13,
                                                      whole[i].size() - whole[i].find("\"checkpoint\":") - 14);
            const EngineKind other = GetParam() == EngineKind::naive ? EngineKind::incremental : EngineKind::naive;
            for (const auto& [text, into] : {std::pair{whole[i], GetParam()}, std::pair{inner, other}}) {
                {
                    Driver resumed(Stream::restore(text, into));
                    for (std::size_t j = i + 1; j < lines.size(); ++j)
                        ASSERT_EQ(resumed.feed(lines[j]), whole[j])
                            << "seed " << seed << " checkpoint line " << i + 1 << " then line " << j + 1;
                }
            }
        }
    }
}

TEST_P(Checkpoints, ExactFormWithABlockAndFinalRows) {
    Driver d(GetParam());
    d.feed(tx({ins("a", "k", 0, "1"), ins("b", "k", 50, "0.1"), ins("c", "k", 58, "0.2"), ins("d", "j", 0, "4")}));
    d.feed(wm(75));
    d.feed("{\"forget\":true}");
    d.feed(tx({ins("e", "m", 100, "1e16")}));
    d.feed(wm(89));  // horizon 69: finalizes [50,68) of k, which keeps its block
    const std::string cp = d.feed("{\"checkpoint\":true}");
    EXPECT_EQ(cp,
              R"({"version":2,"checkpoint":{"format":"tideweave-checkpoint-1","gap":10,"lateness":20,"version":2,"line":6,"watermark":89,"keys":[)"
              R"({"key":"k","blocks":[{"first":50,"last":50,"count":1,"min":0.1,"max":0.1,"sum":[0.1]}],"events":[[58,"c",0.2]],"final":[50]},)"
              R"({"key":"m","blocks":[],"events":[[100,"e",1e+16]],"final":[]}]}})");
    Driver resumed(Stream::restore(cp, GetParam()));
    EXPECT_EQ(resumed.stream().version(), 2);
    EXPECT_EQ(resumed.stream().active_events(), 2U);
    EXPECT_EQ(resumed.feed("{\"snapshot\":true}"), d.feed("{\"snapshot\":true}"));
    EXPECT_EQ(resumed.feed(wm(200)), d.feed(wm(200)));
}

TEST(Checkpoints, RestoreKeepsTheConfiguration) {
    Driver d(EngineKind::incremental, Config{3, 0});
    d.feed(tx({ins("a", "k", 0, "1")}));
    Stream s = Stream::restore(d.feed("{\"checkpoint\":true}"));
    EXPECT_EQ(s.config().gap, 3);
    EXPECT_EQ(s.config().lateness, 0);
}

TEST(Checkpoints, MalformedCheckpointsAreRejectedClearly) {
    auto message = [](std::string_view text) {
        try {
            Stream::restore(text);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string head = R"({"format":"tideweave-checkpoint-1","gap":10,"lateness":20,"version":1,"line":3,)";
    EXPECT_EQ(message("{"), "malformed tideweave checkpoint: invalid JSON: The JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc.");
    EXPECT_EQ(message(R"({"format":"other"})"), "malformed tideweave checkpoint: checkpoint: missing member \"gap\"");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[],"more":1})"),
              "malformed tideweave checkpoint: checkpoint: unknown member \"more\"");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[{"key":"k","blocks":[],"events":[[1,"a",1],[0,"b",1]],"final":[]}]})"),
              "malformed tideweave checkpoint: keys[0].events[1]: events must be in (ts, id) order, without repeats");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[{"key":"k","blocks":[],"events":[[1,"a",1]],"final":[1]}]})"),
              "malformed tideweave checkpoint: final: a final session must end before the horizon");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[{"key":"k","blocks":[],"events":[[1,"a",1]],"final":[2]}]})"),
              "malformed tideweave checkpoint: final: no session of key \"k\" starts at 2");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[{"key":"k","blocks":[{"first":0,"last":0,"count":1,"min":1,"max":1,"sum":[1]}],"events":[],"final":[]}]})"),
              "malformed tideweave checkpoint: keys[0].blocks[0]: a block must satisfy first <= last < horizon");
    EXPECT_EQ(message(head + R"("watermark":100,"keys":[{"key":"k","blocks":[],"events":[[90,"a",1]],"final":[]},{"key":"l","blocks":[],"events":[[95,"a",1]],"final":[]}]})"),
              "malformed tideweave checkpoint: keys[1].events: id \"a\" is held twice");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[{"key":"b","blocks":[],"events":[],"final":[]},{"key":"a","blocks":[],"events":[],"final":[]}]})"),
              "malformed tideweave checkpoint: keys[1].key: keys must be unique and in byte order");
    EXPECT_EQ(message(R"({"version":2,"checkpoint":)" + head + R"("watermark":null,"keys":[]}})"),
              "malformed tideweave checkpoint: version: the line's version differs from the checkpoint's");
    EXPECT_EQ(message(head + R"("watermark":null,"keys":[]})"), "accepted");
}

class Forget : public ::testing::TestWithParam<EngineKind> {};
INSTANTIATE_TEST_SUITE_P(Engines, Forget, ::testing::Values(EngineKind::incremental, EngineKind::naive), engine_name);

TEST_P(Forget, ThenContinueEqualsNotForgetting) {
    for (std::uint64_t seed = 1; seed <= 15; ++seed) {
        const auto plain = workload(seed, 300, false, false);
        // The same lines with a forget after every watermark.
        std::vector<std::string> forgetting;
        std::vector<std::size_t> origin;  // index in `plain`, or npos for a forget line
        for (std::size_t i = 0; i < plain.size(); ++i) {
            forgetting.push_back(plain[i]);
            origin.push_back(i);
            if (plain[i].rfind("{\"watermark\"", 0) == 0) {
                forgetting.push_back("{\"forget\":true}");
                origin.push_back(std::string::npos);
            }
        }
        const auto expected = run(GetParam(), plain);
        const auto got = run(GetParam(), forgetting);
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (origin[i] == std::string::npos) continue;
            const std::string& want = expected[origin[i]];
            if (want.find("\"rows\":") != std::string::npos) continue;  // snapshots list only held rows
            // Error lines carry line numbers, which the inserted lines shift.
            if (want.rfind("{\"error\"", 0) == 0) {
                EXPECT_EQ(got[i].substr(got[i].find("\"message\"")), want.substr(want.find("\"message\"")));
                continue;
            }
            ASSERT_EQ(got[i], want) << "seed " << seed << " line " << origin[i] + 1;
        }
    }
}

TEST_P(Forget, BoundsMemoryToTheOpenPart) {
    Driver d(GetParam());
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 20; ++i) {
            const long long ts = round * 100 + i * 3;
            d.feed(tx({ins("e" + std::to_string(round) + "_" + std::to_string(i), "k" + std::to_string(i % 4), ts, "1")}));
        }
        d.feed(wm(round * 100 + 60));
        d.feed("{\"forget\":true}");
        EXPECT_LE(d.stream().active_events(), 20U);
        EXPECT_LE(d.stream().row_count(), 20U);
    }
}

}  // namespace
}  // namespace sluice::tideweave::testing
