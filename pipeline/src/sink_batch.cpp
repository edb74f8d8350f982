#include "sluice/pipeline/sink_batch.hpp"

#include <cstring>

namespace sluice::pipeline {

SessionRow session_row(const tideweave::Row& r) {
    return {std::string(r.key), r.start, r.end, r.count, r.sum, r.min, r.max, r.final};
}

std::string SinkBatch::identity(std::string_view key, std::int64_t start) {
    std::string id(8 + key.size(), '\0');
    std::memcpy(id.data(), &start, 8);
    std::memcpy(id.data() + 8, key.data(), key.size());
    return id;
}

std::int64_t SinkBatch::start_of(const std::string& identity) {
    std::int64_t s = 0;
    std::memcpy(&s, identity.data(), 8);
    return s;
}

std::string_view SinkBatch::key_of(const std::string& identity) { return std::string_view(identity).substr(8); }

void SinkBatch::remove(const tideweave::Row& row) { net_[identity(row.key, row.start)].row.reset(); }

void SinkBatch::put(const tideweave::Row& row) { net_[identity(row.key, row.start)].row = session_row(row); }

std::size_t SinkBatch::puts() const {
    std::size_t n = 0;
    for (const auto& [k, e] : net_) n += e.row.has_value();
    return n;
}

void SinkBatch::clear() {
    net_.clear();
    late_.clear();
    rejected_.clear();
    source_transactions_ = 0;
    row_changes_ = 0;
}

}  // namespace sluice::pipeline
