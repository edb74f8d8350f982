#include "sluice/mariadb/bulk.hpp"

#include <algorithm>
#include <string>

#include "access.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/protocol/responses.hpp"

namespace sluice::mariadb {

using namespace protocol;

namespace {

// @@max_allowed_packet, asked once per connection.
std::size_t max_allowed_packet(detail::Session& s) {
    if (s.max_allowed_packet == 0) {
        s.begin_command();
        s.send([](Writer& w) { write_command(w, Command::query, "SELECT @@max_allowed_packet"); });
        s.read_result_head(false);
        if (!s.next_row()) throw Error(ErrorKind::protocol, "SELECT @@max_allowed_packet returned no row");
        s.max_allowed_packet = static_cast<std::size_t>(s.result.row.get<std::uint64_t>(0));
        s.drain();
    }
    return s.max_allowed_packet;
}

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
    detail::Session& s = detail::Access::session(stmt);
    const std::size_t params = stmt.param_count();
    if (params == 0) throw Error(ErrorKind::usage, "bulk execution needs a statement with parameters");
    const bool server_bulk = s.capabilities & cap::mariadb_stmt_bulk_operations;
    if (options.mode == BulkOptions::Mode::native && !server_bulk) {
        throw Error(ErrorKind::usage, "server " + s.server_version + " does not offer STMT_BULK_OPERATIONS");
    }
    std::vector<BulkParam> row(params);
    if (options.mode == BulkOptions::Mode::sequential || !server_bulk) return execute_sequential(stmt, rows, row);

    BulkResult result;
    result.native = true;
    const std::uint32_t id = detail::Access::id(stmt);
    std::size_t next = 0;
    std::size_t filled = rows.count;  // index of the row currently in `row`
    while (next < rows.count) {
        s.guarded([&] {
            const std::size_t limit =
                options.max_packet_bytes
                    ? options.max_packet_bytes
                    : std::min(max_allowed_packet(s), PacketChannel::max_packet_piece - 1);
            s.begin_command();
            BulkPacket packet(s.out, id, params);
            while (next < rows.count) {
                if (filled != next) {
                    rows.fill(rows.ctx, next, row);
                    filled = next;
                }
                BulkPacket::Append a = packet.append(row, limit);
                if (a == BulkPacket::Append::added) {
                    ++next;
                    continue;
                }
                if (packet.rows() == 0) {
                    throw Error(ErrorKind::usage, "bulk row " + std::to_string(next) +
                                                      " does not fit a packet of " + std::to_string(limit) +
                                                      " bytes (max_allowed_packet); execute it alone");
                }
                break;  // the row opens the next packet
            }
            s.chan().send_packet(s.out);
            Bytes reply = s.read();
            if (is_err(reply)) throw_server_error(reply);
            if (!is_ok(reply)) throw Error(ErrorKind::protocol, "bulk execute answered with a result set");
            OkPacket ok = parse_ok(reply, s.capabilities);
            s.set_ok(ok);
            result.affected_rows += ok.affected_rows;
            if (result.first_insert_id == 0) result.first_insert_id = ok.last_insert_id;
            result.warnings += ok.warnings;
            result.rows += packet.rows();
            ++result.commands;
        });
    }
    return result;
}

}  // namespace sluice::mariadb
