// The brief's two examples, exactly as written there, compile for PostgreSQL
// (and, with a main added, natively) through the system's cc.

#include <gtest/gtest.h>

#include <filesystem>

#include "driver/toolchain.hpp"
#include "support.hpp"

namespace keal {
namespace {

const char* const brief_examples = R"(/// Collatz steps: becomes SQL function steps(bigint) returns bigint
export fn steps(n: int) -> int {
    var x = n
    var s = 0
    while x != 1 {
        if x % 2 == 0 { x = x / 2 } else { x = 3 * x + 1 }
        s += 1
    }
    return s
}

/// Vowel count: iterating text yields chars, never small strings
export fn vowels(s: text) -> int {
    var n = 0
    for c in s {
        if c in "aeiouAEIOU" { n += 1 }
    }
    return n
}
)";

TEST(BriefExamples, CheckAndBuildASharedObject) {
  auto c = test::compile(brief_examples, check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  ASSERT_EQ(c.module.functions.size(), 2u);
  EXPECT_TRUE(c.module.functions[0].pure);
  EXPECT_EQ(c.module.functions[0].doc, "Collatz steps: becomes SQL function steps(bigint) returns bigint");
  std::string dir = driver::make_temp_dir();
  ASSERT_FALSE(dir.empty());
  std::string error;
  bool built = driver::compile_c(emit::emit_c(c.module, emit::Flavour::Pg), emit::Flavour::Pg, dir + "/steps.so", error);
  EXPECT_TRUE(built) << error;
  EXPECT_TRUE(std::filesystem::exists(dir + "/steps.so"));
  driver::remove_tree(dir);
}

TEST(BriefExamples, RunNatively) {
  std::string program = std::string(brief_examples) + "\nexport fn main() {\n    print(steps(27), vowels(\"Keal in PostgreSQL\"))\n}\n";
  auto c = test::compile(program, check::Target::Native);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  std::string dir = driver::make_temp_dir();
  ASSERT_FALSE(dir.empty());
  std::string error;
  ASSERT_TRUE(driver::compile_c(emit::emit_c(c.module, emit::Flavour::Native), emit::Flavour::Native, dir + "/a", error)) << error;
  driver::ProcessResult r = driver::run_process({dir + "/a"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "111 5\n");
  driver::remove_tree(dir);
}

}  // namespace
}  // namespace keal
