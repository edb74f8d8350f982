#include "mariadb_session.hpp"

#include <set>
#include <stdexcept>
#include <vector>

#include "keal_database.hpp"
#include "sluice/common/env_file.hpp"
#include "sluice/mariadb/error.hpp"

namespace keal::servers {

std::string mariadb_url() { return sluice::EnvFile::from_environment().require("SLUICE_MARIADB_URL"); }

void deploy_to_mariadb(const std::string& file_name) {
    static std::set<std::string> deployed;
    if (deployed.count(file_name)) return;
    const e2e::CommandResult r = e2e::run_keal({"deploy", e2e::program_path(file_name), "--db", mariadb_url()});
    if (r.exit_code != 0) throw std::runtime_error("keal deploy --db mariadb:// " + file_name + " failed:\n" + r.output);
    deployed.insert(file_name);
}

MariadbSession::MariadbSession() : conn_(sluice::mariadb::Connection::connect(mariadb_url())) {}

namespace {

Outcome render_first(sluice::mariadb::ResultSet& rs, Kind result) {
    Outcome out;
    const sluice::mariadb::Row* row = rs.next();
    if (row == nullptr) throw std::runtime_error("no row");
    const sluice::mariadb::Field field = (*row)[0];
    if (field.is_null()) {
        out.rendered = "NULL";
    } else {
        switch (result) {
            case Kind::Int: out.rendered = std::to_string(field.get<std::int64_t>()); break;
            case Kind::Float: out.rendered = render_float(field.get<double>()); break;
            case Kind::Bool: out.rendered = field.get<std::int64_t>() != 0 ? "true" : "false"; break;
            case Kind::Text:
            case Kind::Json: out.rendered = field.get<std::string>(); break;
        }
    }
    while (rs.next() != nullptr) {
    }
    return out;
}

}  // namespace

Outcome MariadbSession::run(const Call& call, const std::string& source_file) {
    std::string sql = "SELECT " + call.function + "(";
    for (std::size_t i = 0; i < call.args.size(); ++i) sql += i ? ", ?" : "?";
    sql += ")";
    try {
        sluice::mariadb::Statement st = conn_.prepare(sql);
        std::vector<sluice::mariadb::bind::ParamValue> values;
        for (const Arg& a : call.args) {
            if (a.is_null) {
                values.push_back(sluice::mariadb::bind::null());
                continue;
            }
            switch (a.kind) {
                case Kind::Int: values.push_back(sluice::mariadb::bind::value(a.i)); break;
                case Kind::Float: values.push_back(sluice::mariadb::bind::value(a.f)); break;
                case Kind::Bool: values.push_back(sluice::mariadb::bind::value(a.b)); break;
                case Kind::Text:
                case Kind::Json: values.push_back(sluice::mariadb::bind::value(a.t)); break;
            }
        }
        sluice::mariadb::ResultSet rs = st.execute_values(values);
        return render_first(rs, call.result);
    } catch (const sluice::mariadb::Error& e) {
        return Outcome{render_error(e.what(), source_file), e.sqlstate()};
    }
}

Outcome MariadbSession::query(const std::string& sql, Kind result, const std::string& source_file) {
    try {
        sluice::mariadb::ResultSet rs = conn_.query(sql);
        return render_first(rs, result);
    } catch (const sluice::mariadb::Error& e) {
        return Outcome{render_error(e.what(), source_file), e.sqlstate()};
    }
}

}  // namespace keal::servers
