// Text forms of small binlog values: GTID positions and row change kinds.
#include <string>

#include "sluice/mariadb/binlog/events.hpp"

namespace sluice::mariadb::binlog {

std::string to_string(const GtidPosition& gtid) {
    std::string out = std::to_string(gtid.domain_id);
    out += '-';
    out += std::to_string(gtid.server_id);
    out += '-';
    out += std::to_string(gtid.seq_no);
    return out;
}

std::string_view to_string(RowsKind kind) noexcept {
    switch (kind) {
        case RowsKind::write: return "insert";
        case RowsKind::update: return "update";
        case RowsKind::delete_: return "delete";
    }
    return "insert";
}

}  // namespace sluice::mariadb::binlog
