#include "workloads.hpp"

#include <fmt/format.h>

namespace sluice::tideweave::bench {

std::int64_t timestamp_of(const Shape& shape, std::int64_t i) {
    const std::int64_t n = i / shape.keys;  // the event's position within its key
    std::int64_t ts = n * shape.spacing;
    if (shape.session_length > 0) ts += (n / shape.session_length) * shape.session_jump;
    return ts;
}

namespace {
// Values with fractions, so sums are real floating-point work.
double value_of(std::int64_t i) { return static_cast<double>(i % 1000) * 0.25 + 0.125; }
}  // namespace

std::string insert_mutation(const Shape& shape, std::int64_t i) {
    const double value = value_of(i);
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

TypedWorkload typed_inserts(const Shape& shape, std::int64_t gap, std::int64_t lateness) {
    TypedWorkload w;
    w.per_tx = shape.per_tx;
    for (std::int64_t k = 0; k < shape.keys; ++k) w.keys.push_back(fmt::format("k{}", k));
    w.ids.reserve(static_cast<std::size_t>(shape.events));
    for (std::int64_t i = 0; i < shape.events; ++i) w.ids.push_back(fmt::format("e{}", i));
    w.mutations.reserve(static_cast<std::size_t>(shape.events));
    for (std::int64_t i = 0; i < shape.events; ++i)
        w.mutations.push_back(Mutation::insert(w.ids[static_cast<std::size_t>(i)],
                                               w.keys[static_cast<std::size_t>(i % shape.keys)],
                                               timestamp_of(shape, i), value_of(i)));
    w.final_watermark = timestamp_of(shape, shape.events - 1) + gap + lateness + 1;
    return w;
}

}  // namespace sluice::tideweave::bench
