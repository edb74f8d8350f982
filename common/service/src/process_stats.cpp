#include "sluice/service/process_stats.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace sluice::service {

double resident_memory_bytes() {
    std::ifstream statm("/proc/self/statm");
    unsigned long long size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(u.ru_utime) + seconds(u.ru_stime);
}

void register_process_metrics(Registry& registry) {
    registry.computed("process_resident_memory_bytes", "Resident memory size in bytes.", Type::gauge,
                      resident_memory_bytes);
    registry.computed("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", Type::counter,
                      cpu_seconds);
}

}  // namespace sluice::service
