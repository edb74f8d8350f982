// The descriptions file of `keal describe` / `--schema`: its format on its
// own, and the comparison with a program's declarations.
#include <gtest/gtest.h>

#include "driver/descriptions.hpp"
#include "support.hpp"

namespace keal {
namespace {

using driver::Description;
using driver::DescribedColumn;

std::vector<Description> sample() {
  Description ok;
  ok.sql = "select id, name from users where id >= $1\n  -- tab\there \\ backslash";
  ok.params = "int";
  ok.columns = {{"id", "integer", "int", "no", "users.id"}, {"name", "text", "text", "yes", "users.name"},
                {"doubled", "numeric", "-", "trusted", ""}};
  Description bad;
  bad.sql = "select nope";
  bad.rejected = true;
  bad.sqlstate = "42703";
  bad.position = 8;
  bad.message = "column \"nope\" does not exist";
  bad.hint = "Perhaps\tsomething";
  return {ok, bad};
}

bool same(const std::vector<Description>& a, const std::vector<Description>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Description& x = a[i];
    const Description& y = b[i];
    if (x.sql != y.sql || x.params != y.params || x.rejected != y.rejected || x.sqlstate != y.sqlstate ||
        x.position != y.position || x.message != y.message || x.hint != y.hint || x.columns.size() != y.columns.size())
      return false;
    for (std::size_t c = 0; c < x.columns.size(); ++c) {
      const DescribedColumn& p = x.columns[c];
      const DescribedColumn& q = y.columns[c];
      if (p.name != q.name || p.sql_type != q.sql_type || p.kind != q.kind || p.nullable != q.nullable ||
          p.table_column != q.table_column)
        return false;
    }
  }
  return true;
}

TEST(Descriptions, RoundTripWithEscapes) {
  const std::string text = driver::write_descriptions(sample());
  EXPECT_EQ(text.substr(0, 20), "keal-descriptions 1\n");
  EXPECT_NE(text.find("\\n  -- tab\\there \\\\ backslash"), std::string::npos) << text;
  std::vector<Description> back;
  std::string error;
  ASSERT_TRUE(driver::read_descriptions(text, back, error)) << error;
  EXPECT_TRUE(same(back, sample()));
}

TEST(Descriptions, MalformedFilesNameTheLine) {
  auto error_of = [](const std::string& text) {
    std::vector<Description> out;
    std::string error;
    EXPECT_FALSE(driver::read_descriptions(text, out, error)) << text;
    return error;
  };
  EXPECT_EQ(error_of(""), "line 0: empty file");
  EXPECT_EQ(error_of("something else\n"), "line 1: not a keal descriptions file (expected 'keal-descriptions 1')");
  EXPECT_EQ(error_of("keal-descriptions 1\ncolumn\ta\tb\tint\tno\t\n"), "line 2: 'column' outside a statement");
  EXPECT_EQ(error_of("keal-descriptions 1\nstatement\tselect 1\t\n"), "line 2: the last statement has no 'end'");
  EXPECT_EQ(error_of("keal-descriptions 1\nstatement\tselect 1\t\ncolumn\ta\tint4\tint\tmaybe\t\nend\n"),
            "line 3: nullable must be yes, no or trusted");
  EXPECT_EQ(error_of("keal-descriptions 1\nstatement\tselect \\q\t\nend\n"), "line 2: bad escape in field 2");
  EXPECT_EQ(error_of("keal-descriptions 1\nstatement\tx\t\nerror\t42601\t-3\tm\t\nend\n"), "line 3: bad position");
  EXPECT_EQ(error_of("keal-descriptions 1\nbogus\n"), "line 2: unknown record 'bogus'");
}

TEST(Descriptions, ComparedWithTheDeclarations) {
  const std::string source = R"K(export fn f(min_id: int) -> int {
    var t = 0
    for r in query "select id, name from users where id >= $1" (min_id) as (id: int, name: text) {
        t += r.id
    }
    return t + query one "select 1 + 1" () as int
}
)K";
  auto c = test::compile(source, check::Target::Pg);
  ASSERT_TRUE(c.ok) << c.diagnostics;
  Description rows;
  rows.sql = "select id, name from users where id >= $1";
  rows.params = "int";
  rows.columns = {{"id", "integer", "int", "no", "users.id"}, {"name", "text", "text", "yes", "users.name"}};
  std::vector<Description> saved = {rows};
  auto lookup = [&](const ir::QuerySite& q) -> const Description* {
    for (const Description& d : saved)
      if (d.sql == q.sql && d.params == driver::params_key(q)) return &d;
    return nullptr;
  };
  driver::DatabaseCheck r = driver::compare_with_descriptions("t.keal", source, c.module, lookup, "describe again");
  EXPECT_EQ(r.errors, 1u);  // the second statement has no description
  EXPECT_EQ(r.warnings, 1u);  // name may be NULL but is declared text
  EXPECT_NE(r.rendered.find("t.keal:6:26: error: this statement (with parameters ()) has no description; describe again"),
            std::string::npos)
      << r.rendered;
  EXPECT_NE(r.rendered.find("warning: column 'name' may be NULL in the database (users.name has no NOT NULL)"),
            std::string::npos)
      << r.rendered;
  saved[0].columns[0].kind = "-";
  saved[0].columns[0].sql_type = "numeric";
  r = driver::compare_with_descriptions("t.keal", source, c.module, lookup, "describe again");
  EXPECT_NE(r.rendered.find("error: column 'id' is numeric in the database (\"id\"), but it is declared int"),
            std::string::npos)
      << r.rendered;
}

}  // namespace
}  // namespace keal
