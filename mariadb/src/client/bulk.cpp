#include "sluice/mariadb/bulk.hpp"

#include <string>

#include "session.hpp"
#include "sluice/mariadb/exchange/bulk_execute.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

std::string indicator_name(Indicator i) {
    return i == Indicator::default_ ? "DEFAULT" : i == Indicator::ignore ? "IGNORE" : "NULL";
}

BulkResult execute_sequential(Statement& stmt, const BulkRows& rows, std::span<BulkParam> row) {
    BulkResult result;
    std::vector<ParamValue> values(row.size());
    for (std::size_t i = 0; i < rows.count; ++i) {
        rows.fill(rows.ctx, i, row);
        for (std::size_t k = 0; k < row.size(); ++k) {
            const BulkParam& p = row[k];
            if (p.indicator == Indicator::default_ || p.indicator == Indicator::ignore) {
                throw Error(ErrorKind::usage, "bulk row " + std::to_string(i) + " parameter " + std::to_string(k) +
                                                  ": the " + indicator_name(p.indicator) +
                                                  " indicator needs COM_STMT_BULK_EXECUTE, which this execution "
                                                  "does not use");
            }
            values[k] = p.indicator == Indicator::null ? ParamValue{} : p.value;
        }
        ResultSet rs = stmt.execute_values(values);
        rs.discard();
        const OkInfo& ok = rs.ok();
        result.affected_rows += ok.affected_rows;
        if (result.first_insert_id == 0) result.first_insert_id = ok.last_insert_id;
        result.warnings += ok.warnings;
        ++result.commands;
        ++result.rows;
    }
    return result;
}

}  // namespace

BulkResult execute_bulk(Statement& stmt, const BulkRows& rows, const BulkOptions& options) {
    detail::Session& s = stmt.session();
    const std::size_t params = stmt.param_count();
    if (params == 0) throw Error(ErrorKind::usage, "bulk execution needs a statement with parameters");
    const bool server_bulk = s.capabilities & cap::mariadb_stmt_bulk_operations;
    if (options.mode == BulkOptions::Mode::native && !server_bulk) {
        throw Error(ErrorKind::usage, "server " + s.server_version + " does not offer STMT_BULK_OPERATIONS");
    }
    std::vector<BulkParam> row(params);
    if (options.mode == BulkOptions::Mode::sequential || !server_bulk) return execute_sequential(stmt, rows, row);

    if (rows.count == 0) {
        BulkResult none;
        none.native = true;
        return none;
    }
    exchange::BulkExecuteExchange bulk(s.capabilities, s.deprecate_eof, stmt.id(), rows, row,
                                       options.max_packet_bytes, s.features.get<exchange::MaxAllowedPacket>());
    s.guarded([&] {
        s.begin_command();
        s.run(bulk.start(s.outbox), [&](Bytes p) {
            const std::size_t answered = bulk.result().commands;
            const exchange::Step next = bulk.resume(s.outbox, p);
            // Each packet's OK is the connection's last, as a query's is.
            if (bulk.result().commands != answered) s.set_ok(bulk.last_ok());
            return next;
        });
    });
    return bulk.result();
}

}  // namespace sluice::mariadb
