#include "sluice/service/log_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <ctime>
#include <iostream>
#include <stdexcept>

#include "sluice/common/json_write.hpp"
#include "sluice/service/secrets.hpp"

namespace sluice::service {

LogFormat parse_log_format(const std::string& name) {
    if (name == "text") return LogFormat::text;
    if (name == "json") return LogFormat::json;
    throw std::invalid_argument("--log-format \"" + name + "\": expected text or json");
}

namespace {

std::string iso_time(long long unix_ms) {
    const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03lldZ", buf, unix_ms % 1000);
    return out;
}

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

std::string format_log_line(LogFormat format, const std::string& program, const std::string& raw, long long unix_ms,
                            const std::string& extra_fields) {
    const std::string line = mask_secrets(raw);
    if (format == LogFormat::text) return line + "\n";
    // "sluice-mariadb cdc: error: ..." -> program, level error, the rest.
    std::string who = program, message = line, level = "info";
    if (starts_with(line, "sluice")) {
        const auto colon = line.find(": ");
        if (colon != std::string::npos) {
            who = line.substr(0, colon);
            message = line.substr(colon + 2);
        }
    }
    if (starts_with(message, "error: ")) {
        level = "error";
        message.erase(0, 7);
    } else if (starts_with(message, "warning: ")) {
        level = "warning";
        message.erase(0, 9);
    }
    std::string out = "{\"level\":";
    json::append_string(out, level);
    out += ",\"time\":";
    json::append_string(out, iso_time(unix_ms));
    out += ",\"message\":";
    json::append_string(out, message);
    out += ",\"fields\":{\"program\":";
    json::append_string(out, who);
    if (!extra_fields.empty()) out += "," + mask_secrets(extra_fields);
    out += "}}\n";
    return out;
}

LogLines::LogLines(LogFormat format, std::string program, int fd)
    : format_(format), program_(std::move(program)), fd_(fd) {}

LogLines::~LogLines() {
    std::lock_guard lock(mutex_);
    if (!pending_.empty()) emit_locked(pending_);
}

void LogLines::set_fields(std::function<std::string()> fields) {
    std::lock_guard lock(mutex_);
    fields_ = std::move(fields);
}

void LogLines::emit_locked(const std::string& line) {
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    const std::string out =
        format_log_line(format_, program_, line, ms, format_ == LogFormat::json && fields_ ? fields_() : std::string{});
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // stderr gone: nothing left to tell
        done += static_cast<std::size_t>(n);
    }
}

LogLines::int_type LogLines::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
}

std::streamsize LogLines::xsputn(const char* s, std::streamsize n) {
    std::lock_guard lock(mutex_);
    for (std::streamsize i = 0; i < n; ++i) {
        if (s[i] == '\n') {
            emit_locked(pending_);
            pending_.clear();
        } else {
            pending_ += s[i];
        }
    }
    return n;
}

int LogLines::sync() { return 0; }  // whole lines only: a partial line waits for its newline

void LogLines::finish() {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) return;
    emit_locked(pending_);
    pending_.clear();
}

namespace {
LogLines* installed = nullptr;
}

LogLines& install_log_lines(LogFormat format, const std::string& program) {
    // Lives as long as std::cerr (never deleted); a last line without its
    // newline is written at exit.
    installed = new LogLines(format, program, STDERR_FILENO);
    std::cerr.rdbuf(installed);
    std::atexit([] {
        installed->set_fields({});  // what they read may be gone by now
        installed->finish();
    });
    return *installed;
}

}  // namespace sluice::service
