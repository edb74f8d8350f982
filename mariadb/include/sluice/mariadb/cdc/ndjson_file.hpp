#pragma once
// The `--out FILE` of `sluice-mariadb cdc`: an append-only NDJSON file that
// is also the stream's position, so that killing the process at any moment
// and starting it again delivers every transaction exactly once.
//
// On open the file is scanned: a torn last line (no newline) is cut; an
// unfinished snapshot (chunk lines without their "done" line) is cut too,
// back to its first chunk, and taken again (a snapshot cannot be resumed
// half way: a new one has another position). The position to resume from is
// the start state given (the --from-gtid value, or empty) advanced by the
// GTID of every transaction and DDL line and by a snapshot's "done" state.
//
// Durability: lines reach the file with write(2) in whole-line batches, at
// the latest when the stream has nothing more buffered, so a SIGKILL loses
// only lines never written (and at most tears the last one); fdatasync(2)
// runs at most once a second while lines arrive, and at close. An operating
// system crash may therefore lose up to the last second of lines, which
// the next start then reads again from the server: still exactly once.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/mariadb/cdc/gtid_state.hpp"

namespace sluice::mariadb::cdc {

struct FileResume {
    bool has_lines = false;      // the file holds complete events: resume from `position`
    GtidState position;          // after the last complete line
    bool snapshot_done = false;  // a complete snapshot is in the file
    std::size_t cut_bytes = 0;   // bytes removed (torn line, unfinished snapshot)
};

// Scans NDJSON text written by `sluice-mariadb cdc` (sans-I/O). `keep`
// receives the length of the prefix to keep. Error{usage} naming the line
// number for a complete line that is not a cdc line.
FileResume scan_cdc_lines(std::string_view text, const GtidState& start, std::size_t& keep);

class NdjsonFile {
public:
    // Opens (creating) FILE for appending, scans and cuts it as above.
    // Error{io} naming the path when it cannot be read or written.
    static NdjsonFile open(const std::string& path, const GtidState& start);
    NdjsonFile(NdjsonFile&&) noexcept;
    NdjsonFile& operator=(NdjsonFile&&) noexcept;
    NdjsonFile(const NdjsonFile&) = delete;
    NdjsonFile& operator=(const NdjsonFile&) = delete;
    ~NdjsonFile();

    const FileResume& resume() const noexcept { return resume_; }
    // Writes whole lines (the text must end with '\n'); fdatasync when the
    // last one is a second old.
    void append(std::string_view lines);
    // fdatasync now.
    void sync();

private:
    NdjsonFile(int fd, std::string path, FileResume resume) noexcept;
    int fd_ = -1;
    std::string path_;
    FileResume resume_;
    long long last_sync_ms_ = 0;
};

// write(2) until done, retrying EINTR; Error{io} naming `what` otherwise.
void write_all(int fd, std::string_view bytes, std::string_view what);

}  // namespace sluice::mariadb::cdc
