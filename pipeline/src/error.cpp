#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

std::string_view to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::usage: return "usage";
        case ErrorKind::source_table: return "source table";
        case ErrorKind::sink_schema: return "sink schema";
        case ErrorKind::sink_state: return "sink state";
        case ErrorKind::source_image: return "source image";
        case ErrorKind::source_ended: return "source ended";
        case ErrorKind::sink_moved: return "sink moved";
    }
    return "unknown";
}

}  // namespace sluice::pipeline
