// Fuzz target for the front end: any bytes go through lexer, parser and
// checker for every target; whatever is accepted is also lowered to C. No
// input may crash, hang or allocate without bound.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "driver/compile.hpp"
#include "emit/c_emitter.hpp"
#include "emit/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (auto target : {keal::check::Target::Any, keal::check::Target::Pg, keal::check::Target::Native}) {
    keal::driver::Compiled c = keal::driver::compile_source("fuzz.keal", text, target);
    if (!c.ok) {
      if (c.diagnostics.empty()) __builtin_trap();  // an error must always be explained
      continue;
    }
    if (target != keal::check::Target::Native) {
      std::string code = keal::emit::emit_c(c.module, keal::emit::Flavour::Pg);
      if (code.empty()) __builtin_trap();
      (void)keal::emit::install_sql(c.module, "/tmp/fuzz.so");
    }
    if (target != keal::check::Target::Pg) {
      std::string code = keal::emit::emit_c(c.module, keal::emit::Flavour::Native);
      if (code.empty()) __builtin_trap();
    }
  }
  // The SQLite and MariaDB targets: their own rules, their entry points.
  for (auto [target, flavour] : {std::pair{keal::check::Target::Sqlite, keal::emit::Flavour::Sqlite},
                                 std::pair{keal::check::Target::Mariadb, keal::emit::Flavour::Mariadb}}) {
    keal::driver::Compiled c = keal::driver::compile_source("fuzz.keal", text, target);
    if (!c.ok) {
      if (c.diagnostics.empty()) __builtin_trap();
      continue;
    }
    if (keal::emit::emit_c(c.module, flavour).empty()) __builtin_trap();
    if (flavour == keal::emit::Flavour::Mariadb) (void)keal::emit::mariadb_install_sql(c.module, "fuzz.so");
  }
  return 0;
}
