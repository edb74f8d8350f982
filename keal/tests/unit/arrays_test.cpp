// Arrays [T] through the front end: tokens, syntax, the checker's types and
// IR, the purity inference, and the C each target's entry points get.
#include <gtest/gtest.h>

#include "check/array_rules.hpp"
#include "check/types.hpp"
#include "emit/c_emitter.hpp"
#include "emit/entry_points.hpp"
#include "support.hpp"

namespace keal {
namespace {

TEST(ArraysFrontEnd, BracketsAreTokens) {
  auto l = test::lex_text("xs[0] [1, 2]");
  ASSERT_EQ(l.diagnostics, "");
  EXPECT_EQ(test::kinds(l.tokens), (std::vector<Tok>{Tok::Ident, Tok::LBracket, Tok::Int, Tok::RBracket, Tok::LBracket, Tok::Int,
                                                     Tok::Comma, Tok::Int, Tok::RBracket, Tok::Eof}));
}

TEST(ArraysFrontEnd, TypesLiteralsAndIndexesParse) {
  auto p = test::parse_text("fn f(xs: [int?]) -> [text] {\n let a = [1, 2,\n 3,]\n return [\"x\"]\n}\n");
  ASSERT_EQ(p.errors, 0u) << p.diagnostics;
  const ast::Function& f = p.module.functions[0];
  EXPECT_TRUE(f.params[0].type.array);
  EXPECT_TRUE(f.params[0].type.nullable);  // the elements' nullability
  EXPECT_EQ(f.params[0].type.base, ast::BaseType::Int);
  EXPECT_TRUE(f.ret->array);
  const ast::Expr& literal = *f.body.stmts[0]->expr;
  EXPECT_EQ(literal.kind, ast::Expr::Kind::ArrayLit);
  EXPECT_EQ(literal.args.size(), 3u);  // a trailing comma, and lines inside the brackets
}

TEST(ArraysFrontEnd, AnIndexOnTheNextLineIsANewStatement) {
  // As for a call's '(': `xs` then a statement `[0]`, which is an unused value.
  auto c = test::compile("fn f(xs: [int]) -> int {\n let y = xs\n [0]\n return 0\n}\n");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.diagnostics.find("this expression's value is unused"), std::string::npos) << c.diagnostics;
}

TEST(ArraysFrontEnd, DeeplyNestedBracketsAreRefusedWithoutDeepRecursion) {
  std::string deep = "fn f(xs: " + std::string(20000, '[') + "int" + std::string(20000, ']') + ") {}\n";
  auto p = test::parse_text(deep);
  EXPECT_GT(p.errors, 0u);
  std::string literal = "fn f() -> int {\n return len(" + std::string(20000, '[') + "1" + std::string(20000, ']') + ")\n}\n";
  auto q = test::parse_text(literal);
  EXPECT_NE(q.diagnostics.find("nested too deeply"), std::string::npos);
}

TEST(ArraysFrontEnd, LiteralElementTypes) {
  using check::kFloat;
  using check::kInt;
  using check::kNull;
  check::LiteralElements ints = check::literal_elements({kInt, kInt});
  EXPECT_EQ(ints.error, "");
  EXPECT_EQ(ints.elem, kInt);
  check::LiteralElements with_null = check::literal_elements({kNull, kInt});
  EXPECT_EQ(with_null.elem, (ir::Type{ir::Base::Int, true}));
  check::LiteralElements with_nullable = check::literal_elements({kInt, ir::Type{ir::Base::Int, true}});
  EXPECT_EQ(with_nullable.elem, (ir::Type{ir::Base::Int, true}));
  check::LiteralElements mixed = check::literal_elements({kInt, kFloat});
  EXPECT_EQ(mixed.at, 1u);
  EXPECT_NE(mixed.error.find("element 2 is 'float', element 1 is 'int'"), std::string::npos);
  EXPECT_EQ(check::literal_elements({}).elem, kNull);  // `[]`: typed by where it goes
  EXPECT_NE(check::literal_elements({kNull}).error, "");
}

TEST(ArraysFrontEnd, EmptyLiteralTakesItsTypeFromWhereItGoes) {
  EXPECT_TRUE(check::assignable(ir::array_type(check::kNull), ir::array_type(check::kText)));
  EXPECT_FALSE(check::assignable(ir::array_type(check::kInt), ir::array_type(ir::Type{ir::Base::Int, true})));
  auto c = test::compile("fn f() -> [text] {\n var xs: [text] = []\n xs = append(xs, \"a\")\n return []\n}\n");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_EQ(ir::dump(c.module),
            "fn f() -> [text] pure\n"
            "  declare k_xs: [text] = (array:[text])\n"
            "  assign k_xs = (append:[text] k_xs \"a\")\n"
            "  return (array:[text])\n");
}

TEST(ArraysFrontEnd, IrOfLoopsIndexesAndNullableElements) {
  auto c = test::compile(
      "fn f(xs: [int?], i: int) -> int {\n var s = 0\n for x in xs { s += x ?? 0 }\n"
      " let ys = [1, null]\n return s + (xs[i] ?? len(ys))\n}\n");
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_EQ(ir::dump(c.module),
            "fn f(k_xs: [int?], k_i: int) -> int pure\n"
            "  declare k_s: int = 0\n"
            "  for k_x in elements k_xs\n"
            "    assign k_s = (add:int k_s (coalesce:int k_x 0))\n"
            "  declare k_ys: [int?] = (array:[int?] (wrap 1) null:int?)\n"
            "  return (add:int k_s (coalesce:int (index:int? k_xs k_i) (len_array:int k_ys)))\n");
}

TEST(ArraysFrontEnd, ArrayFunctionsStayPure) {
  // IMMUTABLE PARALLEL SAFE on PostgreSQL: arrays add no volatility.
  auto c = test::compile("export fn f(xs: [float]) -> [float] {\n var out: [float] = []\n"
                         " for x in xs { out = append(out, sqrt(x)) }\n return out\n}\n",
                         check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_TRUE(c.module.functions[0].pure);
  const std::string sql = emit::install_sql(c.module, "/lib/f.so");
  EXPECT_NE(sql.find("\"f\"(\"xs\" double precision[]) RETURNS double precision[]"), std::string::npos) << sql;
  EXPECT_NE(sql.find("STRICT IMMUTABLE PARALLEL SAFE"), std::string::npos) << sql;
}

TEST(ArraysFrontEnd, EntryPointsOfEachTarget) {
  const std::string src = "export fn f(xs: [text?]) -> [int] {\n return [len(xs)]\n}\n";
  auto pg = test::compile(src, check::Target::Pg);
  ASSERT_TRUE(pg.ok) << pg.diagnostics;
  const std::string pg_c = emit::emit_c(pg.module, emit::Flavour::Pg);
  EXPECT_NE(pg_c.find("keal_pg_array_in(PG_GETARG_ARRAYTYPE_P(0), KEAL_ELEM_TEXT, true, 1, \"xs\")"), std::string::npos);
  EXPECT_NE(pg_c.find("PG_RETURN_ARRAYTYPE_P(keal_pg_array_out(r, KEAL_ELEM_INT, false))"), std::string::npos);
  for (check::Target target : {check::Target::Sqlite, check::Target::Mariadb}) {
    auto c = test::compile(src, target);
    ASSERT_TRUE(c.ok) << c.diagnostics;
    const std::string code = emit::emit_c(c.module, target == check::Target::Sqlite ? emit::Flavour::Sqlite : emit::Flavour::Mariadb);
    // Parsed inside the call (after the setjmp), where errors can jump back.
    const std::size_t jump = code.find("KEAL_SETJMP(&call) == 0) {\n    a0 = keal_json_array_in(j0, KEAL_ELEM_TEXT, true, 1, \"xs\");");
    EXPECT_NE(jump, std::string::npos) << code;
    EXPECT_NE(code.find("keal_json_array_out(r, KEAL_ELEM_INT, false)"), std::string::npos);
  }
  auto mariadb = test::compile(src, check::Target::Mariadb);
  const std::string sql = emit::mariadb_install_sql(mariadb.module, "f.so");
  EXPECT_NE(sql.find("CREATE FUNCTION f RETURNS STRING"), std::string::npos) << sql;
}

TEST(ArraysFrontEnd, LiteralElementsAreEvaluatedLeftToRight) {
  // One statement per element, not a C initializer list (whose order C leaves open).
  auto c = test::compile("fn g(n: int) -> int { return n }\nexport fn f() -> [int] {\n return [g(1), g(2)]\n}\n",
                         check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  const std::string code = emit::emit_c(c.module, emit::Flavour::Pg);
  const std::size_t first = code.find("_d[0] = kf_g(1); ");
  ASSERT_NE(first, std::string::npos) << code;
  EXPECT_NE(code.find("_d[1] = kf_g(2); ", first), std::string::npos);
}

}  // namespace
}  // namespace keal
