#include "keal_database.hpp"

#include "sluice/common/env_file.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>

#ifndef KEAL_EXE
#error "KEAL_EXE must name the keal compiler (set by CMake)"
#endif
#ifndef KEAL_E2E_LIB_DIR
#error "KEAL_E2E_LIB_DIR must name where the tests' libraries go (set by CMake)"
#endif
#ifndef KEAL_E2E_PROGRAMS
#error "KEAL_E2E_PROGRAMS must name the programs folder (set by CMake)"
#endif

namespace keal::e2e {

namespace {

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::unique_ptr<KealDatabase>& the_database() {
    static std::unique_ptr<KealDatabase> db;
    return db;
}

// Drops the process's database after the last test, even when tests failed.
class DropDatabaseAtExit : public ::testing::Environment {
public:
    void TearDown() override { KealDatabase::drop(); }
};

[[maybe_unused]] ::testing::Environment* const drop_at_exit =
    ::testing::AddGlobalTestEnvironment(new DropDatabaseAtExit);

}  // namespace

CommandResult run_keal(const std::vector<std::string>& args) {
    std::string command = shell_quote(KEAL_EXE);
    for (const std::string& a : args) command += " " + shell_quote(a);
    command += " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    CommandResult result;
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

std::string program_path(const std::string& file_name) {
    return std::string(KEAL_E2E_PROGRAMS) + "/" + file_name;
}

KealDatabase::KealDatabase(std::string admin_url, std::string name, std::string url)
    : admin_url_(std::move(admin_url)), name_(std::move(name)), url_(std::move(url)), session_(url_) {}

KealDatabase& KealDatabase::get() {
    std::unique_ptr<KealDatabase>& db = the_database();
    if (db) return *db;
    const sluice::EnvFile env = sluice::EnvFile::from_environment();
    const std::string server = "postgresql://" + env.require("SLUICE_PG_USER") + "@" +
                               env.require("SLUICE_HOST") + ":" + env.require("SLUICE_PG_PORT");
    const std::string admin_url = env.require("SLUICE_PG_URL");
    const std::string name = "keal_e2e_" + std::to_string(getpid());
    {
        PgConnection admin(admin_url);
        admin.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        admin.exec("CREATE DATABASE " + name);
    }
    db.reset(new KealDatabase(admin_url, name, server + "/" + name));
    return *db;
}

void KealDatabase::drop() {
    std::unique_ptr<KealDatabase>& db = the_database();
    if (!db) return;
    const std::string admin_url = db->admin_url_;
    const std::string name = db->name_;
    db.reset();  // closes our session first
    PgConnection admin(admin_url);
    admin.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
}

void KealDatabase::deploy(const std::string& file_name) {
    if (deployed_.count(file_name)) return;
    const CommandResult r = run_keal({"deploy", program_path(file_name), "--db", url_, "--lib-dir", KEAL_E2E_LIB_DIR});
    if (r.exit_code != 0)
        throw std::runtime_error("keal deploy " + file_name + " failed (exit " +
                                 std::to_string(r.exit_code) + "):\n" + r.output);
    deployed_.insert(file_name);
}

}  // namespace keal::e2e
