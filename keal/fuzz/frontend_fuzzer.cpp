// Fuzz target for the front end: any bytes go through lexer, parser and
// checker for every target; whatever is accepted is also lowered to C. No
// input may crash, hang or allocate without bound.

#include <cstddef>
#include <cstdint>
#include <string>

#include "driver/compile.hpp"
#include "emit/c_emitter.hpp"

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
  return 0;
}
