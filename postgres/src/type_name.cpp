#include "sluice/postgres/result.hpp"

namespace sluice::postgres {

std::string type_name(Oid type) {
    switch (type) {
        case type_oid::boolean: return "bool";
        case type_oid::bytea: return "bytea";
        case type_oid::char_: return "\"char\"";
        case type_oid::name: return "name";
        case type_oid::int8: return "int8";
        case type_oid::int2: return "int2";
        case type_oid::int4: return "int4";
        case type_oid::text: return "text";
        case type_oid::json: return "json";
        case type_oid::float4: return "float4";
        case type_oid::float8: return "float8";
        case type_oid::unknown: return "unknown";
        case type_oid::bpchar: return "bpchar";
        case type_oid::varchar: return "varchar";
        case type_oid::numeric: return "numeric";
        default: return "oid " + std::to_string(type);
    }
}

}  // namespace sluice::postgres
