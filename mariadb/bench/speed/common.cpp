// Shared pieces: expected values, the line generator, memory readings and
// the counting operator new (allocations are a reported column).
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <time.h>
#include <unistd.h>

#include "speed_bench.hpp"

namespace {
std::atomic<std::uint64_t> allocation_count{0};
}

void* operator new(std::size_t n) {
    allocation_count.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
    allocation_count.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace sluice::mariadb::speed_bench {

std::uint64_t allocations() noexcept { return allocation_count.load(std::memory_order_relaxed); }

namespace {
std::size_t status_kib(const std::string& key) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size())) * 1024;
    }
    return 0;
}
}  // namespace

namespace {
double clock_ns(clockid_t clock) {
    timespec ts{};
    if (::clock_gettime(clock, &ts) != 0) return -1;
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}
}  // namespace

CpuMeter::CpuMeter(long server_pid) {
    if (server_pid > 0 && ::clock_getcpuclockid(static_cast<pid_t>(server_pid), &server_clock_) == 0) {
        server0_ = clock_ns(server_clock_);
        has_server_ = server0_ >= 0;
    }
    client0_ = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

CpuTimes CpuMeter::elapsed() const {
    CpuTimes t;
    t.client_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - client0_;
    if (has_server_) {
        const double now = clock_ns(server_clock_);
        if (now >= 0) t.server_ns = now - server0_;
    }
    return t;
}

namespace {
std::chrono::nanoseconds extra_client_work{0};
}  // namespace

void set_extra_client_work(std::chrono::nanoseconds per_reply) noexcept { extra_client_work = per_reply; }

// A spin on the steady clock (vDSO, no syscall): the child is pinned and
// alone on its CPU, so its wall time here is its CPU time.
void spend_extra_client_work() noexcept {
    if (extra_client_work.count() <= 0) return;
    const auto until = Clock::now() + extra_client_work;
    while (Clock::now() < until) {
    }
}

std::size_t resident_bytes() { return status_kib("VmRSS:"); }
std::size_t peak_resident_bytes() { return status_kib("VmHWM:"); }

std::size_t generate_lines(std::uint8_t* buf, std::size_t size, std::size_t& offset, std::size_t total,
                           std::size_t line) {
    std::size_t n = 0;
    char current[large_line];
    while (n < size && offset < total) {
        const std::size_t index = offset / line;
        const std::size_t within = offset % line;
        // Build line `index` (cheap: digits, comma, pad, newline).
        auto [end, ec] = std::to_chars(current, current + line, index);
        *end++ = ',';
        std::fill(end, current + line - 1, static_cast<char>('a' + index % 26));
        current[line - 1] = '\n';
        const std::size_t take = std::min(size - n, line - within);
        std::copy(current + within, current + within + take, buf + n);
        n += take;
        offset += take;
    }
    return n;
}

Expected expected(const std::string& w) {
    Expected e;
    if (w == "bulk_native" || w == "bulk_sequential" || w == "text_batch" || w == "text_batch_statements") {
        e.count = bulk_rows;
        for (std::int64_t i = 0; i < bulk_rows; ++i) {
            e.checksum += static_cast<std::uint64_t>(i + bulk_b(i)) + bulk_s(i).size();
        }
    } else if (w == "meta_cached" || w == "meta_uncached") {
        e.count = meta_executions;
        for (int i = 0; i < meta_executions; ++i) {
            const std::int64_t id = 1 + (i * 7919) % wide_rows;
            e.checksum += static_cast<std::uint64_t>(id);
            for (int k = 1; k <= wide_ints; ++k) e.checksum += static_cast<std::uint64_t>(wide_int(id, k));
            for (int k = wide_ints + 1; k <= wide_ints + wide_texts; ++k) e.checksum += wide_text(id, k).size();
        }
    } else if (w == "pool_reset" || w == "pool_reset_2" || w == "pool_held" || w == "pool_reconnect") {
        e.count = pool_requests;
        for (int i = 0; i < pool_requests; ++i) e.checksum += static_cast<std::uint64_t>(narrow_v(1 + i * 97));
    } else if (w == "upload_streamed" || w == "upload_buffered") {
        e.count = upload_small / upload_line;
        for (std::uint64_t i = 0; i < e.count; ++i) e.checksum += i;
    } else if (w == "upload_streamed_64m" || w == "upload_buffered_64m") {
        e.count = upload_large / large_line;  // lines the server counted
    } else if (w == "cursor_512" || w == "stream_plain" || w == "narrow_zlib" || w == "narrow_plain") {
        e.count = narrow_rows;
        for (std::int64_t id = 1; id <= narrow_rows; ++id) e.checksum += static_cast<std::uint64_t>(id + narrow_v(id));
    } else if (w == "wide_zlib" || w == "wide_plain") {
        e.count = wide_rows;
        for (std::int64_t id = 1; id <= wide_rows; ++id) {
            e.checksum += static_cast<std::uint64_t>(id);
            for (int k = 1; k <= wide_ints; ++k) e.checksum += static_cast<std::uint64_t>(wide_int(id, k));
            for (int k = wide_ints + 1; k <= wide_ints + wide_texts; ++k) e.checksum += wide_text(id, k).size();
        }
    } else if (w.rfind("point_", 0) == 0) {
        e.count = point_selects;
        for (int i = 0; i < point_selects; ++i) e.checksum += static_cast<std::uint64_t>(narrow_v(point_id(i)));
    } else if (w == "server_loop_empty_20k") {
        e.count = pipeline_inserts;  // the loop's iterations, as the procedure counted them
    } else if (w.rfind("insert_", 0) == 0) {
        e.count = pipeline_inserts;
        for (std::int64_t i = 0; i < pipeline_inserts; ++i) {
            e.checksum += static_cast<std::uint64_t>(i + bulk_b(i)) + bulk_s(i).size();
        }
    } else {
        throw std::runtime_error("unknown workload " + w);
    }
    return e;
}

}  // namespace sluice::mariadb::speed_bench
