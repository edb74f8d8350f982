#pragma once
// One call of a Keal function with typed arguments, and what a server made
// of it, rendered so that the three servers' answers compare as strings:
// "NULL", an int in decimal, a float with 17 significant digits, "true" /
// "false", a text's bytes, or "error: <the Keal message>" (from the Keal
// file name on: each server adds its own prefix). An array (Kind::Json) is
// JSON array text on SQLite and MariaDB, and a T[] on PostgreSQL, made from
// and rendered as the same JSON (array_to_json).
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace keal::servers {

enum class Kind { Int, Float, Bool, Text, Json };

struct Arg {
    Kind kind = Kind::Int;
    bool is_null = false;
    std::int64_t i = 0;
    double f = 0;
    bool b = false;
    std::string t;         // Text; Json: the array as JSON
    std::string pg_array;  // Json: its PostgreSQL type (bigint[], text[], ...)
};

inline Arg I(std::int64_t v) { return Arg{Kind::Int, false, v, 0, false, {}, {}}; }
inline Arg F(double v) { return Arg{Kind::Float, false, 0, v, false, {}, {}}; }
inline Arg B(bool v) { return Arg{Kind::Bool, false, 0, 0, v, {}, {}}; }
inline Arg T(std::string v) { return Arg{Kind::Text, false, 0, 0, false, std::move(v), {}}; }
inline Arg Null(Kind k) { return Arg{k, true, 0, 0, false, {}, {}}; }
inline Arg NullJ(std::string pg_array) { return Arg{Kind::Json, true, 0, 0, false, {}, std::move(pg_array)}; }
inline Arg J(std::string json, std::string pg_array) { return Arg{Kind::Json, false, 0, 0, false, std::move(json), std::move(pg_array)}; }

struct Call {
    std::string function;
    std::vector<Arg> args;
    Kind result = Kind::Int;
};

// What one server answered.
struct Outcome {
    std::string rendered;
    std::string sqlstate;  // PostgreSQL and MariaDB errors; empty otherwise
};

inline std::string render_float(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
}

// "error: " and the message from `source_file` on (the whole message when
// it does not name the file).
inline std::string render_error(const std::string& message, const std::string& source_file) {
    const std::size_t at = message.find(source_file);
    std::string m = at == std::string::npos ? message : message.substr(at);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return "error: " + m;
}

// Rows as "a|b; c|d" (each value rendered as above, "(no rows)" for none):
// a rows function's answer, compared between servers as one string.
inline std::string render_rows(const std::vector<std::vector<std::string>>& rows) {
    if (rows.empty()) return "(no rows)";
    std::string out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (r) out += "; ";
        for (std::size_t c = 0; c < rows[r].size(); ++c) out += (c ? "|" : "") + rows[r][c];
    }
    return out;
}

std::string describe(const Call& call);

}  // namespace keal::servers
