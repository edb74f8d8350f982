#include "sluice/pipeline/progress_line.hpp"

#include <algorithm>
#include <ostream>

namespace sluice::pipeline {

bool ProgressLine::due(std::chrono::steady_clock::time_point now, bool last_line) {
    if (!on_) return false;
    if (now - last_ < std::chrono::seconds(1) && !last_line) return false;
    last_ = now;
    return true;
}

void ProgressLine::write(std::string_view where, const RunStats& s, std::uint32_t last_commit_time,
                         bool sink_time, std::int64_t wall_seconds) {
    log_ << "sluice-pipeline: " << where;
    // A snapshot is rows as they were, not transactions or changes.
    if (s.snapshot_rows > 0) log_ << "snapshot of " << s.snapshot_rows << (s.snapshot_rows == 1 ? " row, " : " rows, ");
    log_ << s.source_transactions << " transactions, "
         << s.row_changes << " row changes, " << s.sink_commits << " sink commits, " << s.late
         << " late, " << s.rejected << " rejected";
    if (s.in_flight > 0) log_ << ", " << s.in_flight << " row changes of a transaction in flight";
    if (sink_time)
        log_ << ", " << static_cast<std::int64_t>(s.sink_seconds * 1000) << " ms in sink commits";
    if (last_commit_time)
        log_ << ", lag " << std::max<std::int64_t>(0, wall_seconds - last_commit_time) << " s";
    log_ << "\n" << std::flush;
}

std::int64_t wall_seconds_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace sluice::pipeline
