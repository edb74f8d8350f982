#pragma once
// What the tools write on stderr, line by line: every line has its
// passwords masked (secrets.hpp), and with --log-format json it becomes one
// JSON object
//   {"level":"info","time":"2026-12-01T23:40:00.123Z","message":"...","fields":{"program":"..."}}
// The tools keep writing plain lines to std::cerr ("sluice-mariadb cdc:
// error: ..."); install() puts a line filter in front of its buffer, so no
// call site changes. The level is "error" for "PROGRAM: error: ...",
// "warning" for "PROGRAM: warning: ...", else "info"; the program prefix
// goes into fields.program, the rest is the message.
#include <functional>
#include <memory>
#include <mutex>
#include <streambuf>
#include <string>

namespace sluice::service {

enum class LogFormat { text, json };

// "text" or "json"; std::invalid_argument otherwise.
LogFormat parse_log_format(const std::string& name);

// One line of `format` for the line `line` (without its newline), as
// LogLines writes it; `extra_fields` are JSON members ("\"a\":1,...") added
// to fields. `unix_ms`: the time to stamp.
std::string format_log_line(LogFormat format, const std::string& program, const std::string& line,
                            long long unix_ms, const std::string& extra_fields = {});

// A streambuf that collects whole lines and writes each, formatted, to fd.
class LogLines : public std::streambuf {
public:
    LogLines(LogFormat format, std::string program, int fd);
    ~LogLines() override;
    // Adds JSON members to the fields of each json line (the figures of the
    // moment); called with the line's text.
    void set_fields(std::function<std::string()> fields);
    // Writes a pending partial line (as if it ended).
    void finish();

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void emit_locked(const std::string& line);
    LogFormat format_;
    std::string program_;
    int fd_;
    std::mutex mutex_;
    std::string pending_;
    std::function<std::string()> fields_;
};

// Puts a LogLines in front of std::cerr for the rest of the process (once).
LogLines& install_log_lines(LogFormat format, const std::string& program);

}  // namespace sluice::service
