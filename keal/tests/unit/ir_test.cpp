#include <gtest/gtest.h>

#include "emit/c_emitter.hpp"
#include "support.hpp"

namespace keal {
namespace {

TEST(Ir, DumpShowsResolvedTypedOperations) {
  auto c = test::compile(R"(fn f(x: int?, s: text) -> int {
    var n = x ?? 0
    n += 2
    for ch in s {
        if ch in "ab" { n -= 1 }
    }
    for i in 1..=3 { n *= i }
    return n
})");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_EQ(ir::dump(c.module),
            "fn f(k_x: int?, k_s: text) -> int pure\n"
            "  declare k_n: int = (coalesce:int k_x 0)\n"
            "  assign k_n = (add:int k_n 2)\n"
            "  for k_ch in chars k_s\n"
            "    if (char_in_ascii_set:bool k_ch \"ab\")\n"
            "      assign k_n = (sub:int k_n 1)\n"
            "  for k_i in 1 ..= 3\n"
            "    assign k_n = (mul:int k_n k_i)\n"
            "  return k_n\n");
}

TEST(Ir, NarrowedReadsAreExplicitUnwraps) {
  auto c = test::compile("fn f(x: int?) -> int? {\n if x != null { return x + 1 }\n return null\n}\n");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_EQ(ir::dump(c.module),
            "fn f(k_x: int?) -> int? pure\n"
            "  if (is_not_null:bool k_x)\n"
            "    return (wrap (add:int (unwrap k_x) 1))\n"
            "  return null:int?\n");
}

TEST(Ir, PurityFollowsTheCallGraph) {
  auto c = test::compile(R"(fn leaf() -> float {
    return sql.random()
}
fn middle() -> float {
    return leaf() * 2.0
}
export fn top() -> float {
    return middle()
}
export fn hashed(s: text) -> text {
    return sql.md5(s)
}
export fn plain(n: int) -> int {
    return n
})", check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  for (const auto& f : c.module.functions) {
    bool want_pure = f.name == "hashed" || f.name == "plain";
    EXPECT_EQ(f.pure, want_pure) << f.name;
  }
}

TEST(Ir, SqlCallSitesShareASlotPerSignature) {
  auto c = test::compile(R"(export fn f(a: text, b: text, n: int) -> text {
    return sql.md5(a) + sql.md5(b) + sql.lower(a) + text(sql.abs(n))
})", check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  ASSERT_EQ(c.module.sql_sites.size(), 3u);
  EXPECT_EQ(c.module.sql_sites[0].signature, "md5(text)");
  EXPECT_EQ(c.module.sql_sites[1].signature, "lower(text)");
  EXPECT_EQ(c.module.sql_sites[2].signature, "abs(bigint)");
}

TEST(Ir, SqlTypes) {
  EXPECT_EQ(ir::sql_type({ir::Base::Int, false}), "bigint");
  EXPECT_EQ(ir::sql_type({ir::Base::Float, true}), "double precision");
  EXPECT_EQ(ir::sql_type({ir::Base::Bool, false}), "boolean");
  EXPECT_EQ(ir::sql_type({ir::Base::Text, false}), "text");
  EXPECT_EQ(ir::sql_type({ir::Base::Char, false}), "text");
  EXPECT_EQ(ir::sql_type({ir::Base::Bytes, false}), "bytea");
}

}  // namespace
}  // namespace keal

namespace keal {
namespace {

TEST(Ir, RecursionIsFoundThroughCycles) {
  auto c = test::compile(R"(fn a(n: int) -> int {
    if n <= 0 { return 0 }
    return b(n - 1)
}
fn b(n: int) -> int {
    return a(n)
}
fn self(n: int) -> int {
    if n <= 0 { return 0 }
    return self(n - 1)
}
fn leaf(n: int) -> int {
    return a(n) + self(n)
})");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  for (const auto& f : c.module.functions) EXPECT_EQ(f.recursive, f.name != "leaf") << f.name;
  EXPECT_NE(emit::emit_c(c.module, emit::Flavour::Pg).find("KEAL_FN int64_t kf_self(int64_t k_n) {\n  KEAL_RECURSION_CHECK(8);"),
            std::string::npos);
}

}  // namespace
}  // namespace keal
