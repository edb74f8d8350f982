#include "sluice/service/metrics.hpp"

#include <gtest/gtest.h>

using namespace sluice::service;

TEST(Metrics, ExpositionIsPrometheusTextFormat004) {
    Registry r;
    Counter& tx = r.counter("sluice_cdc_transactions_total", "Transactions written.");
    Counter& src = r.counter("sluice_pipeline_retries_total", "Retries.", {{"what", "source"}});
    r.counter("sluice_pipeline_retries_total", "Retries.", {{"what", "sink"}}).add(2);
    r.computed("sluice_cdc_lag_seconds", "Lag in seconds.", Type::gauge, [] { return 1.5; });
    r.info("sluice_cdc_position_info", "The position.", "gtid", [] { return std::string("0-1-42,1-2-\"7\""); });
    tx.add(3);
    src.add();
    EXPECT_EQ(r.exposition(),
              "# HELP sluice_cdc_transactions_total Transactions written.\n"
              "# TYPE sluice_cdc_transactions_total counter\n"
              "sluice_cdc_transactions_total 3\n"
              "# HELP sluice_pipeline_retries_total Retries.\n"
              "# TYPE sluice_pipeline_retries_total counter\n"
              "sluice_pipeline_retries_total{what=\"source\"} 1\n"
              "sluice_pipeline_retries_total{what=\"sink\"} 2\n"
              "# HELP sluice_cdc_lag_seconds Lag in seconds.\n"
              "# TYPE sluice_cdc_lag_seconds gauge\n"
              "sluice_cdc_lag_seconds 1.5\n"
              "# HELP sluice_cdc_position_info The position.\n"
              "# TYPE sluice_cdc_position_info gauge\n"
              "sluice_cdc_position_info{gtid=\"0-1-42,1-2-\\\"7\\\"\"} 1\n");
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
    Registry r;
    Histogram& h = r.histogram("sluice_pipeline_sink_commit_seconds", "Sink commit time.", {0.01, 0.1, 1});
    h.observe(0.005);
    h.observe(0.01);  // on a bound: in that bucket (le = less or equal)
    h.observe(0.5);
    h.observe(7);
    EXPECT_EQ(r.exposition(),
              "# HELP sluice_pipeline_sink_commit_seconds Sink commit time.\n"
              "# TYPE sluice_pipeline_sink_commit_seconds histogram\n"
              "sluice_pipeline_sink_commit_seconds_bucket{le=\"0.01\"} 2\n"
              "sluice_pipeline_sink_commit_seconds_bucket{le=\"0.1\"} 2\n"
              "sluice_pipeline_sink_commit_seconds_bucket{le=\"1\"} 3\n"
              "sluice_pipeline_sink_commit_seconds_bucket{le=\"+Inf\"} 4\n"
              "sluice_pipeline_sink_commit_seconds_sum 7.515\n"
              "sluice_pipeline_sink_commit_seconds_count 4\n");
}

TEST(Metrics, ValuesAreWrittenInTheFormatsNumberSyntax) {
    EXPECT_EQ(format_value(0), "0");
    EXPECT_EQ(format_value(12345678901234), "12345678901234");
    EXPECT_EQ(format_value(-2), "-2");
    EXPECT_EQ(format_value(0.25), "0.25");
    EXPECT_EQ(format_value(1e300), "1e+300");
    EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
    EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
    EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
    EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(Metrics, OneNameCannotHaveTwoTypes) {
    Registry r;
    r.counter("x_total", "x");
    EXPECT_THROW(r.gauge("x_total", "x"), std::invalid_argument);
    EXPECT_THROW(Histogram({1, 0.5}), std::invalid_argument);
}

TEST(Metrics, ValuesListEverySeriesForStatus) {
    Registry r;
    r.counter("a_total", "a").add(4);
    r.gauge("g", "g", {{"k", "v"}}).set(2.5);
    r.histogram("h_seconds", "h", {1}).observe(0.5);
    const auto v = r.values();
    ASSERT_EQ(v.size(), 4U);
    EXPECT_EQ(v[0], (std::pair<std::string, double>{"a_total", 4}));
    EXPECT_EQ(v[1], (std::pair<std::string, double>{"g{k=\"v\"}", 2.5}));
    EXPECT_EQ(v[2], (std::pair<std::string, double>{"h_seconds_count", 1}));
    EXPECT_EQ(v[3], (std::pair<std::string, double>{"h_seconds_sum", 0.5}));
}
