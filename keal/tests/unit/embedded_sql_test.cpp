// Embedded SQL through each stage: the parser's forms, the SQL text scanner,
// the checker's IR (query sites, volatility), and the emitted C.
#include <gtest/gtest.h>

#include "check/embedded_sql.hpp"
#include "emit/c_emitter.hpp"
#include "support.hpp"

namespace keal {
namespace {

using ast::Expr;
using ast::Stmt;

TEST(EmbeddedSqlParser, TheBriefsThreeForms) {
  auto p = test::parse_text(R"K(fn f(min_id: int) {
    for r in query "select id, score from users where id >= $1" (min_id) as (id: int, score: float?) { }
    let n = query one "select count(*) from users" () as int
    exec "insert into log(msg) values ($1)" ("counted")
    exec "lock table t"
})K");
  ASSERT_EQ(p.diagnostics, "");
  const auto& body = p.module.functions[0].body.stmts;
  ASSERT_EQ(body.size(), 4u);
  const Expr& rows = *body[0]->expr;
  EXPECT_EQ(body[0]->kind, Stmt::Kind::ForEach);
  EXPECT_EQ(rows.kind, Expr::Kind::Query);
  EXPECT_FALSE(rows.query_one);
  EXPECT_EQ(rows.text, "select id, score from users where id >= $1");
  ASSERT_EQ(rows.args.size(), 1u);
  ASSERT_EQ(rows.row.size(), 2u);
  EXPECT_EQ(rows.row[1].name, "score");
  EXPECT_TRUE(rows.row[1].type.nullable);
  const Expr& one = *body[1]->expr;
  EXPECT_TRUE(one.query_one);
  EXPECT_TRUE(one.row.empty());
  ASSERT_TRUE(one.sql_result);
  EXPECT_EQ(one.sql_result->base, ast::BaseType::Int);
  EXPECT_EQ(body[2]->expr->kind, Expr::Kind::Exec);
  EXPECT_EQ(body[2]->expr->args.size(), 1u);
  EXPECT_EQ(body[3]->expr->kind, Expr::Kind::Exec);
  EXPECT_TRUE(body[3]->expr->args.empty());
}

TEST(EmbeddedSqlParser, FieldReadsChainAfterAnyPrimary) {
  auto p = test::parse_text("fn f() {\n return r.score ?? 0.0\n}\n");
  ASSERT_EQ(p.diagnostics, "");
  const Expr& e = *p.module.functions[0].body.stmts[0]->expr;
  ASSERT_EQ(e.kind, Expr::Kind::Binary);
  EXPECT_EQ(e.args[0]->kind, Expr::Kind::Field);
  EXPECT_EQ(e.args[0]->text, "score");
  EXPECT_EQ(e.args[0]->args[0]->text, "r");
}

TEST(EmbeddedSqlParser, QueryAndExecStayOrdinaryNamesElsewhere) {
  auto p = test::parse_text("fn f(query: int, exec: int) -> int {\n return query + exec\n}\n");
  EXPECT_EQ(p.diagnostics, "");
}

TEST(EmbeddedSqlParser, ARowTypeNeedsAsAndColumns) {
  EXPECT_NE(test::parse_text("fn f() {\n let n = query one \"select 1\" ()\n}\n").diagnostics.find("expected 'as'"),
            std::string::npos);
  EXPECT_NE(test::parse_text("fn f() {\n let n = query one \"select 1\" () as ()\n}\n")
                .diagnostics.find("at least one column"),
            std::string::npos);
}

TEST(SqlTextScanner, PlaceholdersOutsideStringsAndComments) {
  EXPECT_EQ(check::scan_sql_text("select $1 + $2").highest_placeholder, 2);
  EXPECT_EQ(check::scan_sql_text("select $10, $3").highest_placeholder, 10);
  EXPECT_EQ(check::scan_sql_text("select '$5', \"$6\", $1 -- $7\n").highest_placeholder, 1);
  EXPECT_EQ(check::scan_sql_text("select /* $4 /* $5 */ */ $2").highest_placeholder, 2);
  EXPECT_EQ(check::scan_sql_text("select $$ $3 $$, $tag$ it's $9 $tag$, $1").highest_placeholder, 1);
  EXPECT_EQ(check::scan_sql_text("select E'\\' $8', $1").highest_placeholder, 1);
  EXPECT_EQ(check::scan_sql_text("select a$1 from t").highest_placeholder, 0);  // part of an identifier
  EXPECT_EQ(check::scan_sql_text("select 'it''s $2'").highest_placeholder, 0);
}

TEST(SqlTextScanner, MalformedTextIsReported) {
  EXPECT_NE(check::scan_sql_text("select $0").error.find("$0"), std::string::npos);
  EXPECT_NE(check::scan_sql_text("select 'abc").error.find("unterminated string"), std::string::npos);
  EXPECT_NE(check::scan_sql_text("select \"abc").error.find("quoted identifier"), std::string::npos);
  EXPECT_NE(check::scan_sql_text("select /* x").error.find("comment"), std::string::npos);
  EXPECT_NE(check::scan_sql_text("select $q$ x").error.find("$q$"), std::string::npos);
  EXPECT_NE(check::scan_sql_text("select $99999999").error.find("out of range"), std::string::npos);
}

TEST(SqlTextScanner, OnlyPlainReadsCountAsReads) {
  EXPECT_FALSE(check::scan_sql_text("select id from users").may_write);
  EXPECT_FALSE(check::scan_sql_text("  WITH t AS (select 1) SELECT * FROM t").may_write);
  EXPECT_FALSE(check::scan_sql_text("select 'insert' from t").may_write);  // a string, not a keyword
  EXPECT_TRUE(check::scan_sql_text("insert into t values (1) returning id").may_write);
  EXPECT_TRUE(check::scan_sql_text("with d as (delete from t returning *) select count(*) from d").may_write);
  EXPECT_TRUE(check::scan_sql_text("select * from t for update").may_write);
  EXPECT_TRUE(check::scan_sql_text("select nextval('s')").may_write);
  EXPECT_TRUE(check::scan_sql_text("select 1 into temp t").may_write);
  EXPECT_TRUE(check::scan_sql_text("vacuum").may_write);
}

TEST(EmbeddedSqlIr, SitesParametersRowsAndVolatility) {
  auto c = test::compile(R"K(export fn total(min_id: int, tag: text?) -> float {
    var t = 0.0
    for r in query "select id, score from users where id >= $1" (min_id) as (id: int, score: float?) {
        t += r.score ?? 0.0
    }
    return t + float(count())
}
fn count() -> int {
    return query one "select count(*) from users" () as int
}
export fn note(tag: text?) {
    exec "insert into log(msg) values ($1)" (tag)
}
export fn via_helper() -> int {
    return count()
}
)K",
                         check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  EXPECT_EQ(ir::dump(c.module),
            "export fn total(k_min_id: int, k_tag: text?) -> float stable\n"
            "  declare k_t: float = 0\n"
            "  for k_r in rows (query#0:(id: int, score: float?) k_min_id)\n"
            "    assign k_t = (add:float k_t (coalesce:float (field score:float? k_r) 0))\n"
            "  return (add:float k_t (int_to_float (call count:int)))\n"
            "fn count() -> int stable\n"
            "  return (query#1:int)\n"
            "export fn note(k_tag: text?) -> nothing\n"
            "  eval (exec#2 k_tag)\n"
            "export fn via_helper() -> int stable\n"
            "  return (call count:int)\n"
            "query#0 rows line 3 \"select id, score from users where id >= $1\" (int) as (id: int, score: float?)\n"
            "query#1 one line 9 \"select count(*) from users\" () as int\n"
            "query#2 exec line 12 \"insert into log(msg) values ($1)\" (text?) writes\n");
  const std::string install = emit::install_sql(c.module, "/x.so");
  EXPECT_NE(install.find("\"total\"(\"min_id\" bigint, \"tag\" text) RETURNS double precision\n    AS '/x.so', "
                         "'keal_export_total'\n    LANGUAGE C STABLE;"),
            std::string::npos)
      << install;
  EXPECT_NE(install.find("LANGUAGE C VOLATILE"), std::string::npos) << install;
}

TEST(EmbeddedSqlEmitter, SavedPlansStreamedLoopsAndOneSpiConnectionPerCall) {
  auto c = test::compile(R"K(export fn f(n: int) -> int {
    var t = 0
    for r in query "select g from generate_series(1, $1) g" (n) as (g: int) {
        if r.g > 5 { break }
        t += r.g
    }
    return t
})K",
                         check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  const std::string code = emit::emit_c(c.module, emit::Flavour::Pg);
  for (const char* want :
       {"#define KEAL_EMBEDDED_SQL 1", "static SPIPlanPtr keal_q_plan_0;", "if (keal_q_plan_0 == NULL) {",
        "Oid types[1] = {INT8OID};", "values[0] = Int64GetDatum(p0);",
        // The loop's rows come straight from the executor's slots into its batch.
        "static bool keal_q_receive_0(TupleTableSlot *slot, DestReceiver *self) {", "keal_spi_batch_begin(&",
        "keal_spi_batch_fetch(", "keal_spi_batch_end(", "keal_spi_connect();", "SPI_finish();", "keal_spi_row_reset("}) {
    EXPECT_NE(code.find(want), std::string::npos) << want << "\n" << code;
  }
}

}  // namespace
}  // namespace keal
