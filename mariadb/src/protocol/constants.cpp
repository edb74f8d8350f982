#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::protocol {

std::string_view to_string(ColumnType type) noexcept {
    switch (type) {
        case ColumnType::decimal: return "DECIMAL";
        case ColumnType::tiny: return "TINYINT";
        case ColumnType::short_: return "SMALLINT";
        case ColumnType::long_: return "INT";
        case ColumnType::float_: return "FLOAT";
        case ColumnType::double_: return "DOUBLE";
        case ColumnType::null: return "NULL";
        case ColumnType::timestamp: return "TIMESTAMP";
        case ColumnType::longlong: return "BIGINT";
        case ColumnType::int24: return "MEDIUMINT";
        case ColumnType::date: return "DATE";
        case ColumnType::time: return "TIME";
        case ColumnType::datetime: return "DATETIME";
        case ColumnType::year: return "YEAR";
        case ColumnType::newdate: return "DATE";
        case ColumnType::varchar: return "VARCHAR";
        case ColumnType::bit: return "BIT";
        case ColumnType::timestamp2: return "TIMESTAMP";
        case ColumnType::datetime2: return "DATETIME";
        case ColumnType::time2: return "TIME";
        case ColumnType::json: return "JSON";
        case ColumnType::newdecimal: return "DECIMAL";
        case ColumnType::enum_: return "ENUM";
        case ColumnType::set: return "SET";
        case ColumnType::tiny_blob: return "TINYBLOB";
        case ColumnType::medium_blob: return "MEDIUMBLOB";
        case ColumnType::long_blob: return "LONGBLOB";
        case ColumnType::blob: return "BLOB";
        case ColumnType::var_string: return "VARCHAR";
        case ColumnType::string: return "CHAR";
        case ColumnType::geometry: return "GEOMETRY";
    }
    return "UNKNOWN";
}

}  // namespace sluice::mariadb::protocol
