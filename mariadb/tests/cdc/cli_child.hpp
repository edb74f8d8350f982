#pragma once
// sluice-mariadb (SLUICE_MARIADB_CLI, defined by the test target) as a child
// process that a test can SIGKILL: no shell, stdout to /dev/null, stderr
// appended to a log the test prints when an assertion fails. Shared by the
// CDC tests that kill the CLI (stream_test, jetstream_test,
// jetstream_snapshot_test).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace sluice::mariadb::test {

// Starts the CLI with these arguments; its stderr appended to `log`
// ("/dev/null" for none).
inline pid_t spawn_cli(const std::vector<std::string>& args, const std::string& log) {
    pid_t pid = ::fork();
    if (pid == 0) {
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(SLUICE_MARIADB_CLI));
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::freopen("/dev/null", "w", stdout);
        std::freopen(log.c_str(), "a", stderr);
        ::execv(SLUICE_MARIADB_CLI, argv.data());
        ::_exit(127);
    }
    return pid;
}

// Waits for the child; its exit status, -1 when a signal ended it.
inline int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace sluice::mariadb::test
