// The many-connections rows through Connector/C (issue 29): the same 20,000
// point SELECTs over 64 connections, either on one thread with its
// non-blocking API (mysql_real_query_start/_cont, mysql_store_result_start/
// _cont, MYSQL_OPT_NONBLOCK) driven by poll(), or on 64 threads with the
// blocking calls. Connections are opened once per process and kept.
#include <mysql.h>
#include <poll.h>

#include <string>
#include <thread>
#include <vector>

#include "speed_bench.hpp"

namespace sluice::mariadb::speed_bench {
namespace {

MYSQL* open_point_connection(const Target& t, bool nonblocking) {
    MYSQL* m = mysql_init(nullptr);
    if (!m) throw std::runtime_error("Connector/C: mysql_init failed");
    my_bool no = 0;
    mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &no);
    if (nonblocking) mysql_options(m, MYSQL_OPT_NONBLOCK, nullptr);
    if (!mysql_real_connect(m, t.host.c_str(), t.user.c_str(), t.password.c_str(), t.database.c_str(), t.port,
                            nullptr, 0)) {
        std::string message = mysql_error(m);
        mysql_close(m);
        throw std::runtime_error("Connector/C: connect: " + message);
    }
    return m;
}

std::string point_sql(int i) { return "SELECT v FROM speed_narrow WHERE id = " + std::to_string(point_id(i)); }

std::uint64_t point_value(MYSQL* m, MYSQL_RES* res) {
    if (!res) throw std::runtime_error(std::string("Connector/C: store result: ") + mysql_error(m));
    MYSQL_ROW row = mysql_fetch_row(res);
    check(row != nullptr, "point row");
    const std::uint64_t v = std::stoull(row[0]);
    check(mysql_fetch_row(res) == nullptr, "one point row");
    mysql_free_result(res);
    return v;
}

short poll_events(int status) {
    short events = 0;
    if (status & MYSQL_WAIT_READ) events |= POLLIN;
    if (status & MYSQL_WAIT_WRITE) events |= POLLOUT;
    if (status & MYSQL_WAIT_EXCEPT) events |= POLLPRI;
    return events;
}

int ready_status(short revents) {
    int status = 0;
    if (revents & (POLLIN | POLLHUP | POLLERR)) status |= MYSQL_WAIT_READ;
    if (revents & POLLOUT) status |= MYSQL_WAIT_WRITE;
    if (revents & POLLPRI) status |= MYSQL_WAIT_EXCEPT;
    return status;
}

// One connection's progress through its share of the SELECTs.
struct Lane {
    MYSQL* m = nullptr;
    int next = 0;          // the next SELECT's index
    bool storing = false;  // the query is done; its result is being read
    int status = 0;        // what the pending call waits for (0: none pending)
    std::string sql;
    std::uint64_t sum = 0;
};

}  // namespace

Outcome connector_c_point_async(const Target& t) {
    static std::vector<MYSQL*> conns;
    if (conns.empty()) {
        for (int c = 0; c < many_connections; ++c) conns.push_back(open_point_connection(t, true));
    }
    std::vector<Lane> lanes(many_connections);
    for (int c = 0; c < many_connections; ++c) {
        lanes[static_cast<std::size_t>(c)].m = conns[static_cast<std::size_t>(c)];
        lanes[static_cast<std::size_t>(c)].next = c;
    }
    const std::uint64_t a0 = allocations();
    const CpuMeter cpu(-1);
    const auto t0 = Clock::now();
    // Advances a lane as far as it goes without waiting; false when its
    // share is done.
    auto step = [](Lane& lane, int ready) -> bool {
        for (;;) {
            if (lane.status == 0) {
                if (lane.next >= point_selects) return false;
                lane.sql = point_sql(lane.next);
                int err = 0;
                lane.storing = false;
                lane.status = mysql_real_query_start(&err, lane.m, lane.sql.data(), lane.sql.size());
                if (lane.status != 0) return true;
                if (err) throw std::runtime_error(std::string("Connector/C: query: ") + mysql_error(lane.m));
            } else if (!lane.storing) {
                int err = 0;
                lane.status = mysql_real_query_cont(&err, lane.m, ready);
                if (lane.status != 0) return true;
                if (err) throw std::runtime_error(std::string("Connector/C: query: ") + mysql_error(lane.m));
            }
            MYSQL_RES* res = nullptr;
            if (!lane.storing) {
                lane.storing = true;
                lane.status = mysql_store_result_start(&res, lane.m);
            } else {
                lane.status = mysql_store_result_cont(&res, lane.m, ready);
            }
            if (lane.status != 0) return true;
            lane.sum += point_value(lane.m, res);
            spend_extra_client_work();
            lane.next += many_connections;
            ready = 0;
        }
    };
    std::vector<pollfd> fds;
    std::vector<std::size_t> waiting;
    for (Lane& lane : lanes) step(lane, 0);
    for (;;) {
        fds.clear();
        waiting.clear();
        for (std::size_t i = 0; i < lanes.size(); ++i) {
            if (lanes[i].status == 0) continue;
            fds.push_back(pollfd{mysql_get_socket(lanes[i].m), poll_events(lanes[i].status), 0});
            waiting.push_back(i);
        }
        if (fds.empty()) break;
        if (::poll(fds.data(), fds.size(), 30000) <= 0) throw std::runtime_error("Connector/C: poll timed out");
        for (std::size_t k = 0; k < fds.size(); ++k) {
            if (fds[k].revents == 0) continue;
            step(lanes[waiting[k]], ready_status(fds[k].revents));
        }
    }
    Outcome o;
    o.elapsed_ns = ns_since(t0);
    o.cpu = cpu.elapsed();
    o.allocations = allocations() - a0;
    for (const Lane& lane : lanes) o.checksum += lane.sum;
    o.count = point_selects;
    o.units = point_selects;
    o.latencies_ns = {o.elapsed_ns};
    return o;
}

Outcome connector_c_point_threads(const Target& t) {
    static std::vector<MYSQL*> conns;
    if (conns.empty()) {
        for (int c = 0; c < many_connections; ++c) conns.push_back(open_point_connection(t, false));
    }
    std::vector<std::uint64_t> sums(many_connections, 0);
    std::vector<std::string> failures(many_connections);
    const std::uint64_t a0 = allocations();
    const CpuMeter cpu(-1);
    const auto t0 = Clock::now();
    {
        std::vector<std::jthread> threads;
        for (int c = 0; c < many_connections; ++c) {
            threads.emplace_back([&, c] {
                MYSQL* m = conns[static_cast<std::size_t>(c)];
                try {
                    for (int i = c; i < point_selects; i += many_connections) {
                        const std::string sql = point_sql(i);
                        if (mysql_real_query(m, sql.data(), sql.size()) != 0) {
                            throw std::runtime_error(std::string("Connector/C: query: ") + mysql_error(m));
                        }
                        sums[static_cast<std::size_t>(c)] += point_value(m, mysql_store_result(m));
                    }
                } catch (const std::exception& e) {
                    failures[static_cast<std::size_t>(c)] = e.what();
                }
            });
        }
    }
    Outcome o;
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
