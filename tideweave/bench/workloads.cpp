#include "workloads.hpp"

#include <fmt/format.h>

namespace sluice::tideweave::bench {

std::int64_t timestamp_of(const Shape& shape, std::int64_t i) {
    const std::int64_t n = i / shape.keys;  // the event's position within its key
    std::int64_t ts = n * shape.spacing;
    if (shape.session_length > 0) ts += (n / shape.session_length) * shape.session_jump;
    return ts;
}

std::string insert_mutation(const Shape& shape, std::int64_t i) {
    // Values with fractions, so sums are real floating-point work.
    const double value = static_cast<double>(i % 1000) * 0.25 + 0.125;
    return fmt::format(R"({{"insert":{{"id":"e{}","key":"k{}","ts":{},"value":{}}}}})", i, i % shape.keys,
                       timestamp_of(shape, i), value);
}

std::vector<std::string> transactions(const Shape& shape) {
    std::vector<std::string> lines;
    std::string line;
    for (std::int64_t i = 0; i < shape.events; ++i) {
        line += line.empty() ? R"({"tx":[)" : ",";
        line += insert_mutation(shape, i);
        if ((i + 1) % shape.per_tx == 0 || i + 1 == shape.events) {
            line += "]}";
            lines.push_back(std::move(line));
            line.clear();
        }
    }
    return lines;
}

std::vector<std::string> close_and_forget(const Shape& shape, std::int64_t gap, std::int64_t lateness) {
    const std::int64_t last = timestamp_of(shape, shape.events - 1);
    return {fmt::format(R"({{"watermark":{}}})", last + gap + lateness + 1), R"({"forget":true})"};
}

}  // namespace sluice::tideweave::bench
