#pragma once
// Helpers of the pipeline's JetStream tests (jetstream_test,
// jetstream_snapshot_test): publisher and workers as children that can be
// SIGKILLed and started again, the `sluice-pipeline run` arguments both tests
// give their workers, and a sink's tables as sorted text to compare sinks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "pipeline_support.hpp"
#include "sluice/pipeline/key_partition.hpp"

namespace sluice::pipeline::test {

// Any program as a child that can be started again after a kill; stdout and
// stderr appended to `log`.
class Process {
public:
    Process(std::string program, std::vector<std::string> args, std::string log)
        : program_(std::move(program)), args_(std::move(args)), log_(std::move(log)) {}
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;
    ~Process() { kill(); }
    void start() {
        pid_ = ::fork();
        if (pid_ == 0) {
            int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            std::vector<char*> argv;
            argv.push_back(program_.data());
            for (auto& a : args_) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(program_.c_str(), argv.data());
            ::_exit(127);
        }
    }
    // SIGKILL; true when it was still running (not exited by itself).
    bool kill() {
        if (pid_ <= 0) return false;
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        pid_ = -1;
        return WIFSIGNALED(st);
    }
    int wait() {
        int st = 0;
        ::waitpid(pid_, &st, 0);
        pid_ = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    // SIGTERM (a graceful stop), then its exit status once it has exited;
    // nothing (and SIGKILL) when it is still running after `limit`.
    std::optional<int> terminate(std::chrono::seconds limit) {
        ::kill(pid_, SIGTERM);
        const auto until = std::chrono::steady_clock::now() + limit;
        for (;;) {
            int st = 0;
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            }
            if (std::chrono::steady_clock::now() >= until) {
                kill();
                return std::nullopt;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    const std::string& log() const { return log_; }

private:
    std::string program_;
    std::vector<std::string> args_;
    std::string log_;
    pid_t pid_ = -1;
};

// SLUICE_OWN_SERVERS_DIR/NAME-PID.log (the folder made if need be).
inline std::string own_log_path(const std::string& name) {
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    return std::string(SLUICE_OWN_SERVERS_DIR) + "/" + name + "-" + std::to_string(::getpid()) + ".log";
}

// Drops the sink's tables and the state rows of the sink and of its
// partitions (NAME#I/N).
inline void drop_partitioned_sink(postgres::Connection& pg, const std::string& sink) {
    drop_sink(pg, sink);
    pg.query("delete from sluice_pipeline_state where name like $1", {sink + "#%"});
}

// `run` of `table` (id, k, t, v) from `source` into `sink`, both tests'
// window settings, then `extra`.
inline std::vector<std::string> worker_run_args(const std::string& source, const std::string& table,
                                                const std::string& sink, const std::vector<std::string>& extra) {
    std::vector<std::string> a = {"run",  "--source", source, "--table", table,   "--id", "id",
                                  "--key", "k",       "--ts", "t",       "--value", "v", "--sink", pg_url(),
                                  "--sink-table", sink, "--lateness", "15", "--checkpoint-every", "3", "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

using Rows = std::vector<std::string>;
// A query's first column as text, one row a string.
inline Rows rows_of(postgres::Connection& pg, const std::string& sql) {
    Rows out;
    for (postgres::Row r : pg.query(sql)) out.push_back(r.get<std::string>(0));
    return out;
}

// Sessions, late and rejected rows of NAME, each as sorted text: what
// "equal sinks" compares.
inline std::vector<Rows> sink_rows(postgres::Connection& pg, const std::string& name) {
    const std::string q = "\"" + name;
    return {rows_of(pg, "select concat_ws(' ', key, start, \"end\", count, sum, min, max, final) from " + q +
                            "\" order by 1"),
            rows_of(pg, "select concat_ws(' ', gtid, seq, id, key, ts, op, value) from " + q + "_late\" order by 1"),
            rows_of(pg, "select concat_ws(' ', gtid, seq, image, id, key, ts, value, reason) from " + q +
                            "_rejected\" order by 1")};
}

// The two workers' sink (`have`, of sink_rows) equal to the single
// process's (`want`) table by table, and both partitions owning sessions
// (the hash spreads the 12 keys).
inline void expect_equal_sinks(const std::vector<Rows>& have, const std::vector<Rows>& want) {
    EXPECT_EQ(have[0], want[0]) << "sessions";
    EXPECT_EQ(have[1], want[1]) << "late rows";
    EXPECT_EQ(have[2], want[2]) << "rejected rows";
    std::set<std::uint32_t> owners;
    for (const std::string& r : have[0]) owners.insert(partition_of(r.substr(0, r.find(' ')), 2));
    EXPECT_EQ(owners.size(), 2U);
}

}  // namespace sluice::pipeline::test
