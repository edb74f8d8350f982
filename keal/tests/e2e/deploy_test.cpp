// `keal deploy` as a new user meets it: the library directory's
// permissions, a server that cannot read the library, a user that may not
// create C functions, exports shadowed by pg_catalog, and where the e2e
// tests' own libraries go.
#include "keal_database.hpp"

#include "sluice/common/env_file.hpp"

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iterator>
#include <optional>

#ifndef KEAL_E2E_LIB_DIR
#error "KEAL_E2E_LIB_DIR must name the e2e tests' library directory (set by CMake)"
#endif

namespace keal::e2e {
namespace {

namespace fs = std::filesystem;

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return 0;
    return st.st_mode & 07777;
}

// A fresh directory under the build tree for one test.
fs::path scratch(const std::string& name) {
    fs::path dir = fs::path(KEAL_E2E_LIB_DIR).parent_path() / "deploy-scratch" / name;
    fs::remove_all(dir);
    fs::create_directories(dir.parent_path());
    return dir;
}

std::string file_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    // Through rdbuf(): GCC 12 -O2 warns of a null dereference inside
    // istreambuf_iterator's end (docs/release-warnings.md).
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool is_empty_dir(const fs::path& dir) { return fs::is_empty(dir); }

// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

class Deploy : public ::testing::Test {
protected:
    KealDatabase& db() { return KealDatabase::get(); }
};

// The old deploy added group/other read and execute to every directory the
// user owned on the way up: a private parent (0700) became 0755.
TEST_F(Deploy, APrivateParentKeepsItsModeAndTheErrorNamesIt) {
    const fs::path parent = scratch("private");
    ASSERT_EQ(::mkdir(parent.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(parent.c_str(), 0700), 0);
    const CommandResult r =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", (parent / "lib").string()});
    EXPECT_EQ(mode_of(parent), 0700U);
    // The server (user postgres) cannot enter the parent: the deploy fails
    // and says which directory blocks it and what to do.
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("the directory " + parent.string() + " (mode 0700) lets no other user in"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("pass --lib-dir a directory the server can reach"), std::string::npos) << r.output;
    // The library directory itself is new: made with the mode the server needs.
    EXPECT_EQ(mode_of(parent / "lib"), 0755U);
}

TEST_F(Deploy, AnExistingLibDirKeepsItsModeAndNewOnesAre0755) {
    const fs::path existing = scratch("existing");
    ASSERT_EQ(::mkdir(existing.c_str(), 0751), 0);
    ASSERT_EQ(::chmod(existing.c_str(), 0751), 0);  // others may enter, not list
    const CommandResult into_existing =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", existing.string()});
    EXPECT_EQ(into_existing.exit_code, 0) << into_existing.output;
    EXPECT_EQ(mode_of(existing), 0751U);

    const fs::path fresh = scratch("fresh") / "a" / "lib";
    const mode_t old_umask = ::umask(077);
    const CommandResult into_new =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", fresh.string()});
    ::umask(old_umask);
    EXPECT_EQ(into_new.exit_code, 0) << into_new.output;
    EXPECT_EQ(mode_of(fresh), 0755U);
    EXPECT_EQ(mode_of(fresh.parent_path()), 0755U);
    EXPECT_EQ(db().sql().scalar("SELECT steps(27)"), "111");
}

TEST_F(Deploy, ANonSuperuserIsToldThatLanguageCNeedsASuperuser) {
    db().sql().exec("DROP ROLE IF EXISTS keal_e2e_plain");
    db().sql().exec("CREATE ROLE keal_e2e_plain LOGIN");
    db().sql().exec("GRANT CREATE ON SCHEMA public TO keal_e2e_plain");
    const std::string url = db().url();
    const std::string plain_url = "postgresql://keal_e2e_plain@" + url.substr(url.find('@') + 1);
    const CommandResult r = run_keal({"deploy", program_path("collatz.keal"), "--db", plain_url, "--lib-dir",
                                      KEAL_E2E_LIB_DIR});
    db().sql().exec("REVOKE CREATE ON SCHEMA public FROM keal_e2e_plain");
    db().sql().exec("DROP ROLE keal_e2e_plain");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("user 'keal_e2e_plain' may not create LANGUAGE C functions: that needs a superuser "
                            "(or a role allowed to create C functions)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("permission denied for schema"), std::string::npos) << r.output;
}

TEST_F(Deploy, AnExportShadowedByPgCatalogIsWarnedAbout) {
    const CommandResult r =
        run_keal({"deploy", program_path("shadowed.keal"), "--db", db().url(), "--lib-dir", KEAL_E2E_LIB_DIR});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("keal: warning: lcm(bigint, bigint) has the name and argument types of PostgreSQL's "
                            "built-in pg_catalog.lcm(bigint, bigint), which is found first: an unqualified "
                            "lcm(...) calls the built-in. Call public.lcm(...), or rename the function"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("warning: least_common_multiple"), std::string::npos) << r.output;
    // What the warning says: the built-in answers, the Keal function only when qualified.
    EXPECT_EQ(db().sql().scalar("SELECT lcm(4::bigint, 6::bigint)"), "12");
    EXPECT_EQ(db().sql().scalar("SELECT public.lcm(4, 6)"), "1012");
    EXPECT_EQ(db().sql().scalar("SELECT least_common_multiple(4, 6)"), "12");
}

// The e2e programs' libraries stay under the build tree, not in the shared
// $TMPDIR/keal-lib where they piled up across runs.
TEST_F(Deploy, TheTestsLibrariesLiveUnderTheBuildTree) {
    db().deploy("collatz.keal");
    const auto library = db().sql().scalar("SELECT probin FROM pg_proc WHERE oid = 'steps(bigint)'::regprocedure");
    ASSERT_TRUE(library.has_value());
    EXPECT_EQ(library->rfind(std::string(KEAL_E2E_LIB_DIR) + "/collatz-", 0), 0U) << *library;
}

// Issue 32: the library directory decides what code the server runs. A
// directory another user owns or everyone may write is refused before
// anything is written into it.
TEST_F(Deploy, ALibDirOwnedByAnotherUserIsRefused) {
    const passwd* nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    const fs::path dir = scratch("others");
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(::chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid), 0) << "the e2e tests run as root";
    const CommandResult r =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", dir.string()});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("keal: error: --lib-dir " + dir.string() + " belongs to user 'nobody' (uid " +
                            std::to_string(nobody->pw_uid) + "), not to you or root: another user could replace "
                            "the library the database server loads"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(is_empty_dir(dir));
}

TEST_F(Deploy, AWorldWritableLibDirIsRefused) {
    for (const mode_t mode : {mode_t{0777}, mode_t{01777}}) {
        const fs::path dir = scratch("world-writable");
        ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
        ASSERT_EQ(::chmod(dir.c_str(), mode), 0);
        const CommandResult r =
            run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", dir.string()});
        EXPECT_EQ(r.exit_code, 1) << r.output;
        char octal[8];
        std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
        EXPECT_NE(r.output.find("keal: error: --lib-dir " + dir.string() + " (mode " + octal +
                                ") is writable by every user"),
                  std::string::npos)
            << r.output;
        EXPECT_TRUE(is_empty_dir(dir));
        EXPECT_EQ(mode_of(dir), mode);  // not "fixed" behind the user's back either
    }
}

// The old deploy wrote NAME-TAG.so.tmp through an ofstream, which follows
// a symbolic link planted at that predictable name. Links planted at the
// old temporary name and at the final name: nothing is written through
// either, and the installed library is a regular file of ours.
TEST_F(Deploy, LinksPlantedAtTheLibraryNamesAreNotWrittenThrough) {
    const fs::path first = scratch("learn-name");
    const CommandResult learn =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", first.string()});
    ASSERT_EQ(learn.exit_code, 0) << learn.output;
    std::string name;
    for (const auto& entry : fs::directory_iterator(first)) name = entry.path().filename().string();
    ASSERT_EQ(name.rfind("collatz-", 0), 0U) << name;

    const fs::path dir = scratch("planted");
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    const fs::path victim_tmp = dir.parent_path() / "planted-victim-tmp";
    const fs::path victim_so = dir.parent_path() / "planted-victim-so";
    std::ofstream(victim_tmp) << "precious";
    std::ofstream(victim_so) << "precious";
    fs::create_symlink(victim_tmp, dir / (name + ".tmp"));
    fs::create_symlink(victim_so, dir / name);
    const CommandResult r =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", dir.string()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(file_text(victim_tmp), "precious");
    EXPECT_EQ(file_text(victim_so), "precious");
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / name)));
    EXPECT_EQ(mode_of(dir / name), 0644U);
    EXPECT_EQ(file_text(dir / name), file_text(first / name));
    EXPECT_EQ(db().sql().scalar("SELECT steps(27)"), "111");
}

TEST_F(Deploy, ASymlinkAsTheLibDirIsRefused) {
    const fs::path real = scratch("link-target");
    ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
    const fs::path link = scratch("link");
    fs::create_symlink(real, link);
    const CommandResult r =
        run_keal({"deploy", program_path("collatz.keal"), "--db", db().url(), "--lib-dir", link.string()});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("keal: error: --lib-dir " + link.string() + " is a symbolic link"), std::string::npos)
        << r.output;
    EXPECT_TRUE(is_empty_dir(real));
}

// The default directory is the user's own (keal-lib-UID), not a shared
// /tmp/keal-lib whoever came first owns.
TEST_F(Deploy, TheDefaultLibDirIsPerUser) {
    const fs::path tmp = scratch("tmpdir");
    fs::create_directories(tmp);
    ::chmod(tmp.c_str(), 0755);
    const ScopedEnv no_lib_dir("KEAL_LIB_DIR", nullptr);
    const ScopedEnv tmpdir("TMPDIR", tmp.c_str());
    const CommandResult r = run_keal({"deploy", program_path("collatz.keal"), "--db", db().url()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const fs::path mine = tmp / ("keal-lib-" + std::to_string(::geteuid()));
    EXPECT_NE(r.output.find("from " + mine.string() + "/collatz-"), std::string::npos) << r.output;
    EXPECT_EQ(mode_of(mine), 0755U);
}

// Issue 32: without --db, deploy takes the database the postgres layer and
// `keal run` take: $DATABASE_URL, else libpq's PG* variables.
TEST_F(Deploy, WithoutDbTheDatabaseUrlIsUsed) {
    db().sql().exec("DROP FUNCTION IF EXISTS steps(bigint)");
    const ScopedEnv url("DATABASE_URL", db().url().c_str());
    const CommandResult r = run_keal({"deploy", program_path("collatz.keal"), "--lib-dir", KEAL_E2E_LIB_DIR});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(db().sql().scalar("SELECT steps(27)"), "111");
}

TEST_F(Deploy, WithoutDbOrDatabaseUrlThePgVariablesAreUsed) {
    db().sql().exec("DROP FUNCTION IF EXISTS steps(bigint)");
    const sluice::EnvFile env = sluice::EnvFile::from_environment();
    const ScopedEnv url("DATABASE_URL", nullptr);
    const ScopedEnv host("PGHOST", env.require("SLUICE_HOST").c_str());
    const ScopedEnv port("PGPORT", env.require("SLUICE_PG_PORT").c_str());
    const ScopedEnv user("PGUSER", env.require("SLUICE_PG_USER").c_str());
    const ScopedEnv name("PGDATABASE", db().name().c_str());
    const CommandResult r = run_keal({"deploy", program_path("collatz.keal"), "--lib-dir", KEAL_E2E_LIB_DIR});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(db().sql().scalar("SELECT steps(27)"), "111");
}

}  // namespace
}  // namespace keal::e2e
