#pragma once
// Comparing a Keal function with a SQL-computed expectation over many rows in
// one query: the server evaluates both for every input, and only the count of
// disagreements and the first few of them come back.
#include "pg_connection.hpp"

#include <cstdint>
#include <string>

namespace keal::e2e {

struct Comparison {
    std::int64_t rows = 0;
    std::int64_t mismatches = 0;
    std::string examples;  // up to five "input: keal=... sql=..." lines
};

// Evaluates `keal_expr` and `sql_expr` (compared with IS DISTINCT FROM, so
// NULL equals NULL) for every row of `from_clause`; `input_expr` names the
// input in the examples.
Comparison compare(PgConnection& db, const std::string& from_clause, const std::string& input_expr,
                   const std::string& keal_expr, const std::string& sql_expr);

// The line number (1-based) of the first line of programs/<file> containing
// `needle`; throws when none does.
int line_of(const std::string& program_file, const std::string& needle);

// Creates (once per database) the table samples(id int, s text): 5,000
// deterministic strings of 0 to 36 characters drawn from ASCII letters and
// vowels of both cases, digits, punctuation, a tab, two-byte (é É ü ß ñ),
// three-byte (中 文) and four-byte (😀 🎉) UTF-8 characters; 136 are empty.
void ensure_samples(PgConnection& db);

}  // namespace keal::e2e
