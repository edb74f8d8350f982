// docs/mariadb.md's non-blocking examples, extracted by CMake, compiled and
// run against the server; what their comments claim is checked afterwards.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/asio_connection.hpp"
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

}  // namespace
}  // namespace sluice::mariadb
