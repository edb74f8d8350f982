#include "bench_sql.hpp"

#include <optional>

namespace sluice::pipeline_bench {

std::string scalar(mariadb::Connection& source, const std::string& query) {
    mariadb::ResultSet rs = source.query(query);
    const mariadb::Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("") : "";
    while (rs.next()) {
    }
    return v;
}

void commit_transaction(mariadb::Connection& source, const std::vector<std::string>& sql) {
    source.execute("START TRANSACTION");
    for (const auto& s : sql) source.execute(s);
    source.execute("COMMIT");
}

void drop_sink(postgres::Connection& sink, const std::string& name) {
    sink.run_script("drop table if exists " + name + ", " + name + "_late, " + name + "_rejected");
    sink.run_script("create table if not exists sluice_pipeline_state (name text primary key, gtid text not null, "
                    "checkpoint bytea, settings text not null)");
    sink.query("delete from sluice_pipeline_state where name = $1 or name like $2", {name, name + "#%"});
}

}  // namespace sluice::pipeline_bench
