// The engine alone (bench_engine_alone.hpp says what it measures).
#include "bench_engine_alone.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sluice/tideweave/engine.hpp"

namespace sluice::pipeline_bench {

namespace {

int engine_alone(std::int64_t rows, std::int64_t divisor) {
    namespace tw = sluice::tideweave;
    tw::Engine e(tw::Config{10, 20});
    e.begin_transaction();
    std::vector<std::string> ids, keys;
    std::vector<tw::Mutation> part;
    for (std::int64_t from = 1; from <= rows; from += 8192) {
        const std::int64_t to = std::min(rows, from + 8191);
        ids.clear();
        keys.clear();
        part.clear();
        for (std::int64_t n = from; n <= to; ++n) {
            ids.push_back(std::to_string(n));
            keys.push_back("k" + std::to_string(n % 1000));
        }
        for (std::int64_t n = from; n <= to; ++n) {
            const std::size_t i = static_cast<std::size_t>(n - from);
            part.push_back(tw::Mutation::insert(ids[i], keys[i], n / divisor, static_cast<double>(n % 97) + 0.5));
        }
        if (!e.apply_part(part).ok()) throw std::runtime_error("engine alone: a part was refused");
        if (e.changed_sessions() >= 8192) (void)e.take_changes();
    }
    if (!e.commit_transaction().ok()) throw std::runtime_error("engine alone: the commit was refused");
    return e.active_events() == static_cast<std::size_t>(rows) ? 0 : 1;
}

}  // namespace

std::optional<int> engine_alone_if_asked(int argc, char** argv) {
    if (argc != 4 || std::string(argv[1]) != "--engine-alone") return std::nullopt;
    return engine_alone(std::stoll(argv[2]), std::stoll(argv[3]));
}

}  // namespace sluice::pipeline_bench
