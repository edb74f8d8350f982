#include "native_program.hpp"

#include "keal_database.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace keal::e2e {

namespace {

int counter = 0;

std::string fresh_dir() {
    const std::string dir = testing::TempDir() + "/native-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) throw std::runtime_error("cannot create " + dir);
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

NativeProgram::NativeProgram(const std::string& source) : dir_(fresh_dir()) {
    std::string stem = source.substr(source.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    exe_ = dir_ + "/" + stem;
    const CommandResult built = run_keal({"build", source, "--target", "native", "-o", exe_});
    if (built.exit_code != 0) throw std::runtime_error("keal build " + source + " failed:\n" + built.output);
}

NativeProgram NativeProgram::from_text(const std::string& name, const std::string& text) {
    const std::string path = fresh_dir() + "/" + name + ".keal";
    std::ofstream(path) << text;
    return NativeProgram(path);
}

pid_t NativeProgram::start(const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> all;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string kv = *e;
        const std::size_t eq = kv.find('=');
        if (eq != std::string::npos) all[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : env) all[k] = v;
    std::vector<std::string> strings;
    for (const auto& [k, v] : all) strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (std::string& s : strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = dir_ + "/stdout";
    const std::string err = dir_ + "/stderr";
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> argv = {exe_.data(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, exe_.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run " + exe_ + ": " + std::strerror(rc));
    running_ = pid;
    return pid;
}

ProgramRun NativeProgram::wait() {
    ProgramRun r;
    int status = 0;
    struct rusage usage {};
    while (wait4(running_, &status, 0, &usage) < 0) {
        if (errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
    }
    running_ = -1;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.peak_rss_kb = usage.ru_maxrss;
    r.out = slurp(dir_ + "/stdout");
    r.err = slurp(dir_ + "/stderr");
    return r;
}

ProgramRun NativeProgram::run(const std::map<std::string, std::string>& env) const {
    NativeProgram self = *this;
    self.start(env);
    return self.wait();
}

}  // namespace keal::e2e
