#include "driver/mariadb_deploy.hpp"

#include <filesystem>
#include <sstream>

#include "driver/deploy.hpp"
#include "emit/entry_points.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"

namespace keal::driver {

bool is_mariadb_url(const std::string& url) {
  return url.rfind("mariadb://", 0) == 0 || url.rfind("mysql://", 0) == 0;
}

std::string deploy_mariadb(const ir::Module& module, const std::string& so_path, const std::string& url,
                           const std::string& plugin_dir, const std::string& stem, std::string& error) {
  try {
    sluice::mariadb::Connection conn = sluice::mariadb::Connection::connect(url);
    std::string dir = plugin_dir;
    if (dir.empty()) {
      sluice::mariadb::ResultSet rs = conn.query("SELECT @@plugin_dir");
      auto row = rs.next();
      if (!row) {
        error = "the server did not say its plugin_dir";
        return {};
      }
      dir = row->get<std::string>(0);
    }
    // install_library never changes an existing directory's mode and names
    // the file after its content (the server keeps a loaded library open).
    const std::string installed = install_library(so_path, dir, stem, error);
    if (installed.empty()) {
      error += " (the server's plugin_dir must be writable here; give another with --lib-dir)";
      return {};
    }
    const std::string soname = std::filesystem::path(installed).filename().string();
    std::istringstream script(emit::mariadb_install_sql(module, soname));
    for (std::string line; std::getline(script, line);) {
      if (line.empty() || line.rfind("--", 0) == 0) continue;
      conn.execute(line);
    }
    return soname;
  } catch (const sluice::mariadb::Error& e) {
    error = e.what();
    if (!e.sqlstate().empty()) error += " (SQLSTATE " + e.sqlstate() + ")";
    return {};
  }
}

}  // namespace keal::driver
