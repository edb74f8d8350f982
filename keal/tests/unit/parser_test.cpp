#include <gtest/gtest.h>

#include "support.hpp"

namespace keal {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::Stmt;
using test::parse_text;

// A compact rendering of an expression tree: (op lhs rhs).
std::string show(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::IntLit: return std::to_string(e.int_value);
    case Expr::Kind::Name: return e.text;
    case Expr::Kind::NullLit: return "null";
    case Expr::Kind::Paren: return show(*e.args[0]);
    case Expr::Kind::Unary: return std::string("(") + (e.unary_op == ast::UnaryOp::Neg ? "-" : "not") + " " + show(*e.args[0]) + ")";
    case Expr::Kind::Binary: return std::string("(") + ast::op_text(e.binary_op) + " " + show(*e.args[0]) + " " + show(*e.args[1]) + ")";
    case Expr::Kind::Call:
    case Expr::Kind::SqlCall: {
      std::string s = (e.kind == Expr::Kind::SqlCall ? "sql." : "") + e.text + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) s += (i ? " " : "") + show(*e.args[i]);
      return s + ")";
    }
    default: return "?";
  }
}

std::string expr_of(const std::string& source_expr) {
  auto p = parse_text("fn f() {\n return " + source_expr + "\n}\n");
  EXPECT_EQ(p.diagnostics, "") << source_expr;
  if (p.module.functions.empty() || p.module.functions[0].body.stmts.empty()) return "<none>";
  const Stmt& s = *p.module.functions[0].body.stmts[0];
  return s.expr ? show(*s.expr) : "<none>";
}

TEST(Parser, Precedence) {
  EXPECT_EQ(expr_of("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(expr_of("1 - 2 - 3"), "(- (- 1 2) 3)");
  EXPECT_EQ(expr_of("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(expr_of("not a == b"), "(not (== a b))");
  EXPECT_EQ(expr_of("a < b + 1 and c != null"), "(and (< a (+ b 1)) (!= c null))");
  EXPECT_EQ(expr_of("x ?? y ?? z"), "(?? x (?? y z))");
  EXPECT_EQ(expr_of("x ?? 0 + 1"), "(?? x (+ 0 1))");
  EXPECT_EQ(expr_of("c in \"abc\" or not d"), "(or (in c ?) (not d))");
  EXPECT_EQ(expr_of("-a * -b"), "(* (- a) (- b))");
  EXPECT_EQ(expr_of("f(1, g(2)) % 3"), "(% f(1 g(2)) 3)");
  EXPECT_EQ(expr_of("sql.md5(sql.lower(s))"), "sql.md5(sql.lower(s))");
}

TEST(Parser, StatementKinds) {
  auto p = parse_text(R"(fn f(a: int, b: text?) -> int {
    let x = 1
    var y: float? = null
    y = 2.0
    y += 1.0
    if a > 0 { return 1 } else if a < 0 { return 2 } else { return 3 }
    while true { break }
    for i in 0..=a { continue }
    for c in "abc" { g(c) }
    raise "bad" code "22023"
})");
  ASSERT_EQ(p.diagnostics, "");
  ASSERT_EQ(p.module.functions.size(), 1u);
  const auto& f = p.module.functions[0];
  EXPECT_EQ(f.params.size(), 2u);
  EXPECT_TRUE(f.params[1].type.nullable);
  std::vector<Stmt::Kind> want = {Stmt::Kind::Let,      Stmt::Kind::Var,     Stmt::Kind::Assign,
                                  Stmt::Kind::Assign,   Stmt::Kind::If,      Stmt::Kind::While,
                                  Stmt::Kind::ForRange, Stmt::Kind::ForEach, Stmt::Kind::Raise};
  ASSERT_EQ(f.body.stmts.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(f.body.stmts[i]->kind, want[i]) << i;
  EXPECT_EQ(f.body.stmts[3]->assign_op, ast::AssignOp::Add);
  EXPECT_EQ(f.body.stmts[4]->conds.size(), 2u);
  EXPECT_EQ(f.body.stmts[4]->blocks.size(), 3u);
  EXPECT_TRUE(f.body.stmts[6]->inclusive);
  EXPECT_EQ(f.body.stmts[8]->raise_code.value_or(""), "22023");
}

TEST(Parser, ReturnValueMustStartOnTheSameLine) {
  auto p = parse_text("fn f() {\n  return\n  g()\n}\n");
  // `return` alone, then g() as a statement (which the checker calls unreachable).
  ASSERT_EQ(p.diagnostics, "");
  const auto& stmts = p.module.functions[0].body.stmts;
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_EQ(stmts[0]->expr, nullptr);
  EXPECT_EQ(stmts[1]->kind, Stmt::Kind::Eval);
}

TEST(Parser, RecoversAtStatementBoundaries) {
  auto p = parse_text("fn f() {\n  let = 1\n  let y = )\n  let z = 3\n}\nfn g( {\n}\nfn h() {}\n");
  EXPECT_EQ(p.errors, 3u) << p.diagnostics;
  // f keeps its good statement; h is parsed after g's broken header.
  ASSERT_EQ(p.module.functions.size(), 2u);
  EXPECT_EQ(p.module.functions[0].body.stmts.size(), 1u);
  EXPECT_EQ(p.module.functions[1].name, "h");
}

TEST(Parser, AssignmentTargetMustBeAVariable) {
  auto p = parse_text("fn f() {\n  f() = 3\n}\n");
  EXPECT_NE(p.diagnostics.find("the left side of an assignment must be a variable"), std::string::npos);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  for (const char* open : {"(", "-", "not ", "f(", "x ?? "}) {
    std::string e;
    for (int i = 0; i < 5000; ++i) e += open;
    auto p = parse_text("fn f() {\n  return " + e + "1\n}\n");
    EXPECT_NE(p.diagnostics.find("nested too deeply"), std::string::npos) << open;
  }
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  auto p = parse_text("fn f() -> int {\n  return " + chain + "\n}\n");
  EXPECT_NE(p.diagnostics.find("nested too deeply"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 10000; ++i) blocks += "if true {";
  auto b = parse_text("fn f() {\n" + blocks + "\n}\n");
  EXPECT_NE(b.diagnostics.find("nested too deeply"), std::string::npos);
}

TEST(Parser, SqlCallWithResultType) {
  auto p = parse_text("fn f(s: text) -> int? {\n  return sql.length(s) as int?\n}\n");
  ASSERT_EQ(p.diagnostics, "");
  const Expr& e = *p.module.functions[0].body.stmts[0]->expr;
  ASSERT_EQ(e.kind, Expr::Kind::SqlCall);
  ASSERT_TRUE(e.sql_result.has_value());
  EXPECT_TRUE(e.sql_result->nullable);
  EXPECT_EQ(e.sql_result->base, ast::BaseType::Int);
}

TEST(Parser, DocCommentOnFunction) {
  auto p = parse_text("/// Adds one.\n/// Really.\nexport fn inc(n: int) -> int { return n + 1 }\n");
  ASSERT_EQ(p.diagnostics, "");
  EXPECT_EQ(p.module.functions[0].doc, "Adds one.\nReally.");
  EXPECT_TRUE(p.module.functions[0].exported);
}

}  // namespace
}  // namespace keal
