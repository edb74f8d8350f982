// The checker's rule files on their own: built-in forms and conversions,
// server-function signatures and call-site sharing, null-narrowing facts.
#include <gtest/gtest.h>

#include "check/builtin_rules.hpp"
#include "check/narrowing.hpp"
#include "check/sql_rules.hpp"
#include "check/types.hpp"
#include "syntax/parser.hpp"

namespace keal {
namespace {

using check::kBytes;
using check::kFloat;
using check::kInt;
using check::kText;

TEST(BuiltinRules, EachNameResolvesByArgumentTypes) {
  std::string expected;
  auto len_text = check::resolve_builtin("len", {kText}, expected);
  ASSERT_TRUE(len_text);
  EXPECT_EQ(len_text->op, ir::Builtin::LenText);
  EXPECT_EQ(len_text->result, kInt);
  EXPECT_EQ(check::resolve_builtin("len", {kBytes}, expected)->op, ir::Builtin::LenBytes);
  EXPECT_EQ(check::resolve_builtin("max", {kFloat, kFloat}, expected)->op, ir::Builtin::MaxFloat);
  EXPECT_FALSE(check::resolve_builtin("max", {kInt, kFloat}, expected));
  EXPECT_EQ(expected, "(int, int) or (float, float)");
  EXPECT_FALSE(check::resolve_builtin("substr", {kText, kInt}, expected));
  EXPECT_EQ(expected, "(text, start: int, count: int)");
  EXPECT_TRUE(check::is_builtin_name("print"));
  EXPECT_FALSE(check::is_builtin_name("printf"));
}

TEST(BuiltinRules, ConversionsAreExplicitAndListed) {
  EXPECT_EQ(check::resolve_conversion(ir::Base::Float, ir::Base::Int), ir::Conv::FloatToInt);
  EXPECT_EQ(check::resolve_conversion(ir::Base::Text, ir::Base::Bytes), ir::Conv::TextToBytes);
  EXPECT_FALSE(check::resolve_conversion(ir::Base::Bool, ir::Base::Int));
  EXPECT_FALSE(check::resolve_conversion(ir::Base::Bytes, ir::Base::Int));
}

TEST(SqlRules, SignaturesAndSharedSites) {
  EXPECT_EQ(check::sql_signature("translate", {kText, kText, kText}), "translate(text,text,text)");
  EXPECT_EQ(check::sql_signature("power", {kFloat, kInt}), "power(double precision,bigint)");
  ASSERT_NE(check::known_sql_function("md5"), nullptr);
  EXPECT_TRUE(check::known_sql_function("md5")->immutable);
  EXPECT_FALSE(check::known_sql_function("random")->immutable);
  EXPECT_EQ(check::known_sql_function("no_such"), nullptr);
  std::vector<ir::SqlSite> sites;
  ir::SqlSite a{"md5", {kText}, kText, "md5(text)", true};
  ir::SqlSite b{"md5", {kText}, kText, "md5(text)", true};
  ir::SqlSite c{"md5", {kText}, {ir::Base::Text, true}, "md5(text)", false};
  EXPECT_EQ(check::intern_sql_site(sites, a), 0);
  EXPECT_EQ(check::intern_sql_site(sites, b), 0);
  EXPECT_EQ(check::intern_sql_site(sites, c), 1);
  EXPECT_EQ(sites.size(), 2u);
}

// The condition of the first statement of `fn f(...) { if COND {} }`.
struct ParsedCondition {
  ast::Module module;
  const ast::Expr& condition() const { return *module.functions[0].body.stmts[0]->conds[0]; }
};

ParsedCondition parse_condition(const std::string& cond) {
  SourceFile source("t.keal", "fn f(x: int?, y: int?) {\n  if " + cond + " { }\n}\n");
  Diagnostics diags(source);
  ParsedCondition p{parse_source(source, diags)};
  EXPECT_FALSE(diags.has_errors()) << diags.render();
  return p;
}

int slot_of(const std::string& name) { return name == "x" ? 0 : name == "y" ? 1 : -1; }

TEST(Narrowing, FactsFollowNotAndOr) {
  auto facts = [](const std::string& cond) { return check::null_facts(parse_condition(cond).condition(), slot_of); };
  EXPECT_EQ(facts("x != null").when_true, std::vector<int>{0});
  EXPECT_EQ(facts("x == null").when_false, std::vector<int>{0});
  EXPECT_EQ(facts("not (x == null)").when_true, std::vector<int>{0});
  EXPECT_EQ(facts("x != null and y != null").when_true, (std::vector<int>{0, 1}));
  EXPECT_TRUE(facts("x != null or y != null").when_true.empty());
  EXPECT_EQ(facts("x == null or y == null").when_false, (std::vector<int>{0, 1}));
  EXPECT_TRUE(facts("x != 1").when_true.empty());
}

TEST(Narrowing, LevelsEndWithTheirScopeAndAssignmentsForget) {
  check::Narrowing n;
  n.push();
  n.add({0});
  n.push();
  n.add({1});
  EXPECT_TRUE(n.narrowed(0));
  EXPECT_TRUE(n.narrowed(1));
  n.pop();
  EXPECT_FALSE(n.narrowed(1));
  n.forget(0);
  EXPECT_FALSE(n.narrowed(0));
}

}  // namespace
}  // namespace keal
