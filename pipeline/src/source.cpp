#include "sluice/pipeline/source.hpp"

#include "binlog_source.hpp"
#include "jetstream_source.hpp"
#include "sluice/mariadb/connect_options.hpp"

namespace sluice::pipeline {

// Out of line, so that the vtable has one home.
Source::~Source() = default;

std::unique_ptr<Source> make_source(const Options& o) {
    if (is_stream_source(o.source_url))
        return std::make_unique<JetStreamSource>(parse_stream_source(o.source_url), o.jetstream, o.run);
    return std::make_unique<BinlogSource>(mariadb::parse_url(o.source_url), o.binlog, o.run);
}

}  // namespace sluice::pipeline
