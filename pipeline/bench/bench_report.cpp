#include "bench_report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace sluice::pipeline_bench {

double median(std::vector<double> runs) {
    std::sort(runs.begin(), runs.end());
    return runs.empty() ? 0 : runs[runs.size() / 2];
}

double percentile(std::vector<double> samples, double p) {
    std::sort(samples.begin(), samples.end());
    if (samples.empty()) return 0;
    return samples[std::min(samples.size() - 1, static_cast<std::size_t>(p * static_cast<double>(samples.size())))];
}

std::string json_array(const std::vector<double>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
    return s + "]";
}

LoadAverage LoadAverage::now() {
    double l[3] = {0, 0, 0};
    getloadavg(l, 3);
    return {l[0], l[1], l[2]};
}

Machine Machine::this_one() {
    Machine m;
    utsname u{};
    uname(&u);
    m.host = u.nodename;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.rfind("model name", 0) == 0) {
            m.cpu = line.substr(line.find(':') + 2);
            break;
        }
    m.cores = std::thread::hardware_concurrency();
    return m;
}

std::string machine_json(const Machine& machine,
                         const std::vector<std::pair<std::string, LoadAverage>>& load_averages) {
    // Load averages through an ostream's default formatting (six significant
    // digits), as the captures have always had them.
    std::ostringstream out;
    out << "{\"host\": \"" << machine.host << "\", \"cpu\": \"" << machine.cpu << "\", \"cores\": " << machine.cores;
    for (const auto& [name, load] : load_averages)
        out << ", \"" << name << "\": [" << load.one << "," << load.five << "," << load.fifteen << "]";
    out << "}";
    return out.str();
}

}  // namespace sluice::pipeline_bench
