#include "sluice/mariadb/column.hpp"

namespace sluice::mariadb {

Column Column::from(const protocol::ColumnDefinition& d) {
    Column c;
    c.schema = d.schema;
    c.table = d.table;
    c.org_table = d.org_table;
    c.name = d.name;
    c.org_name = d.org_name;
    c.extended_type = d.extended_type;
    c.extended_format = d.extended_format;
    c.collation = d.collation;
    c.length = d.length;
    c.type = d.type;
    c.flags = d.flags;
    c.decimals = d.decimals;
    return c;
}

std::string Column::type_name() const {
    if (is_json()) return "JSON";
    if (is_enum()) return "ENUM";
    if (is_set()) return "SET";
    std::string text(protocol::to_string(type));
    switch (type) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong:
            if (is_unsigned()) text += " UNSIGNED";
            break;
        case ColumnType::var_string:
        case ColumnType::varchar:
            if (is_binary()) text = "VARBINARY";
            break;
        case ColumnType::string:
            if (is_binary()) text = "BINARY";
            break;
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob:
        case ColumnType::blob:
            if (!is_binary()) text = "TEXT";
            break;
        default: break;
    }
    return text;
}

}  // namespace sluice::mariadb
