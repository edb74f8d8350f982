#include "driver/deploy.hpp"

#include "driver/library_dir.hpp"

#include "sluice/postgres/connection.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>
#include <sstream>

namespace keal::driver {

namespace fs = std::filesystem;

bool run_sql(const std::string& url, const std::string& sql, std::string& error) {
  try {
    sluice::postgres::Connection conn = sluice::postgres::Connection::from_environment(url);
    conn.run_script(sql);
    return true;
  } catch (const sluice::postgres::Error& e) {
    error = e.what();
    return false;
  }
}

std::optional<std::vector<std::vector<std::string>>> query_rows(const std::string& url, const std::string& sql,
                                                                 std::string& error) {
  try {
    sluice::postgres::Connection conn = sluice::postgres::Connection::from_environment(url);
    const sluice::postgres::Result result = conn.query(sql);
    std::vector<std::vector<std::string>> rows;
    for (const sluice::postgres::Row row : result) {
      std::vector<std::string>& values = rows.emplace_back();
      for (int c = 0; c < row.size(); ++c) values.push_back(row.get<std::optional<std::string>>(c).value_or(""));
    }
    return rows;
  } catch (const sluice::postgres::Error& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::string install_library(const std::string& so_path, const std::string& lib_dir, const std::string& stem,
                            std::string& error) {
  std::ifstream in(so_path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    error = "cannot read " + so_path;
    return {};
  }
  std::string content = bytes.str();
  // FNV-1a: a content tag for the file name, not a security measure.
  std::uint64_t hash = 1469598103934665603ull;
  for (char c : content) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  char tag[17];
  std::snprintf(tag, sizeof tag, "%016llx", static_cast<unsigned long long>(hash));
  std::error_code ec;
  fs::path dir = fs::absolute(lib_dir, ec).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "lib/" names "lib"
  // The server runs as another user and must reach the file. Directories
  // that exist are the user's: their modes are never changed, even to let
  // the server in (that could open a private directory). The directories
  // created here are new, and get the mode the server needs: 0755. When an
  // existing directory blocks the server, the install fails and
  // unreachable_hint() names it.
  std::vector<fs::path> missing;
  for (fs::path p = dir; !fs::exists(p, ec) && p != p.parent_path(); p = p.parent_path()) missing.push_back(p);
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;  // made meanwhile by someone else: not ours to chmod
      error = "cannot create " + it->string() + ": " + std::strerror(errno);
      return {};
    }
    ::chmod(it->c_str(), 0755);  // ours, just made: the umask must not narrow it
  }
  // The directory is checked (owner, mode) and kept open: the file goes in
  // through that descriptor, under a random temporary name.
  const LibraryDir library_dir = LibraryDir::open(dir.string(), error);
  if (!library_dir.is_open()) return {};
  const std::string name = stem + "-" + tag + ".so";
  if (!library_dir.install(name, LibraryDir::random_temp_name(name), content, error)) return {};
  const fs::path target = dir / name;
  return target.string();
}

}  // namespace keal::driver
