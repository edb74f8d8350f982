#pragma once
// Native Keal clients in the end-to-end tests: built once with `keal build
// --target native`, then run as child processes with their own environment
// (DATABASE_URL, KEAL_SQL_TRACE), capturing stdout and stderr apart, the
// exit status and the process's peak memory.
#include <sys/types.h>

#include <map>
#include <string>

namespace keal::e2e {

struct ProgramRun {
    int exit_code = -1;       // 128 + signal when killed
    std::string out;          // stdout
    std::string err;          // stderr
    long long peak_rss_kb = 0;  // the program's own peak resident set (wait4)
};

class NativeProgram {
public:
    // Builds `source` (a .keal path) into a temporary executable; throws
    // std::runtime_error with the compiler's output when that fails.
    explicit NativeProgram(const std::string& source);
    // Builds a program from its text, written as <name>.keal in a
    // temporary directory (runtime errors then name that file).
    static NativeProgram from_text(const std::string& name, const std::string& text);

    // Runs the program with `env` added to (or replacing in) this process's
    // environment and waits for it.
    ProgramRun run(const std::map<std::string, std::string>& env) const;
    // Starts it without waiting: the pid, for signals; finish with wait().
    pid_t start(const std::map<std::string, std::string>& env);
    ProgramRun wait();

    const std::string& executable() const { return exe_; }

private:
    std::string exe_;
    std::string dir_;
    pid_t running_ = -1;
};

}  // namespace keal::e2e
