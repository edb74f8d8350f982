#include "sluice/service/history.hpp"
#include "sluice/service/monitor.hpp"

#include <gtest/gtest.h>

using namespace sluice::service;

TEST(History, KeepsTheLast600SamplesOldestFirst) {
    History h;
    for (int i = 0; i < 1000; ++i) h.add(Sample{i, static_cast<double>(i), 0});
    const auto s = h.samples();
    ASSERT_EQ(s.size(), 600U);
    EXPECT_EQ(s.front().unix_seconds, 400);
    EXPECT_EQ(s.back().unix_seconds, 999);
}

TEST(Monitor, RowsPerSecondIsTheChangeOfTheRowCountAndStatusHoldsTheHistory) {
    Registry r;
    Health health;
    Figures f;
    f.position = "0-1-5";
    f.late = 2;
    Monitor m({"prog", "mariadb://u:pw@h:1/", "file out.ndjson"}, r, health, [&] { return f; });
    m.sample(100);  // the first sample has no rate
    f.row_changes = 30;
    f.lag_seconds = 4;
    m.sample(101);
    health.problem("source", "connection refused");
    const std::string s = m.status_json();
    EXPECT_NE(s.find("\"source\":\"mariadb://u:***@h:1/\""), std::string::npos) << s;
    EXPECT_EQ(s.find("pw"), std::string::npos) << s;
    EXPECT_NE(s.find("\"position\":\"0-1-5\""), std::string::npos) << s;
    EXPECT_NE(s.find("\"healthy\":false,\"problem\":\"source: connection refused\""), std::string::npos) << s;
    EXPECT_NE(s.find("\"row_changes\":30,\"rows_per_second\":30,\"lag_seconds\":4,\"late\":2,\"rejected\":null"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("\"history\":{\"seconds\":[100,101],\"rows_per_second\":[0,30],\"lag_seconds\":[0,4]}"),
              std::string::npos)
        << s;
}
