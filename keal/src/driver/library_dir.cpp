#include "driver/library_dir.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace keal::driver {

namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return (pw != nullptr ? std::string("'") + pw->pw_name + "' " : std::string()) + "(uid " + std::to_string(uid) + ")";
}

std::string group_name(gid_t gid) {
  const group* gr = ::getgrgid(gid);
  return (gr != nullptr ? std::string("'") + gr->gr_name + "' " : std::string()) + "(gid " + std::to_string(gid) + ")";
}

// write(2) until done or failed.
bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

LibraryDir LibraryDir::open(const std::string& dir, std::string& error) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int open_errno = errno;
    struct stat link {};
    // O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR (or ELOOP): tell the two apart.
    const bool is_link = ::lstat(dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    errno = open_errno;
    if (is_link)
      error = "--lib-dir " + dir + " is a symbolic link: pass the directory it points to (a link could be "
              "turned to another directory between the checks and the write)";
    else if (errno == ENOTDIR)
      error = "--lib-dir " + dir + " is not a directory";
    else
      error = "cannot open --lib-dir " + dir + ": " + std::strerror(errno);
    return LibraryDir(-1, dir);
  }
  LibraryDir opened(fd, dir);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = "cannot stat --lib-dir " + dir + ": " + std::strerror(errno);
    return LibraryDir(-1, dir);
  }
  const uid_t me = ::geteuid();
  const std::string why = ": another user could replace the library the database server loads, and the server "
                          "runs it with its own rights";
  if (st.st_uid != me && st.st_uid != 0) {
    error = "--lib-dir " + dir + " belongs to user " + user_name(st.st_uid) + ", not to you or root" + why +
            ". Pass --lib-dir a directory of your own";
    return LibraryDir(-1, dir);
  }
  if ((st.st_mode & S_IWOTH) != 0) {
    error = "--lib-dir " + dir + " (mode " + octal_mode(st.st_mode) + ") is writable by every user" + why +
            ". Pass --lib-dir a directory only you can write (e.g. a new one: keal deploy creates it with mode "
            "0755)";
    return LibraryDir(-1, dir);
  }
  if ((st.st_mode & S_IWGRP) != 0 && st.st_gid != ::getegid()) {
    error = "--lib-dir " + dir + " (mode " + octal_mode(st.st_mode) + ") is writable by group " +
            group_name(st.st_gid) + why + ". Pass --lib-dir a directory only you can write";
    return LibraryDir(-1, dir);
  }
  return opened;
}

LibraryDir::LibraryDir(LibraryDir&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

LibraryDir::~LibraryDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string LibraryDir::random_temp_name(const std::string& name) {
  unsigned char bytes[8] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::abort();  // the kernel's random source cannot fail once seeded
    got += static_cast<std::size_t>(n);
  }
  std::string suffix;
  for (unsigned char b : bytes) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", b);
    suffix += hex;
  }
  return "." + name + "." + suffix;
}

bool LibraryDir::install(const std::string& name, const std::string& temp_name, const std::string& content,
                         std::string& error) const {
  const std::string temp_path = path_ + "/" + temp_name;
  const std::string target_path = path_ + "/" + name;
  // 0600 until complete: nothing loads a half-written library.
  const int fd = ::openat(fd_, temp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = errno == EEXIST ? "cannot create " + temp_path +
                                  ": something (a file or a symbolic link) is already there; nothing was written "
                                  "through it"
                            : "cannot create " + temp_path + ": " + std::strerror(errno);
    return false;
  }
  auto fail = [&](const std::string& what) {
    error = what;
    ::close(fd);
    ::unlinkat(fd_, temp_name.c_str(), 0);
    return false;
  };
  if (!write_all(fd, content)) return fail("cannot write " + temp_path + ": " + std::strerror(errno));
  if (::fchmod(fd, 0644) != 0) return fail("cannot chmod " + temp_path + ": " + std::strerror(errno));
  if (::fsync(fd) != 0) return fail("cannot sync " + temp_path + ": " + std::strerror(errno));
  struct stat written {};
  if (::fstat(fd, &written) != 0) return fail("cannot stat " + temp_path + ": " + std::strerror(errno));
  if (::renameat(fd_, temp_name.c_str(), fd_, name.c_str()) != 0)
    return fail("cannot install " + target_path + ": " + std::strerror(errno));
  ::close(fd);
  ::fsync(fd_);  // the rename itself survives a crash
  // What the server will load is what was written: same file, ours, 0644.
  struct stat placed {};
  if (::fstatat(fd_, name.c_str(), &placed, AT_SYMLINK_NOFOLLOW) != 0) {
    error = "cannot stat " + target_path + " after installing it: " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(placed.st_mode) || placed.st_dev != written.st_dev || placed.st_ino != written.st_ino) {
    error = target_path + " was replaced right after it was installed: refusing to deploy it";
    return false;
  }
  if (placed.st_uid != ::geteuid() || (placed.st_mode & 07777) != 0644) {
    error = target_path + " is owned by user " + user_name(placed.st_uid) + " with mode " +
            octal_mode(placed.st_mode) + ", not yours with mode 0644: refusing to deploy it";
    return false;
  }
  return true;
}

std::string default_lib_dir() {
  if (const char* d = std::getenv("KEAL_LIB_DIR"); d != nullptr && *d != '\0') return d;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/keal-lib-" + std::to_string(::geteuid());
}

}  // namespace keal::driver
