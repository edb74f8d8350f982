#include "sluice/mariadb/cdc/ndjson_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc {

namespace {

long long now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

[[noreturn]] void io_error(std::string_view what, const std::string& path) {
    throw Error(ErrorKind::io, std::string(what) + " " + path + ": " + std::strerror(errno));
}

// The string value right after `prefix` at the start of `line`, up to the
// next '"' (cdc lines never escape inside a GTID).
std::optional<std::string_view> quoted_after(std::string_view line, std::string_view prefix) {
    if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::size_t end = line.find('"', prefix.size());
    if (end == std::string_view::npos) return std::nullopt;
    return line.substr(prefix.size(), end - prefix.size());
}

}  // namespace

FileResume scan_cdc_lines(std::string_view text, const GtidState& start, std::size_t& keep) {
    FileResume r;
    GtidState state = start;
    std::size_t complete = text.rfind('\n');
    complete = complete == std::string_view::npos ? 0 : complete + 1;
    std::size_t snapshot_from = std::string_view::npos;
    GtidState before_snapshot;
    bool had_lines_before_snapshot = false;
    std::size_t pos = 0;
    std::size_t line_no = 0;
    while (pos < complete) {
        std::size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl - pos);
        ++line_no;
        if (auto g = quoted_after(line, "{\"gtid\":\"")) {
            try {
                state.advance(parse_gtid(*g));
            } catch (const Error& e) {
                throw Error(ErrorKind::usage, "line " + std::to_string(line_no) + ": " + e.what());
            }
            r.has_lines = true;
        } else if (auto s = quoted_after(line, "{\"snapshot\":{\"gtid\":\"")) {
            GtidState at;
            try {
                at = GtidState::parse(*s);
            } catch (const Error& e) {
                throw Error(ErrorKind::usage, "line " + std::to_string(line_no) + ": " + e.what());
            }
            // What follows the state tells a "done" line from a chunk's.
            const std::size_t after = std::string_view("{\"snapshot\":{\"gtid\":\"").size() + s->size() + 1;
            bool done = line.substr(after) == ",\"done\":true}}";
            if (snapshot_from == std::string_view::npos) {
                snapshot_from = pos;
                before_snapshot = state;
                had_lines_before_snapshot = r.has_lines;
            }
            if (done) {
                for (const GtidPosition& done_gtid : at.gtids()) state.advance(done_gtid);
                snapshot_from = std::string_view::npos;
                r.snapshot_done = true;
                r.has_lines = true;
            }
        } else if (!line.empty()) {
            throw Error(ErrorKind::usage, "line " + std::to_string(line_no) +
                                              " is not a line of sluice-mariadb cdc (refusing to append to it)");
        }
        pos = nl + 1;
    }
    keep = complete;
    if (snapshot_from != std::string_view::npos) {
        keep = snapshot_from;
        state = before_snapshot;
        r.has_lines = had_lines_before_snapshot;
    }
    r.cut_bytes = text.size() - keep;
    r.position = state;
    return r;
}

NdjsonFile::NdjsonFile(int fd, std::string path, FileResume resume) noexcept
    : fd_(fd), path_(std::move(path)), resume_(std::move(resume)), last_sync_ms_(now_ms()) {}

NdjsonFile::NdjsonFile(NdjsonFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), resume_(std::move(o.resume_)),
      last_sync_ms_(o.last_sync_ms_) {}

NdjsonFile& NdjsonFile::operator=(NdjsonFile&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        path_ = std::move(o.path_);
        resume_ = std::move(o.resume_);
        last_sync_ms_ = o.last_sync_ms_;
    }
    return *this;
}

NdjsonFile::~NdjsonFile() {
    if (fd_ >= 0) {
        ::fdatasync(fd_);
        ::close(fd_);
    }
}

NdjsonFile NdjsonFile::open(const std::string& path, const GtidState& start) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) io_error("cannot open", path);
    std::string text;
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int saved = errno;
            ::close(fd);
            errno = saved;
            io_error("cannot read", path);
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    std::size_t keep = 0;
    FileResume resume;
    try {
        resume = scan_cdc_lines(text, start, keep);
    } catch (const Error& e) {
        ::close(fd);
        throw Error(ErrorKind::usage, path + ": " + e.what());
    }
    if (keep < text.size()) {
        if (::ftruncate(fd, static_cast<off_t>(keep)) != 0 || ::fdatasync(fd) != 0) {
            int saved = errno;
            ::close(fd);
            errno = saved;
            io_error("cannot cut the torn end of", path);
        }
    }
    return NdjsonFile(fd, path, std::move(resume));
}

void write_all(int fd, std::string_view bytes, std::string_view what) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(ErrorKind::io, "cannot write " + std::string(what) + ": " + std::strerror(errno));
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

void NdjsonFile::append(std::string_view lines) {
    write_all(fd_, lines, path_);
    long long now = now_ms();
    if (now - last_sync_ms_ >= 1000) {
        sync();
        last_sync_ms_ = now;
    }
}

void NdjsonFile::sync() {
    if (::fdatasync(fd_) != 0) io_error("cannot sync", path_);
}

}  // namespace sluice::mariadb::cdc
