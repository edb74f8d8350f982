#include "bench_process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::pipeline_bench {

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void exec_child(const std::vector<std::string>& argv) {
    std::vector<std::string> copy = argv;  // execv takes char*, not const
    std::vector<char*> args;
    for (auto& s : copy) args.push_back(s.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
}

Footprint run_measured(const std::vector<std::string>& argv, bool discard_stdout) {
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (discard_stdout && !std::freopen("/dev/null", "w", stdout)) _exit(127);
        exec_child(argv);
    }
    int st = 0;
    rusage ru{};
    wait4(pid, &st, 0, &ru);
    Footprint f;
    f.wall = seconds_since(t0);
    f.rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) throw std::runtime_error("failed: " + argv[0]);
    return f;
}

double children_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    auto secs = [](const timeval& v) { return static_cast<double>(v.tv_sec) + static_cast<double>(v.tv_usec) / 1e6; };
    return secs(u.ru_utime) + secs(u.ru_stime);
}

ProcessCpu process_cpu(pid_t pid) {
    if (pid <= 0) return {};
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    // The name (field 2) is in parentheses and may hold spaces: the fields
    // are counted from the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 > line.size()) return {};
    std::istringstream rest(line.substr(close + 2));
    std::vector<std::string> f;  // f[0] is field 3 (state)
    for (std::string x; rest >> x;) f.push_back(x);
    if (f.size() < 15) return {};
    // utime, stime, cutime, cstime are fields 14 to 17.
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    return {(std::stod(f[11]) + std::stod(f[12])) / tick, (std::stod(f[13]) + std::stod(f[14])) / tick};
}

}  // namespace sluice::pipeline_bench
