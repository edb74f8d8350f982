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

// Records (a query's row type): structural types with named scalar fields.
TEST(IrRecord, EqualityIsStructural) {
  using ir::Base;
  const ir::Type a = ir::record_type({{"id", {Base::Int, false}}, {"score", {Base::Float, true}}});
  const ir::Type same = ir::record_type({{"id", {Base::Int, false}}, {"score", {Base::Float, true}}});
  const ir::Type other_name = ir::record_type({{"id", {Base::Int, false}}, {"points", {Base::Float, true}}});
  const ir::Type other_null = ir::record_type({{"id", {Base::Int, false}}, {"score", {Base::Float, false}}});
  const ir::Type other_order = ir::record_type({{"score", {Base::Float, true}}, {"id", {Base::Int, false}}});
  EXPECT_EQ(a, same);
  EXPECT_NE(a, other_name);
  EXPECT_NE(a, other_null);
  EXPECT_NE(a, other_order);
  EXPECT_NE(a, (ir::Type{Base::Int, false}));
  EXPECT_EQ(a.record->field_index("score"), 1);
  EXPECT_EQ(a.record->field_index("nope"), -1);
}

TEST(IrRecord, PrintsItsFields) {
  using ir::Base;
  const ir::Type a = ir::record_type({{"id", {Base::Int, false}}, {"name", {Base::Text, true}}});
  EXPECT_EQ(ir::to_string(a), "(id: int, name: text?)");
  EXPECT_EQ(ir::sql_type(a), "record");
}

// A module built by hand: a record local and a field read, dumped and
// emitted (records become C structs named by their field types).
TEST(IrRecord, FieldReadsDumpAndEmit) {
  using ir::Base;
  ir::Module m;
  m.source_name = "t.keal";
  ir::Function f;
  f.name = "pick";
  f.ret = {Base::Float, true};
  const ir::Type row = ir::record_type({{"id", {Base::Int, false}}, {"score", {Base::Float, true}}});
  f.locals.push_back(ir::Local{"r", row, true, false, "k_r"});
  f.params.push_back(0);
  auto read = std::make_unique<ir::Expr>();
  read->kind = ir::Expr::Kind::Local;
  read->local = 0;
  read->type = row;
  auto field = std::make_unique<ir::Expr>();
  field->kind = ir::Expr::Kind::Field;
  field->field = 1;
  field->type = {Base::Float, true};
  field->args.push_back(std::move(read));
  auto ret = std::make_unique<ir::Stmt>();
  ret->kind = ir::Stmt::Kind::Return;
  ret->a = std::move(field);
  f.body.push_back(std::move(ret));
  m.functions.push_back(std::move(f));
  EXPECT_EQ(ir::dump(m),
            "fn pick(k_r: (id: int, score: float?)) -> float? pure\n"
            "  return (field score:float? k_r)\n");
  const std::string c = emit::emit_c(m, emit::Flavour::Native);
  EXPECT_NE(c.find("typedef struct { int64_t f0; keal_opt_float f1; } keal_rec_i_fq;"), std::string::npos) << c;
  EXPECT_NE(c.find("kf_pick(keal_rec_i_fq k_r)"), std::string::npos) << c;
  EXPECT_NE(c.find("k_r.f1"), std::string::npos) << c;
}

}  // namespace
}  // namespace keal
