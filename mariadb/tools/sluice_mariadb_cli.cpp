// sluice-mariadb: connect by URL, run SQL, print the results as an aligned
// table or as NDJSON (one JSON object per row). See docs/mariadb.md.
#include <openssl/evp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cdc_command.hpp"
#include "url_errors.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/common/cli_exit.hpp"
#include "sluice/common/json_write.hpp"
#include "sluice/common/version.hpp"
#include "sluice/mariadb/ndjson.hpp"
#include "sluice/mariadb/options_problem.hpp"

namespace {

using namespace sluice::mariadb;
using sluice::mariadb::tools::invalid_url;
using sluice::mariadb::tools::masked_url;

// The table classifies columns as the NDJSON formatter does (one rule for
// both outputs): numbers are right-aligned, bytes print as hex.
bool is_json_number(const Column& c) {
    switch (ndjson::style_of(c)) {
        case ndjson::ValueStyle::integer:
        case ndjson::ValueStyle::unsigned_integer:
        case ndjson::ValueStyle::bit:
        case ndjson::ValueStyle::float32:
        case ndjson::ValueStyle::float64: return true;
        default: return false;
    }
}

bool is_bytes(const Column& c) { return ndjson::style_of(c) == ndjson::ValueStyle::bytes; }

std::string hex(std::span<const std::uint8_t> bytes) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out = "0x";
    for (std::uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

// The table right-aligns numbers: what NDJSON prints as numbers, and
// DECIMAL (a string there, to keep every digit).
bool is_right_aligned(const Column& c) {
    return is_json_number(c) || c.type == ColumnType::decimal || c.type == ColumnType::newdecimal;
}

// A value as one table cell: a tab, a line break or another control
// character inside it would break the table's lines and columns, so they
// print as C-style escapes (\t, \n, \r, \xHH), and a backslash as \\ so
// that the escapes stay unambiguous.
std::string escape_cell(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\\') out += "\\\\";
        else if (c == '\t') out += "\\t";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (u < 0x20 || u == 0x7F) {
            static constexpr char digits[] = "0123456789abcdef";
            out += "\\x";
            out += digits[u >> 4];
            out += digits[u & 15];
        } else out += c;
    }
    return out;
}

// A field as the table shows it.
std::string cell(const Field& f) {
    if (f.is_null()) return "NULL";
    if (f.column().type == ColumnType::bit) return std::to_string(f.get<std::uint64_t>());
    if (is_bytes(f.column())) return hex(f.raw());
    return escape_cell(f.to_string());
}

// Display width of UTF-8 text: code points (continuation bytes don't count).
std::size_t width(std::string_view s) {
    std::size_t w = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++w;
    return w;
}

void print_table(ResultSet& rs) {
    const auto& cols = rs.columns();
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> widths(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) widths[i] = width(escape_cell(cols[i].name));
    for (const Row& r : rs) {
        auto& line = cells.emplace_back();
        for (std::size_t i = 0; i < r.size(); ++i) {
            line.push_back(cell(r[i]));
            widths[i] = std::max(widths[i], width(line.back()));
        }
    }
    std::string rule = "+";
    for (std::size_t w : widths) rule += std::string(w + 2, '-') + "+";
    auto print_line = [&](const std::vector<std::string>& values, bool header) {
        std::string s = "|";
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::string pad(widths[i] - width(values[i]), ' ');
            bool right = !header && is_right_aligned(cols[i]);
            s += " " + (right ? pad + values[i] : values[i] + pad) + " |";
        }
        std::cout << s << "\n";
    };
    std::vector<std::string> names;
    for (const Column& c : cols) names.push_back(escape_cell(c.name));
    std::cout << rule << "\n";
    print_line(names, true);
    std::cout << rule << "\n";
    for (const auto& line : cells) print_line(line, false);
    std::cout << rule << "\n";
    std::cout << cells.size() << (cells.size() == 1 ? " row" : " rows") << " in set\n";
}

// One formatter for SELECT and CDC lines (sluice/mariadb/ndjson.hpp).
void print_ndjson(ResultSet& rs) {
    std::string line;
    for (const Row& r : rs) {
        line.clear();
        ndjson::append_row(line, r);
        line += '\n';
        std::cout << line;
    }
}

// A single positional argument is the URL when it starts like one
// (`scheme://`, which no SQL statement does); a wrong scheme is then an
// invalid URL rather than SQL sent to the server.
bool looks_like_url(const std::string& s) {
    const auto sep = s.find("://");
    if (sep == std::string::npos || sep == 0) return false;
    for (std::size_t i = 0; i < sep; ++i) {
        const char c = s[i];
        const bool ok = std::isalpha(static_cast<unsigned char>(c)) ||
                        (i > 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'));
        if (!ok) return false;
    }
    return true;
}

// NDJSON prints what CDC prints for the same values: TIMESTAMP in UTC, and
// results through the binary protocol when the SQL is one preparable
// statement, because the text protocol rounds FLOAT to 6 digits.
ResultSet run_for_ndjson(Connection& conn, std::optional<Statement>& stmt, const std::string& query) {
    try {
        stmt.emplace(conn.prepare(query));
    } catch (const Error& e) {
        // 1064: several statements (or a syntax error the text run reports
        // again); 1295: not preparable.
        if (e.kind() != ErrorKind::server || (e.server_code() != 1064 && e.server_code() != 1295)) throw;
        return conn.query(query);
    }
    return stmt->execute();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "cdc") return sluice::mariadb::tools::run_cdc_command(argc - 1, argv + 1);
    CLI::App app{
        "sluice-mariadb: run SQL on a MariaDB server and print the results.\n"
        "The server comes from URL, --url or $SLUICE_MARIADB_URL\n"
        "(mariadb://user:password@host:port/database?ssl-mode=verify-full&ssl-ca=...);\n"
        "the SQL from QUERY or, when absent, standard input. Several statements\n"
        "separated by ';' print one result after the other.\n"
        "Without ssl-mode, TCP to a host that is not loopback is verify-full (against\n"
        "ssl-ca, else the system trust store); loopback and unix sockets use prefer."};
    app.set_version_flag("--version", sluice::version_line("sluice-mariadb"));
    std::vector<std::string> args;
    std::string url;
    std::string format = "table";
    app.add_option("URL QUERY", args,
                   "a mariadb:// URL and/or the SQL to run (URL first when both are given)");
    app.add_option("--url", url, "server URL (default: $SLUICE_MARIADB_URL)");
    app.add_option("--format", format, "output format")
        ->check(CLI::IsMember({"table", "ndjson"}))
        ->capture_default_str();
    if (const std::optional<int> status = sluice::cli::parse_or_exit(app, "sluice-mariadb", argc, argv)) return *status;

    if (args.size() > 2) {
        std::cerr << "sluice-mariadb: at most two arguments (URL and QUERY); quote the SQL\n";
        return sluice::cli::exit_usage;
    }
    std::string query;
    std::string positional_url;
    if (args.size() == 2) {
        positional_url = args[0];
        query = args[1];
    } else if (args.size() == 1) {
        (looks_like_url(args[0]) ? positional_url : query) = args[0];
    }
    if (!positional_url.empty() && !url.empty()) {
        return invalid_url("both a positional URL (" + masked_url(positional_url) + ") and --url (" + masked_url(url) +
                               ") are given; pass one",
                           "");
    }
    if (!positional_url.empty()) url = positional_url;
    if (url.empty()) {
        if (const char* e = std::getenv("SLUICE_MARIADB_URL")) url = e;
    }
    if (url.empty()) {
        std::cerr << "sluice-mariadb: no server: pass a mariadb:// URL, --url, or set SLUICE_MARIADB_URL\n";
        return sluice::cli::exit_usage;
    }
    ConnectOptions options;
    try {
        options = parse_url(url);
    } catch (const Error& e) {
        return invalid_url(e.what(), url);
    }
    // The URL's own mistake (verify-full without a CA) is a usage error: 2.
    if (const std::string problem = options_problem(options); !problem.empty()) {
        std::cerr << "sluice-mariadb: error: " << problem << " (usage)\n";
        return sluice::cli::exit_usage;
    }
    if (query.empty()) {
        // Plain reads: GCC 12 at -O2 misreports istreambuf_iterator as a
        // null dereference.
        char buf[4096];
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            query.append(buf, static_cast<std::size_t>(std::cin.gcount()));
        }
    }
    if (query.find_first_not_of(" \t\r\n;") == std::string::npos) {
        std::cerr << "sluice-mariadb: no query given (argument or standard input)\n";
        return sluice::cli::exit_usage;
    }

    try {
        if (format == "ndjson") options.init_commands.push_back("SET time_zone = '+00:00'");
        Connection conn = Connection::connect(options);
        std::optional<Statement> stmt;
        ResultSet rs = format == "ndjson" ? run_for_ndjson(conn, stmt, query) : conn.query(query);
        do {
            if (rs.has_rows()) {
                if (format == "ndjson") print_ndjson(rs);
                else print_table(rs);
            } else if (format == "table") {
                const OkInfo& ok = rs.ok();
                std::cout << "Query OK, " << ok.affected_rows << (ok.affected_rows == 1 ? " row" : " rows")
                          << " affected";
                if (ok.warnings) std::cout << ", " << ok.warnings << " warning" << (ok.warnings == 1 ? "" : "s");
                if (!ok.info.empty()) std::cout << " (" << ok.info << ")";
                std::cout << "\n";
            }
        } while (rs.next_result());
        std::cout.flush();
        return std::cout.good() ? sluice::cli::exit_ok : sluice::cli::exit_failure;
    } catch (const Error& e) {
        std::cerr << "sluice-mariadb: error: " << e.what();
        if (e.kind() == ErrorKind::server) {
            std::cerr << " (server error " << e.server_code() << ", SQLSTATE " << e.sqlstate() << ")";
        } else {
            std::cerr << " (" << to_string(e.kind()) << ")";
        }
        std::cerr << "\n";
        return sluice::cli::exit_failure;
    }
}
