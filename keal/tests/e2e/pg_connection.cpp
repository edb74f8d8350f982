#include "pg_connection.hpp"

#include <stdexcept>

namespace keal::e2e {

namespace pg = sluice::postgres;

namespace {

std::vector<pg::Param> text_params(const std::vector<Value>& params) {
    std::vector<pg::Param> out;
    out.reserve(params.size());
    for (const Value& p : params) out.emplace_back(p);
    return out;
}

pg::Connection open_quiet(const std::string& url) {
    pg::Connection c = pg::Connection::open(url);
    // Notices (e.g. "database does not exist, skipping") would only add noise.
    c.set_notice_handler({});
    return c;
}

}  // namespace

PgConnection::PgConnection(const std::string& url) : conn_(open_quiet(url)) {}

Rows PgConnection::query(const std::string& sql, const std::vector<Value>& params) {
    const pg::Result r = conn_.query(sql, text_params(params), pg::Format::text);
    Rows rows;
    rows.reserve(static_cast<std::size_t>(r.size()));
    for (const pg::Row row : r) {
        Row values;
        values.reserve(static_cast<std::size_t>(row.size()));
        for (int j = 0; j < row.size(); ++j) values.push_back(row.get<std::optional<std::string>>(j));
        rows.push_back(std::move(values));
    }
    return rows;
}

Value PgConnection::scalar(const std::string& sql, const std::vector<Value>& params) {
    Rows rows = query(sql, params);
    if (rows.size() != 1 || rows[0].size() != 1)
        throw std::runtime_error("expected one value, got " + std::to_string(rows.size()) +
                                 " rows from: " + sql);
    return rows[0][0];
}

void PgConnection::exec(const std::string& sql) { conn_.run_script(sql); }

ServerError PgConnection::expect_error(const std::string& sql, const std::vector<Value>& params) {
    try {
        conn_.query(sql, text_params(params));
    } catch (const pg::Error& e) {
        if (e.kind() != pg::ErrorKind::server) throw;
        const pg::ServerDiagnostics& d = e.diagnostics();
        ServerError out{d.sqlstate, d.message, ""};
        for (const std::string* part : {&d.detail, &d.hint, &d.context}) {
            if (part->empty()) continue;
            if (!out.detail.empty()) out.detail += " | ";
            out.detail += *part;
        }
        return out;
    }
    throw std::runtime_error("statement succeeded but should have failed: " + sql);
}

std::string sql_literal(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += '\'';
        out += c;
    }
    out += '\'';
    return out;
}

}  // namespace keal::e2e
