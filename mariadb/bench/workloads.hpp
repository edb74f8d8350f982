#pragma once
// The core benchmark's workloads, shared by both clients so they do the same
// work: the tables, their deterministic contents, and the checksums each run
// must reproduce (a run that reads or writes anything else is rejected).
#include <time.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "target.hpp"

namespace sluice::mariadb::bench {


inline constexpr int insert_rows = 20'000;
inline constexpr int narrow_rows = 100'000;
inline constexpr int wide_rows = 10'000;
inline constexpr int wide_int_columns = 25;   // c1..c25 INT (c0 is the id)
inline constexpr int wide_text_columns = 24;  // c26..c49 VARCHAR
inline constexpr int wide_columns = 1 + wide_int_columns + wide_text_columns;  // 50
inline constexpr int connects_per_run = 20;

// bench_narrow: (id INT PRIMARY KEY, v BIGINT), id = 1..N, v = id*37 % 1000003.
inline std::int64_t narrow_v(std::int64_t id) { return id * 37 % 1000003; }
// bench_wide: c0 = id; int column k: (id*k) % 100000; text column k: "v<id>-<k>".
inline std::int64_t wide_int(std::int64_t id, int k) { return id * k % 100000; }
inline std::string wide_text(std::int64_t id, int k) { return "v" + std::to_string(id) + "-" + std::to_string(k); }
// bench_insert rows: (i, i*3, "row-<i>").
inline std::int64_t insert_v(std::int64_t i) { return i * 3; }
inline std::string insert_s(std::int64_t i) { return "row-" + std::to_string(i); }

// Computed once per process (outside any timed region).
inline std::int64_t narrow_checksum() {
    static const std::int64_t sum = [] {
        std::int64_t s = 0;
        for (std::int64_t id = 1; id <= narrow_rows; ++id) s += id + narrow_v(id);
        return s;
    }();
    return sum;
}

// Sum of every integer plus the length of every text value.
inline std::int64_t wide_checksum() {
    static const std::int64_t sum = [] {
        std::int64_t s = 0;
        for (std::int64_t id = 1; id <= wide_rows; ++id) {
            s += id;
            for (int k = 1; k <= wide_int_columns; ++k) s += wide_int(id, k);
            for (int k = wide_int_columns + 1; k < wide_columns; ++k) {
                s += static_cast<std::int64_t>(wide_text(id, k).size());
            }
        }
        return s;
    }();
    return sum;
}

inline void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("validation failed: " + what);
}

// SQL run once by the driver to create and fill the tables.
std::string wide_create_sql();
std::string wide_fill_sql();

// Wall-clock time, and this process's CPU time: the client's own cost. On a
// busy machine the wall time also measures the scheduler; the CPU time is
// what the two clients' code actually spent (the server's work is the same
// for both and happens in another process).
struct Timing {
    std::int64_t wall_ns = 0;
    std::int64_t cpu_ns = 0;
};

class Stopwatch {
public:
    Stopwatch() : wall_(std::chrono::steady_clock::now()), cpu_(cpu_now()) {}
    Timing elapsed() const {
        return {std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - wall_).count(),
                cpu_now() - cpu_};
    }

private:
    static std::int64_t cpu_now() {
        timespec ts{};
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
    }
    std::chrono::steady_clock::time_point wall_;
    std::int64_t cpu_;
};

// Each client implements these; each returns the time of its timed part and
// throws when the result does not validate.
struct Client {
    virtual ~Client() = default;
    // Prepared single-row inserts of rows [1, rows] into a fresh bench_insert,
    // inside one transaction; validated by count and sums afterwards.
    virtual Timing inserts(int rows) = 0;
    // SELECT id, v FROM bench_narrow (text protocol, streamed); checksum.
    virtual Timing narrow_select() = 0;
    // SELECT * FROM bench_wide (50 columns, text protocol, streamed); checksum.
    virtual Timing wide_select() = 0;
    // `count` fresh connections, each TLS verify-full + native auth, closed.
    virtual Timing connects(int count) = 0;
};

}  // namespace sluice::mariadb::bench
