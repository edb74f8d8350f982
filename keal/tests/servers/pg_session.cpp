#include "pg_session.hpp"

#include <cstdlib>

#include "keal_database.hpp"
#include "sluice/postgres/error.hpp"

namespace keal::servers {

void deploy_to_postgres(const std::string& file_name) { e2e::KealDatabase::get().deploy(file_name); }

namespace {

const char* sql_type(Kind k) {
    switch (k) {
        case Kind::Int: return "bigint";
        case Kind::Float: return "double precision";
        case Kind::Bool: return "boolean";
        case Kind::Text: return "text";
        case Kind::Json: return "json";
    }
    return "text";
}

Outcome query_on_postgres(const std::string& sql, const std::vector<e2e::Value>& params, Kind result,
                          const std::string& source_file) {
    try {
        const e2e::Value v = e2e::KealDatabase::get().sql().scalar(sql, params);
        if (!v) return Outcome{"NULL", ""};
        switch (result) {
            case Kind::Float: return Outcome{render_float(std::strtod(v->c_str(), nullptr)), ""};
            case Kind::Bool: return Outcome{*v == "t" ? "true" : "false", ""};
            default: return Outcome{*v, ""};
        }
    } catch (const sluice::postgres::Error& e) {
        if (e.kind() != sluice::postgres::ErrorKind::server) throw;
        return Outcome{render_error(e.server_message(), source_file), e.sqlstate()};
    }
}

}  // namespace

Outcome run_on_postgres(const Call& call, const std::string& source_file) {
    std::string sql = "SELECT " + call.function + "(";
    std::vector<e2e::Value> params;
    for (std::size_t i = 0; i < call.args.size(); ++i) {
        const Arg& a = call.args[i];
        const std::string p = "$" + std::to_string(i + 1);
        if (i) sql += ", ";
        if (a.kind == Kind::Json) {
            // The JSON array's elements, in order, as a one-dimensional T[] (JSON null: NULL).
            sql += "CASE WHEN " + p + "::json IS NOT NULL THEN ARRAY(SELECT e FROM json_array_elements_text(" + p +
                   "::json) WITH ORDINALITY AS x(e, n) ORDER BY n)::" + a.pg_array + " END";
            params.emplace_back(a.is_null ? e2e::Value(std::nullopt) : e2e::Value(a.t));
            continue;
        }
        sql += p + "::" + sql_type(a.kind);
        if (a.is_null) {
            params.emplace_back(std::nullopt);
            continue;
        }
        switch (a.kind) {
            case Kind::Int: params.emplace_back(std::to_string(a.i)); break;
            case Kind::Float: params.emplace_back(render_float(a.f)); break;
            case Kind::Bool: params.emplace_back(a.b ? "true" : "false"); break;
            case Kind::Text: params.emplace_back(a.t); break;
            case Kind::Json: break;
        }
    }
    sql += ")";
    if (call.result == Kind::Json) sql = "SELECT array_to_json((" + sql.substr(7) + "))::text";
    return query_on_postgres(sql, params, call.result, source_file);
}

Outcome query_on_postgres(const std::string& sql, Kind result, const std::string& source_file) {
    return query_on_postgres(sql, {}, result, source_file);
}

Outcome rows_on_postgres(const std::string& sql, const std::vector<Kind>& columns, const std::string& source_file) {
    try {
        std::vector<std::vector<std::string>> rendered;
        for (const e2e::Row& row : e2e::KealDatabase::get().sql().query(sql)) {
            std::vector<std::string> values;
            for (std::size_t i = 0; i < row.size(); ++i) {
                const e2e::Value& v = row[i];
                const Kind k = i < columns.size() ? columns[i] : Kind::Text;
                if (!v) values.emplace_back("NULL");
                else if (k == Kind::Float) values.push_back(render_float(std::strtod(v->c_str(), nullptr)));
                else if (k == Kind::Bool) values.emplace_back(*v == "t" ? "true" : "false");
                else values.push_back(*v);
            }
            rendered.push_back(std::move(values));
        }
        return Outcome{render_rows(rendered), ""};
    } catch (const sluice::postgres::Error& e) {
        if (e.kind() != sluice::postgres::ErrorKind::server) throw;
        return Outcome{render_error(e.server_message(), source_file), e.sqlstate()};
    }
}

}  // namespace keal::servers
