#include "driver/descriptions.hpp"

#include <charconv>

#include "syntax/diagnostics.hpp"
#include "syntax/source.hpp"

namespace keal::driver {

namespace {

constexpr std::string_view kHeader = "keal-descriptions 1";

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

bool unescape(std::string_view s, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i >= s.size()) return false;
    if (s[i] == '\\') out += '\\';
    else if (s[i] == 't') out += '\t';
    else if (s[i] == 'n') out += '\n';
    else return false;
  }
  return true;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '\t') {
      fields.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return fields;
}

// A column of `kind` reads as `declared`: the run-time rule (keal_pg_sql.h).
bool kind_reads(const std::string& kind, ir::Base declared) {
  switch (declared) {
    case ir::Base::Int: return kind == "int";
    case ir::Base::Float: return kind == "float";
    case ir::Base::Bool: return kind == "bool";
    case ir::Base::Bytes: return kind == "bytes";
    case ir::Base::Text:
    case ir::Base::Char: return kind == "text";
    default: return false;
  }
}

// The server's 1-based character position inside the statement, as a span
// inside the string literal when the literal spells the statement as is (no
// escapes); else the whole literal.
Span position_in_literal(const SourceFile& source, const ir::QuerySite& q, Span literal, int position) {
  const std::string_view src = source.text();
  if (position <= 0 || literal.end < literal.begin + 2 || literal.end > src.size()) return literal;
  const std::string_view inside = src.substr(literal.begin + 1, literal.end - literal.begin - 2);
  if (inside != q.sql) return literal;
  std::size_t byte = 0;
  for (int chars = 1; chars < position && byte < inside.size(); ++chars) {
    ++byte;
    while (byte < inside.size() && (static_cast<unsigned char>(inside[byte]) & 0xC0) == 0x80) ++byte;
  }
  const auto begin = static_cast<std::uint32_t>(literal.begin + 1 + byte);
  return {begin, begin + 1};
}

}  // namespace

std::string params_key(const ir::QuerySite& q) {
  std::string key;
  for (std::size_t i = 0; i < q.params.size(); ++i) key += (i ? "," : "") + ir::to_string(q.params[i]);
  return key;
}

std::string write_descriptions(const std::vector<Description>& descriptions) {
  std::string out = std::string(kHeader) + "\n";
  for (const Description& d : descriptions) {
    out += "statement\t" + escape(d.sql) + "\t" + escape(d.params) + "\n";
    if (d.rejected)
      out += "error\t" + escape(d.sqlstate) + "\t" + std::to_string(d.position) + "\t" + escape(d.message) + "\t" +
             escape(d.hint) + "\n";
    for (const DescribedColumn& c : d.columns)
      out += "column\t" + escape(c.name) + "\t" + escape(c.sql_type) + "\t" + escape(c.kind) + "\t" + escape(c.nullable) + "\t" +
             escape(c.table_column) + "\n";
    out += "end\n";
  }
  return out;
}

bool read_descriptions(std::string_view text, std::vector<Description>& out, std::string& error) {
  out.clear();
  std::size_t line_no = 0;
  std::size_t pos = 0;
  bool open = false;
  auto fail = [&](const std::string& why) {
    error = "line " + std::to_string(line_no) + ": " + why;
    return false;
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != kHeader) return fail("not a keal descriptions file (expected '" + std::string(kHeader) + "')");
      continue;
    }
    const std::vector<std::string_view> f = split_tabs(line);
    auto field = [&](std::size_t i, std::string& into) {
      if (!unescape(f[i], into)) return fail("bad escape in field " + std::to_string(i + 1));
      return true;
    };
    if (f[0] == "statement") {
      if (open) return fail("'statement' before the previous one's 'end'");
      if (f.size() != 3) return fail("'statement' needs 2 fields");
      Description d;
      if (!field(1, d.sql) || !field(2, d.params)) return false;
      out.push_back(std::move(d));
      open = true;
    } else if (f[0] == "error") {
      if (!open) return fail("'error' outside a statement");
      if (f.size() != 5) return fail("'error' needs 4 fields");
      Description& d = out.back();
      d.rejected = true;
      if (!field(1, d.sqlstate) || !field(3, d.message) || !field(4, d.hint)) return false;
      const auto [end, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), d.position);
      if (ec != std::errc() || end != f[2].data() + f[2].size() || d.position < 0) return fail("bad position");
    } else if (f[0] == "column") {
      if (!open) return fail("'column' outside a statement");
      if (f.size() != 6) return fail("'column' needs 5 fields");
      DescribedColumn c;
      if (!field(1, c.name) || !field(2, c.sql_type) || !field(3, c.kind) || !field(4, c.nullable) ||
          !field(5, c.table_column))
        return false;
      if (c.nullable != "yes" && c.nullable != "no" && c.nullable != "trusted") return fail("nullable must be yes, no or trusted");
      out.back().columns.push_back(std::move(c));
    } else if (f[0] == "end") {
      if (!open) return fail("'end' outside a statement");
      if (f.size() != 1) return fail("'end' takes no fields");
      open = false;
    } else {
      return fail("unknown record '" + std::string(f[0].substr(0, 40)) + "'");
    }
  }
  if (line_no == 0) return fail("empty file");
  if (open) return fail("the last statement has no 'end'");
  return true;
}

DatabaseCheck compare_with_descriptions(const std::string& display_name, const std::string& text, const ir::Module& module,
                                        const DescriptionLookup& lookup, const std::string& stale_hint) {
  DatabaseCheck out;
  if (module.query_sites.empty()) return out;
  SourceFile source(display_name, text);
  auto report = [&](const char* severity, Span span, const std::string& message) {
    (severity[0] == 'e' ? out.errors : out.warnings) += 1;
    out.rendered += render_located(source, span, severity, message);
  };
  for (const ir::QuerySite& q : module.query_sites) {
    const Span at{q.sql_begin, q.sql_end};
    const Description* d = lookup(q);
    if (d == nullptr) {
      report("error", at, "this statement (with parameters (" + params_key(q) + ")) has no description; " + stale_hint);
      continue;
    }
    if (d->rejected) {
      report("error", position_in_literal(source, q, at, d->position),
             "the database rejects this statement: " + d->message + " [" + d->sqlstate + "]" +
                 (d->hint.empty() ? "" : "; " + d->hint));
      continue;
    }
    if (q.form == ir::QuerySite::Form::Exec) continue;
    if (d->columns.size() != q.columns.size()) {
      report("error", at,
             "the statement returns " + std::to_string(d->columns.size()) + " column" + (d->columns.size() == 1 ? "" : "s") +
                 " but " + std::to_string(q.columns.size()) + (q.columns.size() == 1 ? " is" : " are") + " declared");
      continue;
    }
    for (std::size_t i = 0; i < q.columns.size(); ++i) {
      const ir::Field& want = q.columns[i];
      const DescribedColumn& got = d->columns[i];
      const std::string name = q.single_value ? "the value" : "column '" + want.name + "'";
      if (!kind_reads(got.kind, want.type.base)) {
        report("error", at,
               name + " is " + got.sql_type + " in the database (\"" + got.name + "\"), but it is declared " +
                   ir::to_string(want.type));
        continue;
      }
      if (!want.type.nullable && got.nullable == "yes") {
        const std::string where = got.table_column.empty() ? "its table column" : got.table_column;
        report("warning", at,
               name + " may be NULL in the database (" + where + " has no NOT NULL), but it is declared " +
                   ir::to_string(want.type) + "; a NULL fails at run time with SQLSTATE 22004 (declare it " +
                   ir::to_string(want.type) + "? to accept NULL)");
      }
    }
  }
  return out;
}

}  // namespace keal::driver
