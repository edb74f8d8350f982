// The undo log's file (undo_log.hpp says why there is one).
#include "undo_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace sluice::tideweave {

namespace {

[[noreturn]] void fail(const std::string& what, int err) {
    throw std::runtime_error("tideweave: the open transaction's undo log: " + what + ": " + std::strerror(err));
}

}  // namespace

UndoLog::~UndoLog() {
    if (fd_ >= 0) ::close(fd_);
}

void UndoLog::open_file() {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    // O_TMPFILE: no name at all; where the file system lacks it, a named
    // file unlinked at once.
    fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ >= 0) return;
    std::string name = dir_ + "/sluice-tideweave-undo-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail("cannot create a temporary file in " + dir_ + " (set TMPDIR to a writable directory)", errno);
    ::unlink(name.c_str());
}

void UndoLog::spill() {
    if (fd_ < 0) open_file();
    std::size_t done = 0;
    while (done < chunk_.size()) {
        const ssize_t n = ::pwrite(fd_, chunk_.data() + done, chunk_.size() - done,
                                   static_cast<off_t>(file_end_ + done));
        if (n < 0 && errno == EINTR) continue;
        // Nothing is lost: the chunk stays in memory, and the next append
        // tries again.
        if (n <= 0) fail("cannot write " + std::to_string(chunk_.size()) + " bytes at offset " +
                             std::to_string(file_end_) + " of its temporary file in " + dir_,
                         n < 0 ? errno : ENOSPC);
        done += static_cast<std::size_t>(n);
    }
    spilled_.push_back({file_end_, static_cast<std::uint32_t>(chunk_.size())});
    file_end_ += chunk_.size();
    chunk_.clear();
}

void UndoLog::read_back(const Spilled& s, std::string& into) const {
    into.resize(s.size);
    std::size_t done = 0;
    while (done < s.size) {
        const ssize_t n = ::pread(fd_, into.data() + done, s.size - done, static_cast<off_t>(s.at + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("cannot read back " + std::to_string(s.size) + " bytes at offset " + std::to_string(s.at) +
                             " of its temporary file in " + dir_,
                         n < 0 ? errno : EIO);
        done += static_cast<std::size_t>(n);
    }
}

void UndoLog::clear() {
    records_ = 0;
    chunk_.clear();
    // A chunk read back may have grown the string past one chunk's size.
    if (chunk_.capacity() > 2 * chunk_bytes_) std::string().swap(chunk_);
    if (!spilled_.empty()) {
        spilled_.clear();
        std::vector<Spilled>().swap(spilled_);
        file_end_ = 0;
        // The page cache's copy goes too. (A failure here costs only disk
        // until the next transaction overwrites it from offset 0.)
        if (::ftruncate(fd_, 0) != 0) {
        }
    }
    std::vector<std::uint32_t>().swap(offsets_);
}

}  // namespace sluice::tideweave
