#pragma once
// The report half of the pipeline benchmarks (pipeline_bench and
// pipeline_scaleout_bench): the statistics both print and the JSON
// fragments their captures share, so the two captures read alike and the
// renderers (scripts/bench/render_pipeline*.py) parse one format.
// Plain values in, strings out: nothing here outlives its call.
#include <string>
#include <utility>
#include <vector>

namespace sluice::pipeline_bench {

// The middle run (the upper one of an even count); 0 for no runs.
double median(std::vector<double> runs);
// The value below which a share p (0..1) of the samples lies; p = 1 is the
// largest; 0 for no samples.
double percentile(std::vector<double> samples, double p);

// `[a,b,c]`, each with std::to_string's six decimals.
std::string json_array(const std::vector<double>& values);

// The system's load averages (1, 5 and 15 minutes) now.
struct LoadAverage {
    double one = 0, five = 0, fifteen = 0;
    static LoadAverage now();
};

// What the figures were taken on.
struct Machine {
    std::string host;  // uname's node name
    std::string cpu;   // /proc/cpuinfo's first model name
    unsigned cores = 0;
    static Machine this_one();
};

// The capture's "machine" object: {"host": .., "cpu": .., "cores": N, then
// each named load average as "name": [1m,5m,15m]}, in the given order.
std::string machine_json(const Machine& machine,
                         const std::vector<std::pair<std::string, LoadAverage>>& load_averages);

}  // namespace sluice::pipeline_bench
