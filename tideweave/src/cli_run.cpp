#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "json_out.hpp"
#include "sluice/tideweave/failure.hpp"
#include "sluice/tideweave/run.hpp"

namespace sluice::tideweave {
namespace {

constexpr std::size_t read_chunk = std::size_t{1} << 20;
constexpr std::size_t flush_at = std::size_t{1} << 20;

// `call` failed with `error` (an errno value).
[[noreturn]] void io_failure(const char* call, int error) {
    throw Failure(ErrorKind::io, std::string(call) + ": " + std::strerror(error));
}

void write_all(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            io_failure("write", errno);
        }
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

RunResult run_stream(Stream& stream, int in_fd, int out_fd, const RunOptions& options) {
    RunResult result;
    const std::int64_t first_line = stream.line();  // 0, or the checkpoint's line after a restore
    std::vector<char> buf(read_chunk);
    std::size_t begin = 0;  // start of the current (incomplete) line
    std::size_t end = 0;    // bytes held
    std::size_t scanned = 0;
    bool eof = false;
    bool skipping = false;  // discarding the rest of an over-long line
    std::string out;
    out.reserve(flush_at * 2);

    auto handle = [&](std::string_view line) {
        ++result.lines;
        if (stream.process_line(line, first_line + result.lines, out) == Stream::Outcome::error) {
            ++result.errors;
            if (!options.keep_going) result.stopped = true;
        }
    };
    auto too_long = [&] {
        ++result.lines;
        ++result.errors;
        out.append("{\"error\":{\"line\":");
        json::append_int(out, first_line + result.lines);
        out.append(",\"message\":\"line longer than ");
        json::append_int(out, static_cast<std::int64_t>(options.max_line_bytes));
        out.append(" bytes\"}}\n");
        if (!options.keep_going) result.stopped = true;
    };

    while (!result.stopped) {
        // Every complete line held.
        while (!result.stopped) {
            const void* nl = std::memchr(buf.data() + scanned, '\n', end - scanned);
            if (nl == nullptr) break;
            const auto pos = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data());
            if (skipping) {
                skipping = false;
            } else {
                handle(std::string_view(buf.data() + begin, pos - begin));
            }
            begin = scanned = pos + 1;
            if (out.size() >= flush_at) {
                write_all(out_fd, out);
                out.clear();
            }
        }
        if (result.stopped) break;
        if (eof) {
            if (begin < end && !skipping) handle(std::string_view(buf.data() + begin, end - begin));
            break;
        }
        // Keep the partial line, then read more.
        if (begin > 0) {
            std::memmove(buf.data(), buf.data() + begin, end - begin);
            end -= begin;
            scanned -= begin;
            begin = 0;
        }
        scanned = end;
        if (end > options.max_line_bytes) {
            if (!skipping) too_long();
            skipping = true;
            end = scanned = 0;
            continue;
        }
        if (buf.size() - end < read_chunk) buf.resize(std::max(buf.size() * 2, end + read_chunk));
        const ssize_t n = ::read(in_fd, buf.data() + end, buf.size() - end);
        if (n < 0) {
            if (errno == EINTR) continue;
            // The output of the lines before goes out first (a failure to
            // write it is the one reported).
            const int read_error = errno;
            write_all(out_fd, out);
            io_failure("read", read_error);
        }
        if (n == 0) eof = true;
        end += static_cast<std::size_t>(n);
    }
    write_all(out_fd, out);
    return result;
}

}  // namespace sluice::tideweave
