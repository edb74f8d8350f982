#pragma once
// mariadb_speed_bench: the speed features (bulk, text batch, metadata cache,
// pooled reset, streamed upload, cursors, compression), each against its
// same-build baseline, and the same workloads through Connector/C.
//
// Shared by the two clients: the target, the deterministic data and the
// values every run must reproduce, and the outcome of one run.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <time.h>

#include "../target.hpp"
#include "sluice/mariadb/connect_options.hpp"

namespace sluice::mariadb::speed_bench {

using bench::Target;  // TLS verify-full (ca) is used by the pool rows

// CPU time used during a run's timed part: this process's (the client's
// own cost) and the server's (every thread of mariadbd, exited ones
// included), so that a row can say which side its time went to. Negative:
// not measured (no server PID, or a profile that does not take it).
struct CpuTimes {
    double client_ns = -1;
    double server_ns = -1;
};

// Starts at construction; elapsed() reads both clocks again. The server's
// is its process CPU clock (clock_getcpuclockid), readable only when the
// server runs on this machine and its PID is known (the servers'
// directory); nanosecond resolution, unlike the clock ticks of /proc.
class CpuMeter {
public:
    explicit CpuMeter(long server_pid);
    CpuTimes elapsed() const;

private:
    clockid_t server_clock_{};
    bool has_server_ = false;
    double client0_ = 0;
    double server0_ = 0;
};

// What one timed run did, checked against the expected count and checksum.
struct Outcome {
    double units = 0;                   // rows, executions, requests or bytes
    double elapsed_ns = 0;              // the timed part of the run
    std::uint64_t allocations = 0;      // operator new calls in the timed part
    std::uint64_t count = 0;
    std::uint64_t checksum = 0;
    std::vector<double> latencies_ns;   // per operation (request, execution, or the whole run)
    double retained_bytes = 0;          // memory rows: RSS growth
    CpuTimes cpu;                       // the timed part's CPU, where measured
};

// Expected (count, checksum) of a workload, computed from the data formulas.
struct Expected {
    std::uint64_t count = 0;
    std::uint64_t checksum = 0;
};

// Data: speed_narrow (id 1..100000, v = id*37 % 1000003); speed_wide (id
// 1..10000, c1..c25 INT = id*k % 100000, c26..c49 VARCHAR = "v<id>-<k>").
inline constexpr int narrow_rows = 100'000;
inline constexpr int wide_rows = 10'000;
inline constexpr int wide_ints = 25;
inline constexpr int wide_texts = 24;
inline constexpr int bulk_rows = 5'000;
inline constexpr int meta_executions = 1'000;
inline constexpr int pool_requests = 100;
inline constexpr std::size_t upload_line = 64;
inline constexpr std::size_t upload_small = 1u << 20;   // 1 MiB
inline constexpr std::size_t upload_large = 64u << 20;  // 64 MiB (memory row)
inline constexpr std::size_t large_line = 4096;
inline constexpr std::uint32_t cursor_batch = 512;
// Pipeline rows: point SELECTs by primary key on speed_narrow, and
// single-row INSERTs (the bulk rows' formula, i < pipeline_inserts).
inline constexpr int point_selects = 20'000;
inline constexpr int pipeline_inserts = 20'000;
inline std::int64_t point_id(int i) { return 1 + (static_cast<std::int64_t>(i) * 7919) % narrow_rows; }

inline std::int64_t narrow_v(std::int64_t id) { return id * 37 % 1000003; }
inline std::int64_t wide_int(std::int64_t id, int k) { return id * k % 100000; }
inline std::string wide_text(std::int64_t id, int k) { return "v" + std::to_string(id) + "-" + std::to_string(k); }
// Bulk rows: (i, i*7 % 1000, "name-<i>").
inline std::int64_t bulk_b(std::int64_t i) { return i * 7 % 1000; }
inline std::string bulk_s(std::int64_t i) { return "name-" + std::to_string(i); }

// Fills buf with the upload's lines, generated in place: line i is
// "<i>,<pad>\n" of `line` bytes. State: the byte offset reached.
std::size_t generate_lines(std::uint8_t* buf, std::size_t size, std::size_t& offset, std::size_t total,
                           std::size_t line);

Expected expected(const std::string& workload);
inline void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("validation failed: " + what);
}

// Allocations so far (a counting operator new, alloc_count.cpp).
std::uint64_t allocations() noexcept;
// Resident and peak resident bytes of this process.
std::size_t resident_bytes();
std::size_t peak_resident_bytes();

using Clock = std::chrono::steady_clock;
inline double ns_since(Clock::time_point t0) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

// Times `operations` calls of op(i) (a request, an execution), each
// returning what it adds to the checksum: per-operation latencies, the
// elapsed time and the allocations of the timed part. The latency vector
// is reserved before the timed part, so its growth is not counted.
template <class Op>
Outcome timed_operations(int operations, Op&& op) {
    Outcome o;
    o.latencies_ns.reserve(static_cast<std::size_t>(operations));
    const std::uint64_t a0 = allocations();
    const auto t0 = Clock::now();
    for (int i = 0; i < operations; ++i) {
        const auto t = Clock::now();
        o.checksum += op(i);
        ++o.count;
        o.latencies_ns.push_back(ns_since(t));
    }
    o.elapsed_ns = ns_since(t0);
    o.allocations = allocations() - a0;
    o.units = operations;
    return o;
}

// The many-connections rows (issue 29): 20,000 point SELECTs (text
// queries) spread over this many connections, on one thread (non-blocking)
// or on one thread per connection (blocking).
inline constexpr int many_connections = 64;
// Client work added after each reply of the point_async_64 rows (the
// child's --child-extra-work-ns, zero unless given): busy time on the
// client's thread, for scripts/bench/ab_mariadb_async.py --extra-work-ns,
// which measures how much of a client's own work per reply shows in its
// CPU per SELECT (docs/mariadb-speed.md, "How much the client's own work
// counts").
void set_extra_client_work(std::chrono::nanoseconds per_reply) noexcept;
void spend_extra_client_work() noexcept;
Outcome sluice_point_async(const ConnectOptions& options, long server_pid);
Outcome sluice_point_threads(const ConnectOptions& options, long server_pid);
Outcome connector_c_point_async(const Target& target);
Outcome connector_c_point_threads(const Target& target);

// A client's workloads by key; each call is one run.
class Client {
public:
    virtual ~Client() = default;
    virtual Outcome run(const std::string& workload) = 0;
    // Untimed work before a run (emptying the bulk table, ...).
    virtual void prepare_run(const std::string& workload) = 0;
};
// server_pid: the server's process, for the CPU columns (-1: unknown).
std::unique_ptr<Client> make_sluice(const Target& target, long server_pid);
std::unique_ptr<Client> make_connector_c(const Target& target);
// libmariadb's version, for the report.
std::string connector_c_version();

// The workloads, in table order.
struct Workload {
    const char* key;
    const char* unit;
    bool memory;  // measured once per process, no warm-up (peak RSS)
};
inline const std::vector<Workload>& workloads() {
    static const std::vector<Workload> w{
        {"bulk_native", "ns/row", false},        {"bulk_sequential", "ns/row", false},
        {"text_batch", "ns/row", false},         {"text_batch_statements", "ns/row", false},
        {"meta_cached", "ns/execution", false},
        {"meta_uncached", "ns/execution", false}, {"pool_reset", "ns/request", false},
        {"pool_reset_2", "ns/request", false},   {"pool_held", "ns/request", false},
        {"pool_reconnect", "ns/request", false}, {"upload_streamed", "ns/byte", false},
        {"upload_buffered", "ns/byte", false},   {"upload_streamed_64m", "bytes retained", true},
        {"upload_buffered_64m", "bytes retained", true}, {"cursor_512", "ns/row", false},
        {"stream_plain", "ns/row", false},       {"narrow_zlib", "ns/row", false},
        {"narrow_plain", "ns/row", false},       {"wide_zlib", "ns/row", false},
        {"wide_plain", "ns/row", false},
        {"point_sequential", "ns/select", false},    {"point_pipelined_16", "ns/select", false},
        {"point_pipelined_64", "ns/select", false},  {"point_pipelined_256", "ns/select", false},
        {"insert_pipelined", "ns/row", false},       {"insert_bulk_20k", "ns/row", false},
        {"insert_sequential_20k", "ns/row", false},
        // The same pipeline and bulk over the server's unix socket (a client
        // on the server's host can choose it): no loopback TCP per reply.
        {"insert_pipelined_unix", "ns/row", false},  {"insert_bulk_20k_unix", "ns/row", false},
        // The server floor under pipelined inserts (no client in the way):
        // the same 20,000 single-row INSERTs run by a stored procedure's
        // loop, and the loop alone.
        {"insert_server_loop_20k", "ns/row", false}, {"insert_server_execute_20k", "ns/row", false},
        {"server_loop_empty_20k", "ns/row", false},
        // Many connections (issue 29): 64 of them, one thread (sluice's
        // AsioConnection, Connector/C's _start/_cont on poll) or 64 threads.
        {"point_async_64", "ns/select", false},      {"point_threads_64", "ns/select", false},
    };
    return w;
}

}  // namespace sluice::mariadb::speed_bench
