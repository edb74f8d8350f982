#include "driver/toolchain.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace keal::driver {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

}  // namespace

// KEAL_RESOURCE_RELATIVE from the running program's folder (keal/CMakeLists.txt):
// where the installed keal's prefix, moved or not, has them, and where the
// build tree lays them out beside its programs.
std::string resource_dir() {
  std::error_code ec;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return KEAL_RESOURCE_RELATIVE;  // no /proc: relative to the working directory, the best guess left
  return (program.parent_path() / KEAL_RESOURCE_RELATIVE).lexically_normal().string();
}

std::string runtime_dir() { return env_or("KEAL_RUNTIME_DIR", resource_dir() + "/runtime"); }
std::string pg_include_dir() { return env_or("KEAL_PG_INCLUDEDIR", KEAL_PG_INCLUDEDIR_DEFAULT); }
std::string pg_lib_dir() { return env_or("KEAL_PG_LIBDIR", KEAL_PG_LIBDIR_DEFAULT); }
std::string mariadb_include_dir() { return env_or("KEAL_MARIADB_INCLUDEDIR", KEAL_MARIADB_INCLUDEDIR_DEFAULT); }
std::string c_compiler() { return env_or("KEAL_CC", env_or("CC", "cc")); }
std::string json_archive() { return env_or("KEAL_JSON_LIB", resource_dir() + "/libkeal_json.a"); }
std::vector<std::string> native_sql_archives() {
  const std::string dir = resource_dir();
  return {env_or("KEAL_NATIVE_SQL_LIB", dir + "/libkeal_native_sql.a"),
          env_or("KEAL_PG_LAYER_LIB", dir + "/libsluice_postgres_standalone.a")};
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    result.output = "cannot run '" + argv[0] + "': " + std::strerror(rc);
    return result;
  }
  char buf[4096];
  while (true) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string make_temp_dir() {
  std::string base = env_or("TMPDIR", "/tmp") + "/keal-XXXXXX";
  std::vector<char> path(base.begin(), base.end());
  path.push_back('\0');
  if (mkdtemp(path.data()) == nullptr) return {};
  return std::string(path.data());
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  if (!path.empty()) std::filesystem::remove_all(path, ec);
}

bool compile_c(const std::string& c_code, emit::Flavour flavour, const std::string& output, std::string& error,
               bool embedded_sql) {
  std::string dir = make_temp_dir();
  if (dir.empty()) {
    error = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return false;
  }
  std::string c_path = dir + "/program.c";
  {
    std::ofstream out(c_path, std::ios::binary);
    out << c_code;
    if (!out) {
      error = "cannot write " + c_path;
      remove_tree(dir);
      return false;
    }
  }
  std::vector<std::string> argv = {c_compiler(), "-std=gnu11", "-O2", "-w", "-I", runtime_dir()};
  if (flavour == emit::Flavour::Pg) {
    argv.insert(argv.end(), {"-fPIC", "-shared", "-I", pg_include_dir(), "-o", output, c_path});
  } else if (flavour == emit::Flavour::Sqlite || flavour == emit::Flavour::Mariadb) {
    // A library loaded into another program: only the entry points are
    // visible (-fvisibility=hidden), and the float-text routine from
    // libpgcommon stays private to it (--exclude-libs).
    argv.insert(argv.end(), {"-fPIC", "-shared", "-fvisibility=hidden", "-pthread"});
    if (flavour == emit::Flavour::Mariadb) argv.insert(argv.end(), {"-I", mariadb_include_dir()});
    // Array parameters read JSON with simdjson (keal_json_array.h): the
    // archive's code, and simdjson and libstdc++, only when the program uses it.
    argv.insert(argv.end(), {"-o", output, c_path, json_archive(), pg_lib_dir() + "/libpgcommon_shlib.a",
                             pg_lib_dir() + "/libpgport_shlib.a", "-lm", "-Wl,--as-needed", "-lsimdjson", "-lstdc++",
                             "-Wl,--no-as-needed", "-Wl,--exclude-libs,ALL"});
  } else {
    // libpgcommon's Ryu routine gives text(x) for a float exactly as
    // float8out; libpgport holds what it uses. The _shlib archives are PIC,
    // so the default PIE link takes them.
    argv.insert(argv.end(), {"-o", output, c_path});
    if (embedded_sql) {
      // The C ABI of keal_native_sql.h is C++ over sluice::postgres.
      for (const std::string& archive : native_sql_archives()) argv.push_back(archive);
      argv.insert(argv.end(), {"-lpq", "-lstdc++"});
    }
    argv.insert(argv.end(), {pg_lib_dir() + "/libpgcommon_shlib.a", pg_lib_dir() + "/libpgport_shlib.a", "-lm"});
  }
  ProcessResult r = run_process(argv);
  remove_tree(dir);
  if (r.exit_code != 0) {
    error = r.output.empty() ? "the C compiler failed" : r.output;
    return false;
  }
  return true;
}

}  // namespace keal::driver
