// keal: the Keal compiler's command line.
//   keal check F [--target pg|native|sqlite|mariadb] [--db URL | --schema FILE]
//   keal describe F --db URL -o FILE      (descriptions of the embedded SQL, for --schema)
//   keal emit-c F --target pg|native|sqlite|mariadb [-o FILE]
//   keal build F --target pg -o DIR [--db URL | --schema FILE]  (DIR/<stem>.so + DIR/install.sql)
//   keal build F --target native -o EXE
//   keal build F --target sqlite -o F.so                 (a SQLite loadable extension)
//   keal build F --target mariadb -o DIR                 (DIR/<stem>.so + DIR/install.sql: MariaDB UDFs)
//   keal deploy F [--db URL] [--lib-dir DIR]             (postgresql://... or mariadb://...; default $DATABASE_URL, PG*)
//   keal run F [--db URL]
// Exit status: 0 success, 1 diagnostics or a failed build/deploy/run, 2 usage
// (docs/exit-status.md): also a directory given as the source file and an
// output path in a directory that does not exist.

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "driver/compile.hpp"
#include "driver/database_check.hpp"
#include "driver/deploy.hpp"
#include "driver/deploy_checks.hpp"
#include "driver/mariadb_deploy.hpp"
#include "emit/entry_points.hpp"
#include "driver/toolchain.hpp"
#include "sluice/common/cli_exit.hpp"
#include "sluice/common/version.hpp"

namespace {

namespace fs = std::filesystem;
using namespace keal;

constexpr int kOk = sluice::cli::exit_ok;
constexpr int kFailed = sluice::cli::exit_failure;
constexpr int kUsage = sluice::cli::exit_usage;

// Usage errors about the paths on the command line, found before any work
// (else a directory reads as an empty program, and a missing output
// directory surfaces as a C compiler failure).
bool source_path_ok(const std::string& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    std::cerr << "keal: error: '" << file << "' is a directory; give a Keal source file\n";
    return false;
  }
  return true;
}

bool output_file_path_ok(const std::string& out) {
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    std::cerr << "keal: error: output '" << out << "' is a directory; give a file path\n";
    return false;
  }
  fs::path parent = fs::path(out).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    std::cerr << "keal: error: cannot write '" << out << "': the directory '" << parent.string()
              << "' does not exist\n";
    return false;
  }
  return true;
}

bool output_dir_path_ok(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
    std::cerr << "keal: error: output directory '" << out << "' exists and is not a directory\n";
    return false;
  }
  return true;
}

check::Target parse_target(const std::string& t) {
  if (t == "pg") return check::Target::Pg;
  if (t == "native") return check::Target::Native;
  if (t == "sqlite") return check::Target::Sqlite;
  if (t == "mariadb") return check::Target::Mariadb;
  return check::Target::Any;
}

emit::Flavour flavour_of(const std::string& t) {
  if (t == "pg") return emit::Flavour::Pg;
  if (t == "sqlite") return emit::Flavour::Sqlite;
  if (t == "mariadb") return emit::Flavour::Mariadb;
  return emit::Flavour::Native;
}

// Targets whose output is a directory (a library and its install script).
bool builds_a_directory(const std::string& t) { return t == "pg" || t == "mariadb"; }

// Reads and compiles; prints diagnostics. nullopt when there were errors.
// With `db`, the embedded SQL statements are also described against that
// database (driver/database_check.hpp).
// With `schema` (a file `keal describe` wrote), against those descriptions.
// The embedded SQL checked against `db` or the descriptions file `schema`
// (when either is given); prints the diagnostics. False when there were errors.
bool sql_checks_pass(const std::string& file, const std::string& text, const ir::Module& module, const std::string& db,
                     const std::string& schema, bool against_environment = false) {
  if (db.empty() && schema.empty() && !against_environment) return true;
  driver::DatabaseCheck checked;
  if (!db.empty() || against_environment) {
    std::string error;
    std::optional<driver::DatabaseCheck> against_db = driver::check_against_database(file, text, module, db, error);
    if (!against_db) {
      std::cerr << "keal: error: " << error << "\n";
      return false;
    }
    checked = std::move(*against_db);
  } else {
    std::string error;
    std::optional<std::string> saved_text = driver::read_source(schema, error);
    std::vector<driver::Description> saved;
    if (!saved_text || !driver::read_descriptions(*saved_text, saved, error)) {
      std::cerr << "keal: error: " << (saved_text ? schema + ": " : "") << error << "\n";
      return false;
    }
    checked = driver::check_against_schema(file, text, module, saved, schema);
  }
  std::cerr << checked.rendered;
  if (checked.errors > 0) {
    std::cerr << checked.errors << (checked.errors == 1 ? " error" : " errors") << " generated.\n";
    return false;
  }
  return true;
}

// Reads and compiles; prints diagnostics. nullopt when there were errors.
// With `db`, the embedded SQL statements are also described against that
// database (driver/database_check.hpp); with `schema` (a file `keal describe`
// wrote), checked against those descriptions. `text_out` receives the source.
std::optional<driver::Compiled> front_end(const std::string& file, check::Target target, const std::string& db = "",
                                          const std::string& schema = "", std::optional<std::string>* text_out = nullptr) {
  std::string error;
  std::optional<std::string> text = driver::read_source(file, error);
  if (!text) {
    std::cerr << "keal: error: " << error << "\n";
    return std::nullopt;
  }
  driver::Compiled c = driver::compile_source(file, *text, target);
  if (!c.ok) {
    std::cerr << c.diagnostics;
    std::cerr << c.error_count << (c.error_count == 1 ? " error" : " errors") << " generated.\n";
    return std::nullopt;
  }
  if (!sql_checks_pass(file, *text, c.module, db, schema)) return std::nullopt;
  if (text_out != nullptr) *text_out = std::move(text);
  return c;
}

bool write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out) {
    std::cerr << "keal: error: cannot write '" << path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

void internal_error(const std::string& cc_output) {
  std::cerr << "keal: internal compiler error: the C compiler rejected the generated code "
               "(please report this with the source file)\n"
            << cc_output;
}

int build_pg(const driver::Compiled& c, const std::string& file, const std::string& out_dir, std::string* so_out) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "keal: error: cannot create '" << out_dir << "': " << ec.message() << "\n";
    return kFailed;
  }
  std::string so = fs::absolute(fs::path(out_dir) / (driver::stem(file) + ".so")).lexically_normal().string();
  std::string error;
  if (!driver::compile_c(emit::emit_c(c.module, emit::Flavour::Pg), emit::Flavour::Pg, so, error)) {
    internal_error(error);
    return kFailed;
  }
  if (!write_file((fs::path(out_dir) / "install.sql").string(), emit::install_sql(c.module, so))) return kFailed;
  if (so_out != nullptr) *so_out = so;
  return kOk;
}

// A native executable, or a SQLite extension (one .so, nothing to install).
int build_file(const driver::Compiled& c, emit::Flavour flavour, const std::string& out) {
  std::string error;
  if (!driver::compile_c(emit::emit_c(c.module, flavour), flavour, out, error,
                         !c.module.query_sites.empty())) {
    internal_error(error);
    return kFailed;
  }
  return kOk;
}

int build_native(const driver::Compiled& c, const std::string& exe) { return build_file(c, emit::Flavour::Native, exe); }

// DIR/<stem>.so and DIR/install.sql (CREATE FUNCTION ... SONAME '<stem>.so',
// for a server whose plugin_dir holds the library).
int build_mariadb(const driver::Compiled& c, const std::string& file, const std::string& out_dir, std::string* so_out) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "keal: error: cannot create '" << out_dir << "': " << ec.message() << "\n";
    return kFailed;
  }
  const std::string name = driver::stem(file) + ".so";
  std::string so = fs::absolute(fs::path(out_dir) / name).lexically_normal().string();
  if (int rc = build_file(c, emit::Flavour::Mariadb, so); rc != kOk) return rc;
  if (!write_file((fs::path(out_dir) / "install.sql").string(), emit::mariadb_install_sql(c.module, name))) return kFailed;
  if (so_out != nullptr) *so_out = so;
  return kOk;
}

int cmd_check(const std::string& file, const std::string& target, const std::string& db, const std::string& schema) {
  if (!source_path_ok(file)) return kUsage;
  return front_end(file, parse_target(target), db, schema) ? kOk : kFailed;
}

// Saves what the database says about each embedded SQL statement, for
// `--schema FILE` to check against without a database.
int cmd_describe(const std::string& file, const std::string& url, const std::string& out) {
  if (!source_path_ok(file) || !output_file_path_ok(out)) return kUsage;
  // No target's rules: a native client's statements are described alike.
  auto c = front_end(file, check::Target::Any);
  if (!c) return kFailed;
  std::string error;
  const std::optional<std::vector<driver::Description>> described = driver::describe_statements(c->module, url, error);
  if (!described) {
    std::cerr << "keal: error: " << error << "\n";
    return kFailed;
  }
  if (!write_file(out, driver::write_descriptions(*described))) return kFailed;
  std::cout << "described " << described->size() << (described->size() == 1 ? " statement" : " statements") << " into "
            << out << "\n";
  return kOk;
}

int cmd_emit(const std::string& file, const std::string& target, const std::string& out) {
  if (!source_path_ok(file)) return kUsage;
  if (!out.empty() && out != "-" && !output_file_path_ok(out)) return kUsage;
  auto c = front_end(file, parse_target(target));
  if (!c) return kFailed;
  std::string code = emit::emit_c(c->module, flavour_of(target));
  if (out.empty() || out == "-") {
    std::cout << code;
    return kOk;
  }
  return write_file(out, code) ? kOk : kFailed;
}

int cmd_build(const std::string& file, const std::string& target, const std::string& out, const std::string& db,
              const std::string& schema) {
  if (!source_path_ok(file)) return kUsage;
  if (builds_a_directory(target) ? !output_dir_path_ok(out) : !output_file_path_ok(out)) return kUsage;
  auto c = front_end(file, parse_target(target), db, schema);
  if (!c) return kFailed;
  if (target == "pg") return build_pg(*c, file, out, nullptr);
  if (target == "mariadb") return build_mariadb(*c, file, out, nullptr);
  return build_file(*c, flavour_of(target), out);
}

// keal deploy --db mariadb://...: the UDF library into the server's plugin_dir.
int deploy_mariadb(const std::string& file, const std::string& url, const std::string& plugin_dir) {
  auto c = front_end(file, check::Target::Mariadb);
  if (!c) return kFailed;
  std::string tmp = driver::make_temp_dir();
  if (tmp.empty()) {
    std::cerr << "keal: error: cannot create a temporary directory\n";
    return kFailed;
  }
  std::string so;
  int rc = build_mariadb(*c, file, tmp, &so);
  std::string error;
  std::string installed = rc == kOk ? driver::deploy_mariadb(c->module, so, url, plugin_dir, driver::stem(file), error) : "";
  driver::remove_tree(tmp);
  if (rc != kOk) return rc;
  if (installed.empty()) {
    std::cerr << "keal: error: installing into MariaDB failed: " << error << "\n";
    return kFailed;
  }
  for (const ir::Function& f : c->module.functions) {
    if (f.exported) std::cout << "installed " << f.name << " RETURNS " << emit::mariadb_return_kind(f.ret) << " from " << installed << "\n";
  }
  for (const ir::Aggregate& a : c->module.aggregates) {
    std::cout << "installed aggregate " << a.name << " RETURNS " << emit::mariadb_return_kind(a.ret) << " from " << installed << "\n";
  }
  return kOk;
}

int cmd_deploy(const std::string& file, const std::string& db, const std::string& lib_dir) {
  if (!source_path_ok(file)) return kUsage;
  // Without --db, the database the postgres layer and `keal run` take:
  // $DATABASE_URL, else (an empty URL) libpq's PG* variables.
  const char* database_url = std::getenv("DATABASE_URL");
  const std::string url = !db.empty() ? db : database_url != nullptr ? database_url : "";
  if (driver::is_mariadb_url(url)) return deploy_mariadb(file, url, lib_dir);
  std::optional<std::string> text;
  auto c = front_end(file, check::Target::Pg, "", "", &text);
  if (!c) return kFailed;
  // Before any build: the server's first complaint would be an unrelated
  // `permission denied for schema public`.
  if (std::string problem = driver::c_language_problem(url); !problem.empty()) {
    std::cerr << "keal: error: " << problem << "\n";
    return kFailed;
  }
  // The embedded SQL against the database it is deployed into.
  if (!sql_checks_pass(file, *text, c->module, url, "", /*against_environment=*/url.empty())) return kFailed;
  std::string tmp = driver::make_temp_dir();
  if (tmp.empty()) {
    std::cerr << "keal: error: cannot create a temporary directory\n";
    return kFailed;
  }
  std::string so;
  int rc = build_pg(*c, file, tmp, &so);
  if (rc != kOk) {
    driver::remove_tree(tmp);
    return rc;
  }
  std::string error;
  std::string installed = driver::install_library(so, lib_dir.empty() ? driver::default_lib_dir() : lib_dir,
                                                  driver::stem(file), error);
  driver::remove_tree(tmp);
  if (installed.empty()) {
    std::cerr << "keal: error: " << error << "\n";
    return kFailed;
  }
  if (!driver::run_sql(url, emit::install_sql(c->module, installed), error)) {
    std::cerr << "keal: error: installing into the database failed: " << error;
    if (!error.empty() && error.back() != '\n') std::cerr << "\n";
    if (std::string hint = driver::unreachable_hint(installed, error); !hint.empty()) {
      std::cerr << "keal: error: " << hint << "\n";
    }
    return kFailed;
  }
  std::string shadow_error;
  for (const std::string& warning : driver::shadowed_exports(c->module, url, shadow_error)) {
    std::cerr << "keal: warning: " << warning << "\n";
  }
  for (const ir::Function& f : c->module.functions) {
    if (!f.exported) continue;
    std::string types;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      types += (i ? ", " : "") + ir::sql_type(f.locals[static_cast<std::size_t>(f.params[i])].type);
    }
    std::cout << "installed " << f.name << "(" << types << ") from " << installed << "\n";
  }
  for (const ir::Aggregate& a : c->module.aggregates) {
    std::string types;
    for (std::size_t i = 0; i < a.params.size(); ++i) types += (i ? ", " : "") + ir::sql_type(a.params[i].type);
    std::cout << "installed aggregate " << a.name << "(" << types << ") from " << installed << "\n";
  }
  return kOk;
}

int cmd_run(const std::string& file, const std::string& url) {
  if (!source_path_ok(file)) return kUsage;
  auto c = front_end(file, check::Target::Native);
  if (!c) return kFailed;
  std::string tmp = driver::make_temp_dir();
  if (tmp.empty()) {
    std::cerr << "keal: error: cannot create a temporary directory\n";
    return kFailed;
  }
  std::string exe = tmp + "/" + driver::stem(file);
  int rc = build_native(*c, exe);
  if (rc != kOk) {
    driver::remove_tree(tmp);
    return rc;
  }
  if (!url.empty()) setenv("DATABASE_URL", url.c_str(), 1);
  std::cout.flush();
  pid_t pid = fork();
  if (pid == 0) {
    execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
    std::perror("keal: cannot run the program");
    _exit(127);
  }
  int status = 0;
  if (pid > 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  driver::remove_tree(tmp);
  if (pid < 0) return kFailed;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"keal: compile Keal programs to PostgreSQL functions or native executables (via C)"};
  app.set_version_flag("--version", sluice::version_line("keal"));
  app.require_subcommand(1);
  const std::vector<std::string> targets = {"pg", "native", "sqlite", "mariadb"};

  std::string file, target, out, url, lib_dir, schema;

  auto* check = app.add_subcommand("check", "Check a program and report errors; generate nothing");
  check->add_option("file", file, "Keal source file")->required();
  check->add_option("--target", target,
                    "Also apply the rules of a target (pg: no print; native: needs main, no sql.*; sqlite, mariadb: no "
                    "print, no sql.*, no embedded SQL)")
      ->check(CLI::IsMember(targets));
  check->add_option("--db", url, "Also describe every embedded SQL statement against this database");
  check->add_option("--schema", schema, "Check the embedded SQL against descriptions saved by keal describe")
      ->excludes("--db");

  auto* emit_cmd = app.add_subcommand("emit-c", "Print (or write) the generated C");
  emit_cmd->add_option("file", file, "Keal source file")->required();
  emit_cmd->add_option("--target", target, "pg, native, sqlite or mariadb")->required()->check(CLI::IsMember(targets));
  emit_cmd->add_option("-o,--output", out, "Write to this file instead of stdout");

  auto* build = app.add_subcommand("build",
                                   "Build a PostgreSQL or MariaDB library (DIR/<stem>.so + DIR/install.sql), a SQLite "
                                   "extension (F.so) or a native executable");
  build->add_option("file", file, "Keal source file")->required();
  build->add_option("--target", target, "pg, native, sqlite or mariadb")->required()->check(CLI::IsMember(targets));
  build->add_option("-o,--output", out, "pg, mariadb: output directory; native: executable path; sqlite: the .so")->required();
  build->add_option("--db", url, "Also describe every embedded SQL statement against this database");
  build->add_option("--schema", schema, "Check the embedded SQL against descriptions saved by keal describe")
      ->excludes("--db");

  auto* describe = app.add_subcommand("describe", "Save what a database says about each embedded SQL statement (for --schema)");
  describe->add_option("file", file, "Keal source file")->required();
  describe->add_option("--db", url, "The database to describe the statements on")->required();
  describe->add_option("-o,--output", out, "The descriptions file to write")->required();

  auto* deploy = app.add_subcommand("deploy", "Build for PostgreSQL or MariaDB and install the exported functions into a database");
  deploy->add_option("file", file, "Keal source file")->required();
  deploy->add_option("--db", url,
                     "libpq connection string or URL (a superuser: LANGUAGE C), or mariadb://user:password@host:port/db "
                     "(a user who may CREATE FUNCTION); default $DATABASE_URL, else libpq's PG* variables");
  deploy->add_option("--lib-dir", lib_dir,
                     "Where to put the shared object, readable by the server and writable by no other user "
                     "(PostgreSQL: default $KEAL_LIB_DIR or $TMPDIR/keal-lib-UID; MariaDB: default the server's "
                     "@@plugin_dir)");

  auto* run = app.add_subcommand("run", "Build a native executable and run it");
  run->add_option("file", file, "Keal source file")->required();
  run->add_option("--db", url, "Database URL for the program (sets DATABASE_URL)");

  if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "keal", argc, argv)) return *status;

  try {
    if (check->parsed()) return cmd_check(file, target, url, schema);
    if (emit_cmd->parsed()) return cmd_emit(file, target, out);
    if (build->parsed()) return cmd_build(file, target, out, url, schema);
    if (describe->parsed()) return cmd_describe(file, url, out);
    if (deploy->parsed()) return cmd_deploy(file, url, lib_dir);
    if (run->parsed()) return cmd_run(file, url);
  } catch (const std::exception& e) {
    // File-system and allocation failures end here; the compiler's own
    // stages report errors as diagnostics and do not throw.
    std::cerr << "keal: error: " << e.what() << "\n";
    return kFailed;
  }
  return kUsage;
}
