// `keal deploy` as a new user meets it: the library directory's
// permissions, a server that cannot read the library, a user that may not
// create C functions, exports shadowed by pg_catalog, and where the e2e
// tests' own libraries go.
#include "keal_database.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

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

}  // namespace
}  // namespace keal::e2e
