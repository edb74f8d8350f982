#pragma once
// Putting a shared object where the database server (another user) loads it
// from, without letting a third user swap it in between (issue 32).
//
// The server loads whatever file sits at the path: whoever can write the
// directory (or plant a symbolic link in it) chooses the code the server
// runs, and `keal deploy` runs as a PostgreSQL superuser. So the directory
// must belong to the user or root and be writable by nobody else, and the
// file is written under a name nobody can guess (O_CREAT|O_EXCL|O_NOFOLLOW,
// random suffix), synced, renamed into place and checked once there.

#include <string>

namespace keal::driver {

// An open library directory (O_DIRECTORY|O_NOFOLLOW: the path's last
// component is not a symbolic link). Closed when destroyed.
class LibraryDir {
public:
  // Opens `dir` and checks it: a directory, not a symbolic link, owned by
  // the effective user or by root, not writable by others, and not by its
  // group unless that is the user's own group. On refusal `error` says
  // which check failed and what to do; the returned object is then closed.
  static LibraryDir open(const std::string& dir, std::string& error);

  LibraryDir(LibraryDir&& other) noexcept;
  LibraryDir& operator=(LibraryDir&&) = delete;
  LibraryDir(const LibraryDir&) = delete;
  ~LibraryDir();

  bool is_open() const { return fd_ >= 0; }

  // Writes `content` to `name` in the directory, mode 0644: first to
  // `temp_name` (created with O_CREAT|O_EXCL|O_NOFOLLOW, so neither an
  // existing file nor a planted link is ever written through), fsync'd,
  // renamed over `name`, the directory fsync'd; then checks that `name` is
  // the regular file just written, owned by the user, mode 0644. False with
  // `error` set on any failure (the temporary file is removed).
  bool install(const std::string& name, const std::string& temp_name, const std::string& content,
               std::string& error) const;

  // A temporary name for `name` that others cannot guess: ".NAME." and 16
  // random hex digits (getrandom).
  static std::string random_temp_name(const std::string& name);

private:
  LibraryDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// The default --lib-dir: $KEAL_LIB_DIR, else $TMPDIR/keal-lib-UID (or
// /tmp/keal-lib-UID), one per user: a shared /tmp/keal-lib belonged to
// whoever made it first.
std::string default_lib_dir();

}  // namespace keal::driver
