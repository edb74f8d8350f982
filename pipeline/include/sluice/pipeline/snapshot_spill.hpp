#pragma once
// The open snapshot's rows in an unlinked temporary file (issue 25). The
// run streams a snapshot's chunks into the engine and the sink as they come
// (one Tideweave transaction in parts, docs/pipeline.md "Huge
// transactions"), holding none of them; only if Tideweave refuses the
// snapshot are its rows needed again, each to NAME_rejected with the
// engine's message, and they are read back from here a chunk at a time.
// Sans-server; the file lives in $TMPDIR (tmpfile(3)) and goes with the
// process, a SIGKILL too.
//
//   SnapshotSpill spill;
//   spill.begin();
//   for (const SourceChange& c : chunk) spill.add(c);   // inserts only
//   spill.read_back(1000, [&](std::span<const SourceChange> rows) { ... });
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sluice/pipeline/source_change.hpp"

namespace sluice::pipeline {

class SnapshotSpill {
public:
    // Starts a snapshot: forgets the rows of the last one.
    void begin();
    // A snapshot row (an insert; only its after image is kept).
    void add(const SourceChange& change);
    // Calls `chunk` with the rows in the order added, at most `rows_per_chunk`
    // at a time. A chunk's text lives until the next call of `chunk`, and
    // the last one's until begin() (a mapper's last part views it).
    void read_back(std::size_t rows_per_chunk, const std::function<void(std::span<const SourceChange>)>& chunk);
    std::uint64_t rows() const { return rows_; }

private:
    void write(const void* bytes, std::size_t n);
    void read(void* bytes, std::size_t n);
    [[noreturn]] void fail(const char* what) const;

    struct Close {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, Close> file_;
    std::uint64_t rows_ = 0;
    std::vector<SourceChange> chunk_;
    std::string text_;  // the chunk's text cells, back to back
};

}  // namespace sluice::pipeline
