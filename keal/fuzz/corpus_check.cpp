// keal_corpus_check: the back-end half of fuzzing, run as a ctest.
//   keal_corpus_check --generated N --seed S   random well-typed programs
//   keal_corpus_check --dir DIR                every .keal file in DIR
// For each program the checker accepts (generated ones must be accepted), the
// emitted C of each flavour must compile with -Wall -Wextra -Werror; a
// generated native program is also run and must exit 0, or 1 with a Keal
// runtime error on stderr, within 10 s — never crash.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/compile.hpp"
#include "driver/toolchain.hpp"
#include "program_generator.hpp"

namespace {

namespace fs = std::filesystem;
using namespace keal;

struct Checker {
  std::string work;
  int failures = 0;
  int compiled = 0;
  int ran = 0;

  void fail(const std::string& what, const std::string& program, const std::string& detail) {
    ++failures;
    std::cerr << "FAIL: " << what << "\n--- program\n" << program << "--- detail\n" << detail << "\n";
  }

  // Returns the path of the object or executable, empty on failure.
  bool cc(const std::string& c_code, emit::Flavour flavour, const std::string& out, bool link, std::string& error) {
    std::string c_path = out + ".c";
    std::ofstream(c_path, std::ios::binary) << c_code;
    std::vector<std::string> argv = {driver::c_compiler(), "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror",
                                     "-Wno-unused-variable", "-Wno-unused-but-set-variable", "-Wno-unused-parameter",
                                     // Self-comparisons and the like are legal Keal; cc may only warn.
                                     "-Wno-tautological-compare", "-Wno-type-limits",
                                     "-I", driver::runtime_dir()};
    if (flavour == emit::Flavour::Pg) argv.insert(argv.end(), {"-fPIC", "-I", driver::pg_include_dir()});
    if (!link) argv.push_back("-c");
    argv.insert(argv.end(), {"-o", out, c_path});
    // As the driver links a native program: PostgreSQL's float8out digits.
    if (link)
      argv.insert(argv.end(), {driver::pg_lib_dir() + "/libpgcommon_shlib.a",
                               driver::pg_lib_dir() + "/libpgport_shlib.a", "-lm"});
    driver::ProcessResult r = driver::run_process(argv);
    error = r.output;
    return r.exit_code == 0;
  }

  void program(const std::string& name, const std::string& text, bool must_accept, bool run) {
    for (auto target : {check::Target::Pg, check::Target::Native}) {
      driver::Compiled c = driver::compile_source(name, text, target);
      if (!c.ok) {
        if (must_accept && ((target == check::Target::Native) == run)) fail(name + ": rejected", text, c.diagnostics);
        continue;
      }
      auto flavour = target == check::Target::Pg ? emit::Flavour::Pg : emit::Flavour::Native;
      std::string out = work + "/" + fs::path(name).stem().string() + (flavour == emit::Flavour::Pg ? ".pg" : ".native");
      std::string error;
      bool link = run && flavour == emit::Flavour::Native;
      if (!cc(emit::emit_c(c.module, flavour), flavour, out, link, error)) {
        fail(name + ": emitted C does not compile", text, error);
        continue;
      }
      ++compiled;
      if (!link) continue;
      driver::ProcessResult r = driver::run_process({"timeout", "10", out});
      ++ran;
      bool clean_error = r.exit_code == 1 && r.output.find(": error: ") != std::string::npos;
      if (r.exit_code != 0 && !clean_error) {
        fail(name + ": program ended badly (status " + std::to_string(r.exit_code) + ")", text, r.output);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  long count = 0;
  unsigned long long seed = 1;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--generated" && i + 1 < argc) count = std::strtol(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--dir" && i + 1 < argc) dirs.emplace_back(argv[++i]);
    else {
      std::cerr << "usage: keal_corpus_check [--generated N] [--seed S] [--dir DIR]...\n";
      return 2;
    }
  }
  Checker checker;
  checker.work = driver::make_temp_dir();
  if (checker.work.empty()) {
    std::cerr << "cannot create a temporary directory\n";
    return 1;
  }
  for (long i = 0; i < count; ++i) {
    std::uint64_t s = seed + static_cast<std::uint64_t>(i);
    checker.program("gen_pg_" + std::to_string(s) + ".keal", fuzz::generate_program(s, fuzz::Flavour::Pg), true, false);
    checker.program("gen_native_" + std::to_string(s) + ".keal", fuzz::generate_program(s, fuzz::Flavour::Native), true, true);
  }
  for (const std::string& dir : dirs) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".keal") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      // Through the file's own buffer, not istreambuf_iterator: GCC 12 at -O2
      // cannot see that the iterator's buffer is not null (the end iterator's
      // is) and reports a -Wnull-dereference inside libstdc++.
      std::ostringstream whole;
      whole << in.rdbuf();
      const std::string text = whole.str();
      checker.program(entry.path().filename().string(), text, false, false);
    }
  }
  driver::remove_tree(checker.work);
  std::cout << "compiled " << checker.compiled << " C programs, ran " << checker.ran << ", failures " << checker.failures << "\n";
  return checker.failures == 0 ? 0 : 1;
}
