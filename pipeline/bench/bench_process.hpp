#pragma once
// The processes the pipeline benchmarks run and what they measure of them:
// wall time, the CPU time of the children they ran and reaped, and that of
// processes that are not theirs (the servers), read from /proc.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace sluice::pipeline_bench {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start);

// In a forked child: becomes argv[0] with these arguments, or exits 127.
[[noreturn]] void exec_child(const std::vector<std::string>& argv);

// Runs `argv` to its end, its stdout inherited or (`discard_stdout`) sent to
// /dev/null: its wall seconds and peak RSS in MiB (the child's ru_maxrss,
// its VmHWM). Throws unless it exits 0.
struct Footprint {
    double wall = 0, rss_mib = 0;
};
Footprint run_measured(const std::vector<std::string>& argv, bool discard_stdout = false);

// User + system CPU seconds of every child this process has waited for so
// far (getrusage RUSAGE_CHILDREN): the difference over a run is the run's.
double children_cpu_seconds();

// CPU seconds (user + system) of any process, from /proc/PID/stat: its own
// (every thread) and apart those of the children it has reaped (PostgreSQL's
// backends, once their client left). Zeros when the process is not there.
struct ProcessCpu {
    double own = 0;
    double reaped_children = 0;
};
ProcessCpu process_cpu(pid_t pid);

}  // namespace sluice::pipeline_bench
