// LibraryDir (driver/library_dir.hpp): where `keal deploy` puts the shared
// object a PostgreSQL superuser loads. A name given as the temporary one
// stands in for a guessed random name: whatever sits there (a link, a file)
// is never written through, and a directory others may write is refused.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iterator>
#include <string>

#include "driver/library_dir.hpp"

namespace keal {
namespace {

namespace fs = std::filesystem;
using driver::LibraryDir;

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  // Through rdbuf(): GCC 12 -O2 warns of a null dereference inside
  // istreambuf_iterator's end (docs/release-warnings.md).
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// A fresh 0755 directory under the system's temporary directory.
class LibraryDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/keal-library-dir-test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    dir_ = root_ / "lib";
    ASSERT_EQ(::mkdir(dir_.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_, dir_;
};

TEST_F(LibraryDirTest, InstallsAPrivatelyNamedFileAndRenamesItIntoPlace) {
  std::string error;
  const LibraryDir lib = LibraryDir::open(dir_.string(), error);
  ASSERT_TRUE(lib.is_open()) << error;
  ASSERT_TRUE(lib.install("f.so", LibraryDir::random_temp_name("f.so"), "ELF bytes", error)) << error;
  EXPECT_EQ(file_text(dir_ / "f.so"), "ELF bytes");
  EXPECT_EQ(mode_of(dir_ / "f.so"), 0644U);
  // Only the library: the temporary file was renamed, not copied.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(LibraryDirTest, RandomTempNamesDiffer) {
  const std::string a = LibraryDir::random_temp_name("f.so");
  const std::string b = LibraryDir::random_temp_name("f.so");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind(".f.so.", 0), 0U) << a;
  EXPECT_EQ(a.size(), std::string(".f.so.").size() + 16) << a;
}

TEST_F(LibraryDirTest, ALinkAtTheTempNameIsNotWrittenThrough) {
  const fs::path victim = root_ / "victim";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir_ / ".f.so.guessed");
  std::string error;
  const LibraryDir lib = LibraryDir::open(dir_.string(), error);
  ASSERT_TRUE(lib.is_open()) << error;
  EXPECT_FALSE(lib.install("f.so", ".f.so.guessed", "attacker's wish", error));
  EXPECT_EQ(error, "cannot create " + (dir_ / ".f.so.guessed").string() +
                       ": something (a file or a symbolic link) is already there; nothing was written through it");
  EXPECT_EQ(file_text(victim), "precious");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "f.so")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / ".f.so.guessed")));  // not ours to remove
}

TEST_F(LibraryDirTest, AFileAtTheTempNameIsLeftAlone) {
  std::ofstream(dir_ / ".f.so.guessed") << "someone else's";
  std::string error;
  const LibraryDir lib = LibraryDir::open(dir_.string(), error);
  ASSERT_TRUE(lib.is_open()) << error;
  EXPECT_FALSE(lib.install("f.so", ".f.so.guessed", "ours", error));
  EXPECT_EQ(file_text(dir_ / ".f.so.guessed"), "someone else's");
}

TEST_F(LibraryDirTest, AWorldWritableDirectoryIsRefused) {
  ASSERT_EQ(::chmod(dir_.c_str(), 01777), 0);
  std::string error;
  const LibraryDir lib = LibraryDir::open(dir_.string(), error);
  EXPECT_FALSE(lib.is_open());
  EXPECT_EQ(error.rfind("--lib-dir " + dir_.string() + " (mode 1777) is writable by every user: another user could "
                        "replace the library the database server loads",
                        0),
            0U)
      << error;
}

TEST_F(LibraryDirTest, ADirectoryWritableByAnotherGroupIsRefused) {
  const group* other = ::getgrnam("nogroup");
  ASSERT_NE(other, nullptr);
  ASSERT_NE(other->gr_gid, ::getegid());
  ASSERT_EQ(::chown(dir_.c_str(), ::geteuid(), other->gr_gid), 0) << "needs root, or membership of nogroup";
  ASSERT_EQ(::chmod(dir_.c_str(), 0775), 0);
  std::string error;
  EXPECT_FALSE(LibraryDir::open(dir_.string(), error).is_open());
  EXPECT_NE(error.find("(mode 0775) is writable by group 'nogroup'"), std::string::npos) << error;
  // The user's own group writing it is the user's business.
  ASSERT_EQ(::chown(dir_.c_str(), ::geteuid(), ::getegid()), 0);
  EXPECT_TRUE(LibraryDir::open(dir_.string(), error).is_open()) << error;
}

TEST_F(LibraryDirTest, TheDefaultIsTheUsersOwn) {
  const char* old_lib = std::getenv("KEAL_LIB_DIR");
  const char* old_tmp = std::getenv("TMPDIR");
  const std::string saved_lib = old_lib ? old_lib : "", saved_tmp = old_tmp ? old_tmp : "";
  ::unsetenv("KEAL_LIB_DIR");
  ::setenv("TMPDIR", "/somewhere", 1);
  EXPECT_EQ(driver::default_lib_dir(), "/somewhere/keal-lib-" + std::to_string(::geteuid()));
  ::unsetenv("TMPDIR");
  EXPECT_EQ(driver::default_lib_dir(), "/tmp/keal-lib-" + std::to_string(::geteuid()));
  if (old_lib) ::setenv("KEAL_LIB_DIR", saved_lib.c_str(), 1);
  if (old_tmp) ::setenv("TMPDIR", saved_tmp.c_str(), 1);
}

}  // namespace
}  // namespace keal
