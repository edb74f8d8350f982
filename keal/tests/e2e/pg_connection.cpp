#include "pg_connection.hpp"

#include <stdexcept>

namespace keal::e2e {

namespace {

std::string field(const PGresult* r, int code) {
    const char* v = PQresultErrorField(r, code);
    return v ? v : "";
}

ServerError error_of(const PGresult* r) {
    ServerError e{field(r, PG_DIAG_SQLSTATE), field(r, PG_DIAG_MESSAGE_PRIMARY), ""};
    for (int code : {PG_DIAG_MESSAGE_DETAIL, PG_DIAG_MESSAGE_HINT, PG_DIAG_CONTEXT}) {
        std::string part = field(r, code);
        if (part.empty()) continue;
        if (!e.detail.empty()) e.detail += " | ";
        e.detail += part;
    }
    return e;
}

bool succeeded(const PGresult* r) {
    const ExecStatusType s = PQresultStatus(r);
    return s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK;
}

}  // namespace

PgConnection::PgConnection(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
    if (!conn_) throw std::runtime_error("libpq could not allocate a connection");
    if (PQstatus(conn_.get()) != CONNECTION_OK)
        throw std::runtime_error("cannot connect to " + url + ": " + PQerrorMessage(conn_.get()));
    // Notices (e.g. "database does not exist, skipping") would only add noise.
    PQsetNoticeProcessor(conn_.get(), [](void*, const char*) {}, nullptr);
}

PgConnection::Result PgConnection::run(const std::string& sql, const std::vector<Value>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const Value& p : params) values.push_back(p ? p->c_str() : nullptr);
    Result r(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0));
    if (!r) throw std::runtime_error(std::string("libpq: ") + PQerrorMessage(conn_.get()));
    return r;
}

Rows PgConnection::query(const std::string& sql, const std::vector<Value>& params) {
    Result r = run(sql, params);
    if (!succeeded(r.get())) {
        const ServerError e = error_of(r.get());
        throw std::runtime_error("SQL failed [" + e.sqlstate + "] " + e.message +
                                 (e.detail.empty() ? "" : " (" + e.detail + ")") + "\n  in: " + sql);
    }
    Rows rows;
    const int n = PQntuples(r.get());
    const int m = PQnfields(r.get());
    rows.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        Row row;
        row.reserve(static_cast<std::size_t>(m));
        for (int j = 0; j < m; ++j) {
            if (PQgetisnull(r.get(), i, j))
                row.emplace_back(std::nullopt);
            else
                row.emplace_back(std::string(PQgetvalue(r.get(), i, j),
                                             static_cast<std::size_t>(PQgetlength(r.get(), i, j))));
        }
        rows.push_back(std::move(row));
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

void PgConnection::exec(const std::string& sql) {
    Result r(PQexec(conn_.get(), sql.c_str()));
    if (!r) throw std::runtime_error(std::string("libpq: ") + PQerrorMessage(conn_.get()));
    if (!succeeded(r.get())) {
        const ServerError e = error_of(r.get());
        throw std::runtime_error("SQL failed [" + e.sqlstate + "] " + e.message + "\n  in: " + sql);
    }
}

ServerError PgConnection::expect_error(const std::string& sql, const std::vector<Value>& params) {
    Result r = run(sql, params);
    if (succeeded(r.get())) throw std::runtime_error("statement succeeded but should have failed: " + sql);
    return error_of(r.get());
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
