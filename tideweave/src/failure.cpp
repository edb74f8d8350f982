#include "sluice/tideweave/failure.hpp"

namespace sluice::tideweave {

std::string_view to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::shape: return "shape";
        case ErrorKind::identity: return "identity";
        case ErrorKind::sum_overflow: return "sum_overflow";
        case ErrorKind::watermark_behind: return "watermark_behind";
        case ErrorKind::watermark_range: return "watermark_range";
        case ErrorKind::checkpoint: return "checkpoint";
        case ErrorKind::io: return "io";
        case ErrorKind::usage: return "usage";
    }
    return "unknown";
}

}  // namespace sluice::tideweave
