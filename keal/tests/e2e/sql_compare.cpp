#include "sql_compare.hpp"

#include "keal_database.hpp"

#include <fstream>
#include <stdexcept>

namespace keal::e2e {

Comparison compare(PgConnection& db, const std::string& from_clause, const std::string& input_expr,
                   const std::string& keal_expr, const std::string& sql_expr) {
    const std::string sql =
        "SELECT count(*), count(*) FILTER (WHERE k IS DISTINCT FROM r), "
        "  coalesce(array_to_string((array_agg(format('%s: keal=%s sql=%s', i, "
        "      coalesce(k::text, 'NULL'), coalesce(r::text, 'NULL'))) "
        "    FILTER (WHERE k IS DISTINCT FROM r))[1:5], E'\\n'), '') "
        "FROM (SELECT (" + input_expr + ")::text AS i, (" + keal_expr + ") AS k, (" + sql_expr +
        ") AS r FROM " + from_clause + ") AS t";
    const Rows rows = db.query(sql);
    Comparison c;
    c.rows = std::stoll(rows.at(0).at(0).value());
    c.mismatches = std::stoll(rows.at(0).at(1).value());
    c.examples = rows.at(0).at(2).value_or("");
    return c;
}

int line_of(const std::string& program_file, const std::string& needle) {
    std::ifstream in(program_path(program_file));
    if (!in) throw std::runtime_error("cannot read " + program_path(program_file));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (line.find(needle) != std::string::npos) return n;
    throw std::runtime_error("no line of " + program_file + " contains '" + needle + "'");
}

void ensure_samples(PgConnection& db) {
    db.exec(R"sql(
CREATE TABLE IF NOT EXISTS samples AS
WITH alphabet(a) AS (
  SELECT ARRAY['a','e','i','o','u','A','E','I','O','U','b','c','x','Z','y','Y',' ',
               '-','.','0','7',E'\t','é','É','ü','ß','ñ','中','文','😀','🎉']
)
SELECT n AS id,
       coalesce((SELECT string_agg(a[1 + (n * 31 + i * 17 + n * i * 7) % cardinality(a)], '' ORDER BY i)
                 FROM generate_series(1, n % 37) AS i), '') AS s
FROM alphabet, generate_series(0, 4999) AS n
)sql");
}

}  // namespace keal::e2e
