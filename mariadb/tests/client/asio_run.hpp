#pragma once
// Running one coroutine of the asio tests to its end on a fresh io_context
// on this thread; what it threw is rethrown here.
#include <asio/any_io_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <exception>

namespace sluice::mariadb::test {

// `make(executor)` returns the asio::awaitable to run.
template <class Make>
void run_on_one_thread(Make&& make) {
    asio::io_context io;
    std::exception_ptr failure;
    asio::co_spawn(io, make(io.get_executor()), [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace sluice::mariadb::test
