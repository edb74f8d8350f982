// TABLE_MAP_EVENT: the table id, names, per-column types, metadata and
// nullability, then the optional metadata blocks (type, lenenc length,
// value) of binlog_row_metadata=MINIMAL/FULL. Every count is checked
// against the bytes present before anything is sized from it.
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog {

namespace {

bool is_known_type(std::uint8_t t) noexcept { return t <= 19 || t >= 245; }

}  // namespace

bool ColumnInfo::is_text() const noexcept {
    switch (type) {
        case ColumnType::string:
        case ColumnType::varchar:
        case ColumnType::var_string: return has_charset ? charset != protocol::binary_collation : true;
        case ColumnType::blob:
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob: return has_charset && charset != protocol::binary_collation;
        case ColumnType::enum_:
        case ColumnType::set:
        case ColumnType::json: return true;
        default: return false;
    }
}

SchemaType schema_type_from_name(std::string_view t) noexcept {
    auto eq = [&](std::string_view name) {
        if (t.size() != name.size()) return false;
        for (std::size_t i = 0; i < t.size(); ++i) {
            char c = t[i];
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            if (c != name[i]) return false;
        }
        return true;
    };
    if (eq("uuid")) return SchemaType::uuid;
    if (eq("inet6")) return SchemaType::inet6;
    if (eq("inet4")) return SchemaType::inet4;
    if (eq("json")) return SchemaType::json;
    return SchemaType::none;
}

namespace detail {

namespace {

enum OptionalMetadata : std::uint8_t {
    signedness = 1,
    default_charset = 2,
    column_charset = 3,
    column_name = 4,
    set_str_value = 5,
    enum_str_value = 6,
    geometry_type = 7,
    simple_primary_key = 8,
    primary_key_with_prefix = 9,
    enum_and_set_default_charset = 10,
    enum_and_set_column_charset = 11,
};

// Columns the SIGNEDNESS bitmap has a bit for (YEAR too: MariaDB logs it
// as an unsigned TINYINT).
bool is_numeric(ColumnType t) noexcept {
    switch (t) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong:
        case ColumnType::float_:
        case ColumnType::double_:
        case ColumnType::newdecimal:
        case ColumnType::decimal:
        case ColumnType::year: return true;
        default: return false;
    }
}

// Columns DEFAULT_CHARSET / COLUMN_CHARSET speak of (GEOMETRY, ENUM and
// SET excluded; BLOBs included, with the binary charset).
bool is_character(ColumnType t) noexcept {
    switch (t) {
        case ColumnType::string:
        case ColumnType::varchar:
        case ColumnType::var_string:
        case ColumnType::blob:
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob: return true;
        default: return false;
    }
}

bool is_enum_or_set(ColumnType t) noexcept { return t == ColumnType::enum_ || t == ColumnType::set; }

// Reads the per-type metadata of one column and derives its sizes.
void read_column_metadata(Reader& m, ColumnInfo& c, std::string_view field) {
    auto bad = [&](const std::string& what) { m.fail(field, what); };
    switch (c.binlog_type) {
        case ColumnType::float_:
        case ColumnType::double_: {
            c.metadata = m.u8(field);
            std::uint8_t want = c.binlog_type == ColumnType::float_ ? 4 : 8;
            if (c.metadata != want)
                bad("pack length " + std::to_string(c.metadata) + " for a " +
                    std::string(protocol::to_string(c.binlog_type)) + " (expected " + std::to_string(want) + ")");
            break;
        }
        case ColumnType::blob:
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob:
        case ColumnType::geometry:
        case ColumnType::json:
            c.metadata = m.u8(field);
            if (c.metadata < 1 || c.metadata > 4) bad("BLOB length size " + std::to_string(c.metadata) + " (1-4)");
            c.max_length = c.metadata;
            break;
        case ColumnType::varchar:
        case ColumnType::var_string:
            c.metadata = m.u16(field);
            c.max_length = c.metadata;
            break;
        case ColumnType::bit: {
            std::uint8_t bits = m.u8(field);
            std::uint8_t bytes = m.u8(field);
            c.metadata = static_cast<std::uint16_t>(bits | (bytes << 8));
            unsigned width = bytes * 8u + bits;
            if (bits > 7 || width < 1 || width > 64) bad("BIT width " + std::to_string(width) + " (1-64)");
            c.bit_width = static_cast<std::uint8_t>(width);
            break;
        }
        case ColumnType::newdecimal: {
            c.precision = m.u8(field);
            c.scale = m.u8(field);
            c.metadata = static_cast<std::uint16_t>((c.precision << 8) | c.scale);
            if (c.precision < 1 || c.precision > Decimal::max_digits || c.scale > c.precision || c.scale > 38)
                bad("DECIMAL(" + std::to_string(c.precision) + "," + std::to_string(c.scale) +
                    ") out of range (precision 1-65, scale 0-38 and at most the precision)");
            break;
        }
        case ColumnType::string:
        case ColumnType::enum_:
        case ColumnType::set: {
            std::uint8_t b0 = m.u8(field);
            std::uint8_t b1 = m.u8(field);
            c.metadata = static_cast<std::uint16_t>((b0 << 8) | b1);
            std::uint8_t real = b0;
            std::uint32_t length = b1;
            if (c.binlog_type == ColumnType::string && (b0 & 0x30) != 0x30) {
                // CHAR over 255 bytes: two length bits hide in the type byte.
                length = b1 | (static_cast<std::uint32_t>((b0 & 0x30) ^ 0x30) << 4);
                real = static_cast<std::uint8_t>(b0 | 0x30);
            }
            if (real == static_cast<std::uint8_t>(ColumnType::enum_)) {
                c.type = ColumnType::enum_;
                c.pack_length = b1;
                if (b1 < 1 || b1 > 2) bad("ENUM pack length " + std::to_string(b1) + " (1-2)");
            } else if (real == static_cast<std::uint8_t>(ColumnType::set)) {
                c.type = ColumnType::set;
                c.pack_length = b1;
                if (b1 < 1 || b1 > 8) bad("SET pack length " + std::to_string(b1) + " (1-8)");
            } else if (real == static_cast<std::uint8_t>(ColumnType::string)) {
                c.type = ColumnType::string;
                c.max_length = length;
            } else {
                bad("CHAR real type " + std::to_string(real) + " (expected STRING, ENUM or SET)");
            }
            break;
        }
        case ColumnType::time2:
        case ColumnType::datetime2:
        case ColumnType::timestamp2:
            c.metadata = m.u8(field);
            if (c.metadata > 6) bad("fractional seconds precision " + std::to_string(c.metadata) + " (0-6)");
            c.fsp = static_cast<std::uint8_t>(c.metadata);
            break;
        case ColumnType::decimal:
            m.fail(field, "pre-5.0 DECIMAL columns are not supported in row events");
        default: break;  // no metadata
    }
}

// Values of the optional metadata, checked against the columns they describe.
struct Optional {
    Reader& r;
    TableMap& t;

    template <class Pred>
    std::vector<ColumnInfo*> columns_where(Pred pred) {
        std::vector<ColumnInfo*> out;
        for (ColumnInfo& c : t.columns)
            if (pred(c.type)) out.push_back(&c);
        return out;
    }

    std::uint32_t index(std::uint64_t v, std::size_t count, std::string_view field) {
        if (v >= count)
            r.fail(field, "column index " + std::to_string(v) + " of " + std::to_string(count) + " columns");
        return static_cast<std::uint32_t>(v);
    }

    void read_signedness(Bytes value) {
        auto cols = columns_where(is_numeric);
        if (value.size() < (cols.size() + 7) / 8)
            r.fail("SIGNEDNESS", "bitmap of " + std::to_string(value.size()) + " bytes for " +
                                     std::to_string(cols.size()) + " numeric columns");
        for (std::size_t i = 0; i < cols.size(); ++i) {
            cols[i]->has_signedness = true;
            cols[i]->is_unsigned = (value[i / 8] >> (7 - i % 8)) & 1;
        }
    }

    void read_default_charset(Bytes value, bool enum_and_set) {
        auto cols = enum_and_set ? columns_where(is_enum_or_set) : columns_where(is_character);
        Reader v(value, enum_and_set ? "TABLE_MAP_EVENT ENUM_AND_SET_DEFAULT_CHARSET" : "TABLE_MAP_EVENT DEFAULT_CHARSET");
        auto def = static_cast<std::uint32_t>(v.lenenc("default collation"));
        for (ColumnInfo* c : cols) {
            c->has_charset = true;
            c->charset = def;
        }
        while (!v.at_end()) {
            std::uint32_t i = index(v.lenenc("column index"), cols.size(), "column index");
            cols[i]->charset = static_cast<std::uint32_t>(v.lenenc("collation"));
        }
    }

    void read_column_charset(Bytes value, bool enum_and_set) {
        auto cols = enum_and_set ? columns_where(is_enum_or_set) : columns_where(is_character);
        Reader v(value, enum_and_set ? "TABLE_MAP_EVENT ENUM_AND_SET_COLUMN_CHARSET" : "TABLE_MAP_EVENT COLUMN_CHARSET");
        for (ColumnInfo* c : cols) {
            c->has_charset = true;
            c->charset = static_cast<std::uint32_t>(v.lenenc("collation"));
        }
        if (!v.at_end()) v.fail("collation", "more collations than character columns");
    }

    void read_names(Bytes value) {
        Reader v(value, "TABLE_MAP_EVENT COLUMN_NAME");
        for (ColumnInfo& c : t.columns) {
            c.name = std::string(v.lenenc_text("column name"));
            c.has_name = true;
        }
        if (!v.at_end()) v.fail("column name", "more names than columns");
        t.has_column_names = true;
    }

    void read_strings(Bytes value, ColumnType type) {
        auto cols = columns_where([type](ColumnType t2) { return t2 == type; });
        Reader v(value, type == ColumnType::enum_ ? "TABLE_MAP_EVENT ENUM_STR_VALUE" : "TABLE_MAP_EVENT SET_STR_VALUE");
        for (ColumnInfo* c : cols) {
            std::uint64_t n = v.lenenc("value count");
            // Each value takes at least its length byte.
            if (n > v.remaining()) v.fail("value count", std::to_string(n) + " values in " +
                                                             std::to_string(v.remaining()) + " bytes");
            if (type == ColumnType::set && n > 64) v.fail("value count", "a SET of " + std::to_string(n) + " members (at most 64)");
            auto& out = type == ColumnType::enum_ ? c->enum_values : c->set_values;
            out.clear();
            out.reserve(static_cast<std::size_t>(n));
            for (std::uint64_t i = 0; i < n; ++i) out.emplace_back(v.lenenc_text("value"));
        }
        if (!v.at_end()) v.fail("value count", "values for more columns than the table has");
    }

    void read_geometry_types(Bytes value) {
        auto cols = columns_where([](ColumnType t2) { return t2 == ColumnType::geometry; });
        Reader v(value, "TABLE_MAP_EVENT GEOMETRY_TYPE");
        for (ColumnInfo* c : cols) {
            c->geometry_type = static_cast<std::uint32_t>(v.lenenc("geometry type"));
            c->has_geometry_type = true;
        }
        if (!v.at_end()) v.fail("geometry type", "more geometry types than geometry columns");
    }

    void read_primary_key(Bytes value, bool with_prefix) {
        Reader v(value, with_prefix ? "TABLE_MAP_EVENT PRIMARY_KEY_WITH_PREFIX" : "TABLE_MAP_EVENT SIMPLE_PRIMARY_KEY");
        t.primary_key.clear();
        while (!v.at_end()) {
            std::uint32_t i = index(v.lenenc("key column"), t.columns.size(), "key column");
            if (with_prefix) v.lenenc("key prefix length");
            t.primary_key.push_back(i);
            t.columns[i].is_primary_key = true;
        }
        t.has_primary_key = true;
    }

    void read_all() {
        while (!r.at_end()) {
            std::uint8_t type = r.u8("optional metadata type");
            Bytes value = r.lenenc_bytes("optional metadata");
            switch (type) {
                case signedness: read_signedness(value); break;
                case default_charset: read_default_charset(value, false); break;
                case column_charset: read_column_charset(value, false); break;
                case column_name: read_names(value); break;
                case set_str_value: read_strings(value, ColumnType::set); break;
                case enum_str_value: read_strings(value, ColumnType::enum_); break;
                case geometry_type: read_geometry_types(value); break;
                case simple_primary_key: read_primary_key(value, false); break;
                case primary_key_with_prefix: read_primary_key(value, true); break;
                case enum_and_set_default_charset: read_default_charset(value, true); break;
                case enum_and_set_column_charset: read_column_charset(value, true); break;
                default: break;  // newer metadata (e.g. MySQL's VISIBILITY): skipped by its length
            }
        }
    }
};

}  // namespace

std::shared_ptr<TableMap> parse_table_map(Reader& r, std::uint8_t post_header_length) {
    auto t = std::make_shared<TableMap>();
    if (post_header_length == 6) {
        t->table_id = r.u32("table id");
    } else {
        std::uint32_t lo = r.u32("table id");
        std::uint16_t hi = r.u16("table id");
        t->table_id = lo | (std::uint64_t{hi} << 32);
        t->flags = r.u16("flags");
        if (post_header_length > 8) r.skip(post_header_length - 8u, "post-header");
    }
    std::uint8_t db_len = r.u8("schema length");
    t->db = std::string(as_text(r.bytes(db_len, "schema")));
    if (r.u8("schema terminator") != 0) r.fail("schema terminator", "schema name not NUL-terminated");
    std::uint8_t table_len = r.u8("table length");
    t->table = std::string(as_text(r.bytes(table_len, "table")));
    if (r.u8("table terminator") != 0) r.fail("table terminator", "table name not NUL-terminated");
    std::uint64_t count = r.lenenc("column count");
    // One type byte per column must be present.
    if (count == 0 || count > r.remaining() || count > 4096)
        r.fail("column count", std::to_string(count) + " columns (1-4096, one type byte each; " +
                                   std::to_string(r.remaining()) + " bytes left)");
    Bytes types = r.bytes(static_cast<std::size_t>(count), "column types");
    t->columns.resize(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (!is_known_type(types[i]))
            r.fail("column types", "column " + std::to_string(i) + " has unknown type code " +
                                       std::to_string(types[i]));
        t->columns[i].binlog_type = static_cast<ColumnType>(types[i]);
        t->columns[i].type = t->columns[i].binlog_type;
    }
    Reader m(r.lenenc_bytes("column metadata"), "TABLE_MAP_EVENT column metadata");
    for (ColumnInfo& c : t->columns) read_column_metadata(m, c, "column metadata");
    if (!m.at_end()) m.fail("column metadata", "bytes left after the last column's metadata");
    Bytes nulls = r.bytes((t->columns.size() + 7) / 8, "null bitmap");
    for (std::size_t i = 0; i < t->columns.size(); ++i) t->columns[i].nullable = (nulls[i / 8] >> (i % 8)) & 1;
    Optional{r, *t}.read_all();
    return t;
}

void apply_schema(TableMap& t, const TableSchema* schema) {
    bool fits = schema && schema->columns.size() == t.columns.size();
    t.schema_applied = fits;
    bool all_named = true;
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
        ColumnInfo& c = t.columns[i];
        c.schema_type = SchemaType::none;
        bool old_temporal =
            c.type == ColumnType::time || c.type == ColumnType::datetime || c.type == ColumnType::timestamp;
        if (old_temporal) c.fsp = 0;
        if (!fits) {
            if (!c.has_name) {
                c.name.clear();
                all_named = false;
            }
            continue;
        }
        const SchemaColumn& s = schema->columns[i];
        if (!c.has_name) c.name = s.name;
        if (old_temporal && s.datetime_precision > 0 && s.datetime_precision <= 6)
            c.fsp = static_cast<std::uint8_t>(s.datetime_precision);
        // A hint only counts where the logged type can carry it: a stale
        // schema must not turn a BLOB into a UUID.
        SchemaType hint = schema_type_from_name(s.data_type);
        bool fixed16 = c.type == ColumnType::string && c.max_length == 16;
        bool fixed4 = c.type == ColumnType::string && c.max_length == 4;
        bool blob = c.type == ColumnType::blob;
        if ((hint == SchemaType::uuid && fixed16) || (hint == SchemaType::inet6 && fixed16) ||
            (hint == SchemaType::inet4 && fixed4) || (hint == SchemaType::json && blob))
            c.schema_type = hint;
    }
    t.has_column_names = all_named;
}

}  // namespace detail
}  // namespace sluice::mariadb::binlog
