// The many-connections rows through sluice (issue 29): 20,000 point SELECTs
// spread over 64 connections, either all on one thread through
// AsioConnection's coroutines, or on 64 threads with one blocking
// Connection each. The connections are opened once per process (untimed)
// and kept for every run.
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <exception>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/mariadb/asio_connection.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "speed_bench.hpp"

namespace sluice::mariadb::speed_bench {
namespace {

std::string point_sql(int i) { return "SELECT v FROM speed_narrow WHERE id = " + std::to_string(point_id(i)); }

std::uint64_t point_value(ResultSet& rs) {
    const Row* r = rs.next();
    check(r != nullptr, "point row");
    const std::uint64_t v = r->get<std::uint64_t>(0);
    check(rs.next() == nullptr, "one point row");
    return v;
}

struct AsyncConnections {
    asio::io_context io;
    std::vector<AsioConnection> conns;
};

// Runs every coroutine to its end on io; the first failure is rethrown.
void run_all(asio::io_context& io, int count, const std::function<asio::awaitable<void>(int)>& body) {
    std::exception_ptr failure;
    for (int c = 0; c < count; ++c) {
        asio::co_spawn(io, body(c), [&](std::exception_ptr e) {
            if (e && !failure) failure = e;
        });
    }
    io.restart();
    io.run();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

Outcome sluice_point_async(const ConnectOptions& options, long server_pid) {
    static std::unique_ptr<AsyncConnections> state;
    if (!state) {
        state = std::make_unique<AsyncConnections>();
        std::vector<std::optional<AsioConnection>> opened(many_connections);
        run_all(state->io, many_connections, [&](int c) -> asio::awaitable<void> {
            opened[static_cast<std::size_t>(c)].emplace(
                co_await AsioConnection::connect(state->io.get_executor(), options));
        });
        for (auto& c : opened) state->conns.push_back(std::move(*c));
    }
    Outcome o;
    std::vector<std::uint64_t> sums(many_connections, 0);
    const std::uint64_t a0 = allocations();
    const CpuMeter cpu(server_pid);
    const auto t0 = Clock::now();
    // Connection c runs SELECTs c, c + 64, c + 128, ...
    run_all(state->io, many_connections, [&](int c) -> asio::awaitable<void> {
        AsioConnection& conn = state->conns[static_cast<std::size_t>(c)];
        for (int i = c; i < point_selects; i += many_connections) {
            ResultSet rs = co_await conn.async_query(point_sql(i));
            sums[static_cast<std::size_t>(c)] += point_value(rs);
            spend_extra_client_work();
        }
    });
    o.elapsed_ns = ns_since(t0);
    o.cpu = cpu.elapsed();
    o.allocations = allocations() - a0;
    for (std::uint64_t s : sums) o.checksum += s;
    o.count = point_selects;
    o.units = point_selects;
    o.latencies_ns = {o.elapsed_ns};  // the run: many SELECTs are in flight at once
    return o;
}

Outcome sluice_point_threads(const ConnectOptions& options, long server_pid) {
    static std::vector<Connection> conns;
    if (conns.empty()) {
        for (int c = 0; c < many_connections; ++c) conns.push_back(Connection::connect(options));
    }
    Outcome o;
    std::vector<std::uint64_t> sums(many_connections, 0);
    std::vector<std::string> failures(many_connections);
    const std::uint64_t a0 = allocations();
    const CpuMeter cpu(server_pid);
    const auto t0 = Clock::now();
    {
        std::vector<std::jthread> threads;
        for (int c = 0; c < many_connections; ++c) {
            threads.emplace_back([&, c] {
                try {
                    for (int i = c; i < point_selects; i += many_connections) {
                        ResultSet rs = conns[static_cast<std::size_t>(c)].query(point_sql(i));
                        sums[static_cast<std::size_t>(c)] += point_value(rs);
                    }
                } catch (const std::exception& e) {
                    failures[static_cast<std::size_t>(c)] = e.what();
                }
            });
        }
    }
    o.elapsed_ns = ns_since(t0);
    o.cpu = cpu.elapsed();
    o.allocations = allocations() - a0;
    for (const std::string& f : failures) check(f.empty(), f);
    for (std::uint64_t s : sums) o.checksum += s;
    o.count = point_selects;
    o.units = point_selects;
    o.latencies_ns = {o.elapsed_ns};
    return o;
}

}  // namespace sluice::mariadb::speed_bench
