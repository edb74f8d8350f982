#include "driver/deploy.hpp"

#include "sluice/postgres/connection.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

std::string default_lib_dir() {
  if (const char* d = std::getenv("KEAL_LIB_DIR"); d != nullptr && *d != '\0') return d;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/keal-lib";
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
  fs::path dir = fs::absolute(lib_dir, ec);
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir.string() + ": " + ec.message();
    return {};
  }
  // The server runs as another user: it must be able to reach and read the file.
  for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0 && st.st_uid == ::geteuid()) {
      ::chmod(p.c_str(), st.st_mode | S_IXOTH | S_IXGRP | S_IROTH | S_IRGRP);
    }
  }
  fs::path target = dir / (stem + "-" + tag + ".so");
  fs::path temp = dir / (stem + "-" + tag + ".so.tmp");
  {
    std::ofstream out(temp, std::ios::binary);
    out << content;
    if (!out) {
      error = "cannot write " + temp.string();
      return {};
    }
  }
  ::chmod(temp.c_str(), 0644);
  fs::rename(temp, target, ec);
  if (ec) {
    error = "cannot install " + target.string() + ": " + ec.message();
    return {};
  }
  return target.string();
}

}  // namespace keal::driver
