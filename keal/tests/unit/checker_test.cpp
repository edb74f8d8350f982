#include <gtest/gtest.h>

#include "support.hpp"

namespace keal {
namespace {

using test::compile;

void expect_ok(const std::string& program, check::Target target = check::Target::Any) {
  auto c = compile(program, target);
  EXPECT_TRUE(c.ok) << program << "\n" << c.diagnostics;
}

void expect_error(const std::string& program, const std::string& message, check::Target target = check::Target::Any) {
  auto c = compile(program, target);
  EXPECT_FALSE(c.ok) << program;
  EXPECT_NE(c.diagnostics.find(message), std::string::npos) << "wanted: " << message << "\ngot:\n" << c.diagnostics;
}

TEST(Checker, NarrowingForms) {
  expect_ok("fn f(x: int?) -> int {\n if x != null { return x + 1 }\n return 0\n}\n");
  expect_ok("fn f(x: int?) -> int {\n if x == null { return 0 }\n return x * 2\n}\n");
  expect_ok("fn f(x: int?) -> int {\n if x == null { return 0 } else { return x }\n}\n");
  expect_ok("fn f(x: int?) -> bool {\n return x != null and x > 3\n}\n");
  expect_ok("fn f(x: int?) -> bool {\n return x == null or x > 3\n}\n");
  expect_ok("fn f(x: int?) -> bool {\n return not (x == null) and x > 3\n}\n");
  expect_ok("fn f(x: int?, y: int?) -> int {\n if x == null or y == null { return 0 }\n return x + y\n}\n");
  expect_ok("fn f(x: int?) -> int {\n var n = 0\n while x != null and n < x { n += 1 }\n return n\n}\n");
  expect_ok("fn f() -> int {\n var v: int? = null\n v = 4\n return v\n}\n");
  expect_ok("fn f(x: text?) -> text {\n return x ?? \"\"\n}\n");
}

TEST(Checker, NarrowingIsSound) {
  expect_error("fn f(x: int?) -> bool {\n return x != null or x > 3\n}\n", "'x' may be null");
  expect_error("fn f(x: int?) -> int {\n if x != null { }\n return x\n}\n", "cannot return a value of type 'int?'");
  expect_error("fn f(x: int?, y: int?) -> int {\n var v = x\n if v != null {\n v = y\n return v\n }\n return 0\n}\n",
               "cannot return a value of type 'int?'");
  expect_error("fn f(a: int?) -> int {\n var v = a\n var n = 0\n if v != null {\n while n < 2 {\n n += v\n v = null\n }\n }\n return n\n}\n",
               "'v' may be null");
  // else-if sees the earlier condition as false.
  expect_ok("fn f(x: int?) -> int {\n if x == null { return 0 } else if x > 2 { return x }\n return 1\n}\n");
}

TEST(Checker, DefiniteReturn) {
  expect_ok("fn f(n: int) -> int {\n if n > 0 { return 1 } else { return 2 }\n}\n");
  expect_ok("fn f(n: int) -> int {\n while true { if n > 0 { return n } }\n}\n");
  expect_ok("fn f(n: int) -> int {\n raise \"no\"\n}\n");
  expect_error("fn f(n: int) -> int {\n while true { if n > 0 { break } }\n}\n", "must return a value");
  expect_error("fn f(n: int) -> int {\n for i in 0..n { return i }\n}\n", "must return a value");
}

TEST(Checker, Types) {
  expect_ok("fn f(a: float, b: int) -> float {\n return a * float(b) + 0.5\n}\n");
  expect_ok("fn f(c: char, s: text) -> bool {\n return c in s and \"x\" in s and c < 'z' and s >= \"a\"\n}\n");
  expect_ok("fn f(b: bytes) -> int {\n return len(b) + len(text(b))\n}\n");
  expect_ok("fn f() -> int {\n return -9223372036854775808\n}\n");
  expect_error("fn f() -> int {\n return 9223372036854775808\n}\n", "too large");
  expect_error("fn f() -> int {\n return -(9223372036854775808)\n}\n", "too large");
  expect_error("fn f(b: bool) -> bool {\n return b == 1\n}\n", "cannot compare 'bool' with 'int'");
  expect_error("fn f(s: text) -> text {\n return s + 'c'\n}\n", "cannot apply '+' to 'text' and 'char'");
}

TEST(Checker, ShadowingInInnerBlocksGetsDistinctCNames) {
  auto c = compile("fn f() -> int {\n let x = 1\n if true {\n let x = 2\n return x\n }\n return x\n}\n");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  const auto& locals = c.module.functions[0].locals;
  ASSERT_EQ(locals.size(), 2u);
  EXPECT_EQ(locals[0].c_name, "k_x");
  EXPECT_EQ(locals[1].c_name, "k_x_1");
  auto d = compile("fn f(x_1: int) -> int {\n let x = 1\n if true {\n let x = 2\n return x + x_1\n }\n return x\n}\n");
  ASSERT_TRUE(d.ok) << d.diagnostics;
  EXPECT_EQ(d.module.functions[0].locals[2].c_name, "k_x_2");
}

TEST(Checker, TargetRules) {
  const std::string print_program = "export fn main() {\n print(1)\n}\n";
  expect_ok(print_program);
  expect_ok(print_program, check::Target::Native);
  expect_error(print_program, "print is only available in native programs", check::Target::Pg);
  const std::string sql_program = "export fn h(s: text) -> text {\n return sql.md5(s)\n}\n";
  expect_ok(sql_program, check::Target::Pg);
  expect_error(sql_program, "only available with --target pg", check::Target::Native);
}

TEST(Checker, ManyErrorsInOneRun) {
  auto c = compile("fn f() -> int {\n let a = b\n let c = 1 + true\n x = 3\n return \"s\"\n}\n");
  EXPECT_EQ(c.error_count, 4u) << c.diagnostics;
}

TEST(Checker, ErrorLimit) {
  std::string body;
  for (int i = 0; i < 80; ++i) body += " let v" + std::to_string(i) + " = nope\n";
  auto c = compile("fn f() {\n" + body + "}\n");
  EXPECT_EQ(c.error_count, 80u);
  EXPECT_NE(c.diagnostics.find("too many errors (80); showing the first 50"), std::string::npos);
}

}  // namespace
}  // namespace keal
