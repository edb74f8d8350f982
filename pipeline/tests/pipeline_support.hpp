#pragma once
// Helpers of the pipeline's server tests: the private servers from the env
// file, the sluice-pipeline program as a child process (so that a test can
// SIGKILL it), and reading the sink's tables.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/postgres/connection.hpp"

namespace sluice::pipeline::test {

inline const EnvFile& env() {
    static const EnvFile file = EnvFile::from_environment();
    return file;
}
inline std::string mariadb_url() { return env().require("SLUICE_MARIADB_URL"); }
inline std::string pg_url() { return env().require("SLUICE_PG_URL"); }

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// sluice-pipeline as a child: stdout and stderr to `log`.
class Child {
public:
    Child(const std::vector<std::string>& args, const std::string& log) {
        pid_ = ::fork();
        if (pid_ == 0) {
            int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            std::vector<char*> argv;
            std::string prog = SLUICE_PIPELINE_CLI;
            argv.push_back(prog.data());
            std::vector<std::string> copy = args;
            for (auto& a : copy) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(prog.c_str(), argv.data());
            ::_exit(127);
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child() {
        if (pid_ > 0) kill();
    }
    void kill() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        pid_ = -1;
    }
    // SIGSTOP / SIGCONT (a process held still while others move the sink).
    void signal(int sig) {
        if (pid_ > 0) ::kill(pid_, sig);
    }
    // True while it runs (it did not exit by itself; wait() then has its status).
    bool running() {
        if (pid_ <= 0) return false;
        if (::waitpid(pid_, &status_, WNOHANG) == 0) return true;
        pid_ = -1;
        return false;
    }
    // Exit status (waits); -1 when killed by a signal.
    int wait() {
        if (pid_ > 0) ::waitpid(pid_, &status_, 0);
        pid_ = -1;
        return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
    }

private:
    pid_t pid_ = -1;
    int status_ = 0;
};

struct Outcome {
    int status = -1;
    std::string log;
};

inline Outcome run_pipeline(const std::vector<std::string>& args, const std::string& log_path) {
    std::remove(log_path.c_str());
    Child c(args, log_path);
    Outcome o;
    o.status = c.wait();
    o.log = read_file(log_path);
    return o;
}

inline std::string scalar(mariadb::Connection& c, const std::string& sql) {
    mariadb::ResultSet rs = c.query(sql);
    const mariadb::Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("NULL") : "";
    while (rs.next()) {
    }
    return v;
}

using SessionKey = std::pair<std::string, std::int64_t>;
struct SessionValues {
    std::int64_t end = 0, count = 0;
    double sum = 0, min = 0, max = 0;
    bool final = false;
    friend bool operator==(const SessionValues&, const SessionValues&) = default;
};
inline std::ostream& operator<<(std::ostream& o, const SessionValues& v) {
    return o << "{end " << v.end << ", count " << v.count << ", sum " << v.sum << ", min " << v.min << ", max " << v.max
             << ", final " << v.final << "}";
}
using Sessions = std::map<SessionKey, SessionValues>;

inline Sessions sink_sessions(postgres::Connection& pg, const std::string& name) {
    Sessions out;
    for (postgres::Row r : pg.query("select key, start, \"end\", count, sum, min, max, final from \"" + name + "\"", {},
                                    postgres::Format::binary))
        out[{r.get<std::string>(0), r.get<std::int64_t>(1)}] = {r.get<std::int64_t>(2), r.get<std::int64_t>(3),
                                                              r.get<double>(4),      r.get<double>(5),
                                                              r.get<double>(6),      r.get<bool>(7)};
    return out;
}

// (id, key, ts) of every NAME_late row, with multiplicity.
inline std::multiset<std::tuple<std::string, std::string, std::int64_t>> sink_late(postgres::Connection& pg,
                                                                                   const std::string& name) {
    std::multiset<std::tuple<std::string, std::string, std::int64_t>> out;
    for (postgres::Row r : pg.query("select id, key, ts from \"" + name + "_late\"", {}, postgres::Format::binary))
        out.insert({r.get<std::string>(0), r.get<std::string>(1), r.get<std::int64_t>(2)});
    return out;
}

inline void drop_sink(postgres::Connection& pg, const std::string& name) {
    pg.run_script("drop table if exists \"" + name + "\", \"" + name + "_late\", \"" + name + "_rejected\";" +
                  "create table if not exists sluice_pipeline_state (name text primary key, gtid text not null, "
                  "checkpoint bytea, settings text not null)");
    pg.query("delete from sluice_pipeline_state where name = $1", {name});
}

}  // namespace sluice::pipeline::test
