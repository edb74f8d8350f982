#include "sluice/mariadb/cdc/ndjson_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstring>
#include <utility>
#include <vector>

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

// The part keys of a transaction line written in parts (ndjson.hpp):
// ,"part":K[,"last":true][,"rolled_back":true] right after "ts".
struct PartKeys {
    std::uint64_t part = 0;
    bool last = false;
};

std::optional<PartKeys> part_keys_of(std::string_view line) {
    auto skip_number_after = [&line](std::string_view key) {
        std::size_t at = line.find(key);
        if (at == std::string_view::npos) return false;
        at += key.size();
        while (at < line.size() && line[at] >= '0' && line[at] <= '9') ++at;
        line.remove_prefix(at);
        return true;
    };
    if (!skip_number_after(",\"server_id\":") || !skip_number_after(",\"ts\":")) return std::nullopt;
    static constexpr std::string_view part_key = ",\"part\":";
    if (line.substr(0, part_key.size()) != part_key) return std::nullopt;
    line.remove_prefix(part_key.size());
    PartKeys k;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), k.part);
    if (ec != std::errc() || k.part == 0) return PartKeys{};  // part 0: refused by the caller
    line.remove_prefix(static_cast<std::size_t>(end - line.data()));
    k.last = line.substr(0, 12) == ",\"last\":true";
    return k;
}

}  // namespace

namespace {

// The scan as a state machine over complete lines, so a file can be fed in
// blocks (bounded memory) and a string at once.
class LineScanner {
public:
    explicit LineScanner(const GtidState& start) : state_(start) {}

    // One complete line (without its '\n') that starts at byte `offset`.
    void line(std::string_view line, std::size_t offset) {
        ++line_no_;
        if (auto g = quoted_after(line, "{\"gtid\":\"")) {
            GtidPosition gtid;
            try {
                gtid = parse_gtid(*g);
            } catch (const Error& e) {
                throw Error(ErrorKind::usage, "line " + std::to_string(line_no_) + ": " + e.what());
            }
            if (part_of(gtid, part_keys_of(line), offset)) return;
            state_.advance(gtid);
            r_.has_lines = true;
        } else if (auto s = quoted_after(line, "{\"snapshot\":{\"gtid\":\"")) {
            if (part_from_ != npos) throw unfinished("a snapshot line");
            GtidState at;
            try {
                at = GtidState::parse(*s);
            } catch (const Error& e) {
                throw Error(ErrorKind::usage, "line " + std::to_string(line_no_) + ": " + e.what());
            }
            // What follows the state tells a "done" line from a chunk's.
            const std::size_t after = std::string_view("{\"snapshot\":{\"gtid\":\"").size() + s->size() + 1;
            bool done = line.substr(after) == ",\"done\":true}}";
            if (snapshot_from_ == npos) {
                snapshot_from_ = offset;
                before_snapshot_ = state_;
                had_lines_before_snapshot_ = r_.has_lines;
            }
            if (done) {
                for (const GtidPosition& done_gtid : at.gtids()) state_.advance(done_gtid);
                snapshot_from_ = npos;
                r_.snapshot_done = true;
                r_.has_lines = true;
            }
        } else if (!line.empty()) {
            throw Error(ErrorKind::usage, "line " + std::to_string(line_no_) +
                                              " is not a line of sluice-mariadb cdc (refusing to append to it)");
        }
    }

    // A transaction in parts: its position counts only once its last part
    // is in the file. True when the line is a part (consumed here).
    bool part_of(const GtidPosition& gtid, std::optional<PartKeys> keys, std::size_t offset) {
        const std::string g = to_string(gtid);
        if (!keys) {
            if (part_from_ != npos) throw unfinished("the line of " + g);
            return false;
        }
        const std::string here = "line " + std::to_string(line_no_) + ", \"part\" of " + g + ": ";
        if (keys->part == 0) throw Error(ErrorKind::usage, here + "not a number from 1 up");
        if (part_from_ == npos) {
            if (keys->part != 1)
                throw Error(ErrorKind::usage, here + "part " + std::to_string(keys->part) + " without part 1 before it");
            part_from_ = offset;
            part_gtid_ = gtid;
            next_part_ = 1;
        } else if (!(gtid == part_gtid_)) {
            throw unfinished("part " + std::to_string(keys->part) + " of " + g);
        }
        if (keys->part != next_part_)
            throw Error(ErrorKind::usage, here + "part " + std::to_string(keys->part) + " where part " +
                                              std::to_string(next_part_) + " belongs");
        ++next_part_;
        if (keys->last) {
            part_from_ = npos;
            state_.advance(gtid);
            r_.has_lines = true;
        }
        return true;
    }

    Error unfinished(const std::string& what) const {
        return Error(ErrorKind::usage, "line " + std::to_string(line_no_) + ": " + what + " inside transaction " +
                                           to_string(part_gtid_) + ", whose part " + std::to_string(next_part_) +
                                           " (or last part) is missing");
    }

    // `complete`: where the last complete line ends; `total`: the size.
    FileResume finish(std::size_t complete, std::size_t total, std::size_t& keep) {
        keep = complete;
        // A transaction whose last part is not in the file is cut and read
        // again from its start (its parts left the position unmoved).
        if (part_from_ != npos) keep = part_from_;
        if (snapshot_from_ != npos) {
            keep = snapshot_from_;
            state_ = before_snapshot_;
            r_.has_lines = had_lines_before_snapshot_;
        }
        r_.cut_bytes = total - keep;
        r_.position = state_;
        return r_;
    }

private:
    static constexpr std::size_t npos = std::string_view::npos;
    FileResume r_;
    GtidState state_;
    std::size_t snapshot_from_ = npos;
    GtidState before_snapshot_;
    bool had_lines_before_snapshot_ = false;
    std::size_t line_no_ = 0;
    std::size_t part_from_ = npos;  // where the transaction in parts began
    GtidPosition part_gtid_;
    std::uint64_t next_part_ = 1;
};

}  // namespace

FileResume scan_cdc_lines(std::string_view text, const GtidState& start, std::size_t& keep) {
    LineScanner scan(start);
    std::size_t pos = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', pos)) {
        scan.line(text.substr(pos, nl - pos), pos);
        pos = nl + 1;
    }
    return scan.finish(pos, text.size(), keep);
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
    // Read in blocks, keeping only the line being read: memory is one block
    // plus the longest line, whatever the file's size.
    std::size_t keep = 0;
    std::size_t total = 0;
    FileResume resume;
    try {
        LineScanner scan(start);
        std::string partial;  // the current line's bytes so far
        std::size_t partial_at = 0;
        std::vector<char> buf(1 << 20);
        for (;;) {
            ssize_t n = ::read(fd, buf.data(), buf.size());
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw Error(ErrorKind::io, "cannot read " + path + ": " + std::strerror(errno));
            if (n == 0) break;
            std::string_view block(buf.data(), static_cast<std::size_t>(n));
            std::size_t pos = 0;
            for (std::size_t nl = block.find('\n'); nl != std::string_view::npos; nl = block.find('\n', pos)) {
                if (partial.empty()) {
                    scan.line(block.substr(pos, nl - pos), total + pos);
                } else {
                    partial.append(block.substr(pos, nl - pos));
                    scan.line(partial, partial_at);
                    partial.clear();
                }
                pos = nl + 1;
            }
            if (pos < block.size()) {
                if (partial.empty()) partial_at = total + pos;
                partial.append(block.substr(pos));
            }
            total += block.size();
        }
        const std::size_t complete = partial.empty() ? total : partial_at;
        resume = scan.finish(complete, total, keep);
    } catch (const Error& e) {
        ::close(fd);
        if (e.kind() == ErrorKind::usage) throw Error(ErrorKind::usage, path + ": " + e.what());
        throw;
    }
    if (keep < total) {
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
