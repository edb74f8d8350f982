// docs/mariadb.md's non-blocking examples, extracted by CMake, compiled and
// run against the server; what their comments claim is checked afterwards.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/asio_connection.hpp"
#include "sluice/mariadb/asio_pool.hpp"
#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

int async_doc_example(const ConnectOptions& options) {
#include "async_example.inc"
    return answer;
}

asio::awaitable<void> asio_doc_example(asio::any_io_executor executor, ConnectOptions options,
                                       std::vector<std::string>& names, bool& timed_out, std::uint64_t& deleted) {
#include "asio_example.inc"
}

std::vector<int> asio_pool_doc_example(const ConnectOptions& options, PoolStats& stats) {
#include "asio_pool_example.inc"
    stats = pool.stats();
    return answers;
}

asio::awaitable<void> asio_compress_doc_example(asio::any_io_executor executor, ConnectOptions options,
                                                std::size_t& length, bool& compressed) {
#include "asio_compress_example.inc"
}

TEST(AsyncDocs, ThePollLoopExampleCompilesAndAnswers42) { EXPECT_EQ(async_doc_example(test::admin_options()), 42); }

TEST(AsyncDocs, TheAsioExampleCompilesAndDoesWhatItSays) {
    asio::io_context io;
    std::vector<std::string> names;
    bool timed_out = false;
    std::uint64_t deleted = 0;
    std::exception_ptr failure;
    asio::co_spawn(io, asio_doc_example(io.get_executor(), test::admin_options(), names, timed_out, deleted),
                   [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
    EXPECT_EQ(names, (std::vector<std::string>{"rex", "tom"}));
    EXPECT_TRUE(timed_out);
    EXPECT_EQ(deleted, 1U);
}

TEST(AsyncDocs, ThePoolExampleAnswersTenRequestsOnTwoConnections) {
    PoolStats stats;
    std::vector<int> answers = asio_pool_doc_example(test::admin_options(), stats);
    std::sort(answers.begin(), answers.end());
    EXPECT_EQ(answers, (std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
    EXPECT_EQ(stats.connects, 2U);
    EXPECT_EQ(stats.resets, 10U);
}

TEST(AsyncDocs, TheCompressionExampleReadsTheValueCompressed) {
    asio::io_context io;
    std::size_t length = 0;
    bool compressed = false;
    std::exception_ptr failure;
    asio::co_spawn(io, asio_compress_doc_example(io.get_executor(), test::admin_options(), length, compressed),
                   [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
    EXPECT_EQ(length, 100000U);
    EXPECT_TRUE(compressed);
}

}  // namespace
}  // namespace sluice::mariadb
