// The captured binlogs of MariaDB 10.11 (fixtures/*.sql run by
// fixtures/capture.sh), decoded event by event and row by row. Expected
// values are what `SELECT` shows for the same rows (time_zone +00:00).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {
namespace {

using test::cell_text;

// One row change as column name -> text ("-" absent, "NULL").
struct Change {
    RowsKind kind;
    std::string table;
    EventType type;
    std::map<std::string, std::string> before, after;
};

struct Decoded {
    // The event bytes outlive the decode: values_of_first_insert views them.
    std::vector<std::vector<std::uint8_t>> events;
    std::vector<EventType> types;
    std::vector<Change> changes;
    std::vector<std::string> queries;
    std::vector<Query> query_events;  // (views: valid while `events` lives)
    std::vector<Gtid> gtids;  // (xa_xid views are not kept)
    std::vector<Value> values_of_first_insert;
};

std::map<std::string, std::string> image_text(std::span<const Cell> cells, const TableMap& t) {
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        std::string name = t.columns[i].name.empty() ? "@" + std::to_string(i + 1) : t.columns[i].name;
        out[name] = cell_text(cells[i], t.columns[i]);
    }
    return out;
}

Decoded decode_fixture(const std::string& name, Decoder& dec) {
    auto file = test::load_fixture(name);
    Decoded d;
    dec.set_position(name, 4);
    d.events = test::split_events(file);
    for (auto& bytes : d.events) {
        Event ev = dec.decode(bytes);
        d.types.push_back(ev.header.type);
        if (auto* q = std::get_if<Query>(&ev.body)) {
            d.queries.emplace_back(q->sql);
            d.query_events.push_back(*q);
        }
        if (auto* g = std::get_if<Gtid>(&ev.body)) {
            Gtid copy = *g;
            copy.xa_xid.reset();
            d.gtids.push_back(copy);
        }
        if (auto* rows = std::get_if<Rows>(&ev.body)) {
            RowReader reader(*rows);
            RowChange ch;
            while (reader.next(ch)) {
                Change c{rows->kind, rows->table->db + "." + rows->table->table, rows->type, {}, {}};
                if (!ch.before.empty()) c.before = image_text(ch.before, *rows->table);
                if (!ch.after.empty()) c.after = image_text(ch.after, *rows->table);
                if (d.changes.empty())
                    for (const Cell& cell : ch.after) d.values_of_first_insert.push_back(cell.value);
                d.changes.push_back(std::move(c));
            }
        }
    }
    return d;
}

TableSchema every_type_schema() {
    // What information_schema.COLUMNS says (DATA_TYPE), in order.
    const char* cols[][2] = {
        {"id", "int"},        {"ti", "tinyint"},     {"tiu", "tinyint"},   {"si", "smallint"},
        {"siu", "smallint"},  {"mi", "mediumint"},   {"miu", "mediumint"}, {"i", "int"},
        {"iu", "int"},        {"bi", "bigint"},      {"biu", "bigint"},    {"f", "float"},
        {"d", "double"},      {"dec65", "decimal"},  {"dec10", "decimal"}, {"dec0", "decimal"},
        {"dt", "date"},       {"t0", "time"},        {"t6", "time"},       {"t3", "time"},
        {"dt0", "datetime"},  {"dt6", "datetime"},   {"dt2", "datetime"},  {"ts0", "timestamp"},
        {"ts6", "timestamp"}, {"y", "year"},         {"b1", "bit"},        {"b13", "bit"},
        {"b64", "bit"},       {"e", "enum"},         {"s", "set"},         {"bin", "binary"},
        {"vbin", "varbinary"}, {"ch", "char"},       {"vc", "varchar"},    {"vcl", "varchar"},
        {"tt", "tinytext"},   {"tx", "text"},        {"mt", "mediumtext"}, {"lt", "longtext"},
        {"tb", "tinyblob"},   {"bl", "blob"},        {"lb", "longblob"},   {"j", "longtext"},
        {"g", "geometry"},    {"pt", "point"},       {"u", "uuid"},        {"ip", "inet6"},
        {"ip4", "inet4"}};
    TableSchema s;
    for (auto& c : cols) s.columns.push_back({c[0], c[1], -1});
    // MariaDB reports JSON columns as DATA_TYPE longtext with a json_valid
    // CHECK; the session maps that to "json".
    s.columns[43].data_type = "json";
    return s;
}

std::string hex(std::string_view s) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    for (char c : s) {
        auto b = static_cast<unsigned char>(c);
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

TEST(BinlogFixtures, EveryTypeFirstInsertMatchesSelect) {
    Decoder dec;
    dec.set_schema("sluice", "every_type", every_type_schema());
    Decoded d = decode_fixture("every_type", dec);
    ASSERT_GE(d.changes.size(), 7u);
    const Change& c = d.changes[0];
    EXPECT_EQ(c.kind, RowsKind::write);
    EXPECT_EQ(c.table, "sluice.every_type");
    std::map<std::string, std::string> want = {
        {"id", "1"},
        {"ti", "-128"},
        {"tiu", "255"},
        {"si", "-32768"},
        {"siu", "65535"},
        {"mi", "-8388608"},
        {"miu", "16777215"},
        {"i", "-2147483648"},
        {"iu", "4294967295"},
        {"bi", "-9223372036854775808"},
        {"biu", "18446744073709551615"},
        {"f", "1.1"},
        {"d", "-2.5e-300"},
        {"dec65", "-12345678901234567890123456789012345.123456789012345678901234567890"},
        {"dec10", "-0.05"},
        {"dec0", "99999"},
        {"dt", "2024-02-29"},
        {"t0", "-838:59:59"},
        {"t6", "-00:00:00.000001"},
        {"t3", "12:34:56.789"},
        {"dt0", "1000-01-01 00:00:00"},
        {"dt6", "9999-12-31 23:59:59.999999"},
        {"dt2", "2024-02-29 13:14:15.12"},
        {"ts0", "1970-01-01 00:00:01"},
        {"ts6", "2038-01-19 03:14:07.999999"},
        {"y", "2155"},
        {"b1", "1"},
        {"b13", "5461"},
        {"b64", "18446744073709551615"},
        {"e", "c"},
        {"s", "x,z"},
        {"ch", "ab"},
        {"vc", "h\xC3\xA9llo\xF0\x9F\x98\x80"},
        {"tt", "tiny"},
        {"tx", "text"},
        {"mt", "medium"},
        {"j", "{\"a\": [1, 2.5, \"x\"]}"},
        {"u", "123e4567-e89b-12d3-a456-426614174000"},
        {"ip", "::ffff:1.2.3.4"},
        {"ip4", "10.0.0.1"},
    };
    for (auto& [col, text] : want) EXPECT_EQ(c.after.at(col), text) << col;
    std::string vcl;
    for (int i = 0; i < 300; ++i) vcl += "\xC3\xA9";
    EXPECT_EQ(c.after.at("vcl"), vcl);  // 600 bytes: a 2-byte length
    std::string lt;
    for (int i = 0; i < 100; ++i) lt += "long";
    EXPECT_EQ(c.after.at("lt"), lt);
    // Bytes: BINARY(8) re-padded with 0x00 as SELECT shows it.
    EXPECT_EQ(hex(c.after.at("bin")), "0102000000000000");
    EXPECT_EQ(hex(c.after.at("vbin")), "00FF00");
    EXPECT_EQ(hex(c.after.at("tb")), "00");
    EXPECT_EQ(hex(c.after.at("bl")), "DEADBEEF");
    EXPECT_EQ(hex(c.after.at("lb")), "CAFE");
    EXPECT_EQ(hex(c.after.at("g")),
              "0000000001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F");
    EXPECT_EQ(hex(c.after.at("pt")), "000000000101000000000000000000F83F00000000000000C0");

    // The typed values, not only their text.
    const auto& v = d.values_of_first_insert;
    EXPECT_EQ(std::get<std::int64_t>(v[1]), -128);
    EXPECT_EQ(std::get<std::uint64_t>(v[2]), 255u);
    EXPECT_EQ(std::get<std::uint64_t>(v[10]), 18446744073709551615u);
    EXPECT_EQ(std::get<float>(v[11]), 1.1f);
    EXPECT_EQ(std::get<double>(v[12]), -2.5e-300);
    EXPECT_TRUE(std::get<Decimal>(v[13]).negative());
    EXPECT_EQ((std::get<Time>(v[17])), (Time{true, 838, 59, 59, 0}));
    EXPECT_EQ((std::get<DateTime>(v[21])), (DateTime{9999, 12, 31, 23, 59, 59, 999999}));
    EXPECT_EQ((std::get<Timestamp>(v[24])), (Timestamp{2147483647, 999999}));
    EXPECT_EQ(std::get<Year>(v[25]).value, 2155);
    EXPECT_EQ((std::get<Bit>(v[27])), (Bit{0x1555, 13}));
    EXPECT_EQ(std::get<Enum>(v[29]).index, 3);
    EXPECT_EQ(std::get<Set>(v[30]).bits, 5u);
    EXPECT_EQ(std::get<Blob>(v[31]).size(), 8u);
    EXPECT_TRUE(std::holds_alternative<Text>(v[33]));
    EXPECT_TRUE(std::holds_alternative<Json>(v[43]));
    EXPECT_TRUE(std::holds_alternative<Geometry>(v[44]));
    EXPECT_TRUE(std::holds_alternative<Uuid>(v[46]));
    EXPECT_TRUE(std::holds_alternative<Inet6>(v[47]));
    EXPECT_TRUE(std::holds_alternative<Inet4>(v[48]));
}

TEST(BinlogFixtures, EveryTypeEdgeRowsMatchSelect) {
    Decoder dec;
    dec.set_schema("sluice", "every_type", every_type_schema());
    Decoded d = decode_fixture("every_type", dec);
    // Row 2: only the key; everything else NULL (and present: FULL image).
    const Change& nulls = d.changes[1];
    EXPECT_EQ(nulls.after.at("id"), "2");
    for (auto& [col, text] : nulls.after) {
        if (col != "id") {
            EXPECT_EQ(text, "NULL") << col;
        }
    }
    const Change& r3 = d.changes[2];
    std::map<std::string, std::string> want3 = {
        {"t0", "-00:00:01"},
        {"t6", "838:59:59.999999"},
        {"t3", "-00:00:01.500"},
        {"dec10", "12345678.99"},
        {"dec65", "0.000000000000000000000000000001"},
        {"dt0", "0000-00-00 00:00:00"},
        {"dt2", "2024-02-29 00:00:00.01"},
        {"y", "0000"},
        {"b64", "0"},
        {"ch", ""},
        {"vc", ""},
        {"s", ""},
        {"ip", "::"},
        {"u", "6ccd780c-baba-4026-9564-5b8c656024db"},
        {"ip4", "0.0.0.0"},
        {"d", "1.7976931348623157e+308"},
    };
    for (auto& [col, text] : want3) EXPECT_EQ(r3.after.at(col), text) << col;
    EXPECT_EQ(hex(r3.after.at("bin")), "0000000000000000");  // all zeros: logged as '' and re-padded
    EXPECT_EQ(r3.after.at("f"), "-3.4028235e+38");          // shortest float that reads back
    const Change& r4 = d.changes[3];
    std::map<std::string, std::string> want4 = {
        {"t6", "-12:00:00.500000"}, {"dec10", "-99999999.99"}, {"dec65", "-0.500000000000000000000000000000"},
        {"y", "1901"},              {"ip", "2001:db8::1"},     {"ip4", "255.255.255.255"},
        {"s", "x,y,z"},             {"f", "0"},                {"d", "0"},
    };
    for (auto& [col, text] : want4) EXPECT_EQ(r4.after.at(col), text) << col;
    EXPECT_EQ(hex(r4.after.at("bin")), "0100000000000000");
}

TEST(BinlogFixtures, EveryTypeUpdatesAndDeleteCarryBothImages) {
    Decoder dec;
    dec.set_schema("sluice", "every_type", every_type_schema());
    Decoded d = decode_fixture("every_type", dec);
    ASSERT_EQ(d.changes.size(), 7u);
    const Change& upd = d.changes[4];
    EXPECT_EQ(upd.kind, RowsKind::update);
    EXPECT_EQ(upd.before.at("vc"), "h\xC3\xA9llo\xF0\x9F\x98\x80");
    EXPECT_EQ(upd.after.at("vc"), "upd");
    EXPECT_EQ(upd.before.at("iu"), "4294967295");
    EXPECT_EQ(upd.after.at("iu"), "0");
    EXPECT_EQ(upd.after.at("dec65"), upd.before.at("dec65"));
    // A primary key changed by an update: before has the old key, after the new.
    const Change& pk = d.changes[5];
    EXPECT_EQ(pk.before.at("id"), "4");
    EXPECT_EQ(pk.after.at("id"), "5");
    const Change& del = d.changes[6];
    EXPECT_EQ(del.kind, RowsKind::delete_);
    EXPECT_TRUE(del.after.empty());
    EXPECT_EQ(del.before.at("id"), "2");
}

TEST(BinlogFixtures, WithoutSchemaHintsUuidAndJsonAreTheirBinlogTypes) {
    Decoder dec;
    Decoded d = decode_fixture("every_type", dec);
    const auto& v = d.values_of_first_insert;
    // BINARY(16) re-padded (the binlog dropped the UUID's trailing 0x00).
    ASSERT_TRUE(std::holds_alternative<Blob>(v[46]));
    EXPECT_EQ(std::get<Blob>(v[46]).size(), 16u);
    EXPECT_EQ(std::get<Blob>(v[46]).value.size(), 15u);
    EXPECT_EQ(std::get<Blob>(v[46])[15], 0);
    ASSERT_TRUE(std::holds_alternative<Text>(v[43]));
    EXPECT_EQ(std::get<Text>(v[43]).value, "{\"a\": [1, 2.5, \"x\"]}");
}

TEST(BinlogFixtures, EventSequenceGtidsQueriesAndPosition) {
    Decoder dec;
    Decoded d = decode_fixture("every_type", dec);
    EXPECT_EQ(d.types.front(), EventType::format_description);
    EXPECT_EQ(d.types.back(), EventType::rotate);
    EXPECT_EQ(d.types[1], EventType::gtid_list);
    EXPECT_EQ(d.types[2], EventType::binlog_checkpoint);
    {
        // The GTID_LIST at the file's start: 0-1-14, the state before it.
        Decoder fresh;
        Event list = fresh.decode(d.events[1]);
        ASSERT_EQ(std::get<GtidList>(list.body).gtids.size(), 1u);
        EXPECT_EQ(to_string(std::get<GtidList>(list.body).gtids[0]), "0-1-14");
        EXPECT_EQ(std::get<BinlogCheckpoint>(fresh.decode(d.events[2]).body).file, "mariadb-bin.000003");
    }
    EXPECT_EQ(dec.checksum(), Checksum::crc32);
    ASSERT_GE(d.gtids.size(), 2u);
    // CREATE TABLE: a standalone DDL group; INSERT: a transaction.
    EXPECT_TRUE(d.gtids[0].ddl());
    EXPECT_TRUE(d.gtids[0].standalone());
    EXPECT_FALSE(d.gtids[1].standalone());
    EXPECT_TRUE(d.gtids[1].transactional());
    EXPECT_EQ(d.gtids[1].seq_no, d.gtids[0].seq_no + 1);
    EXPECT_EQ(d.gtids[1].domain_id, 0u);
    EXPECT_EQ(d.gtids[1].server_id, 1u);
    EXPECT_NE(d.queries[0].find("CREATE TABLE sluice.every_type"), std::string::npos);
    // The status variables mariadb-binlog shows for that DDL.
    const Query& ddl = d.query_events[0];
    EXPECT_EQ(ddl.schema, "sluice");
    ASSERT_TRUE(ddl.sql_mode.has_value());
    EXPECT_EQ(*ddl.sql_mode, 1411383296u);  // SET @@session.sql_mode=1411383296
    ASSERT_TRUE(ddl.charset_client.has_value());
    EXPECT_EQ(*ddl.charset_client, 45);  // utf8mb4_general_ci
    ASSERT_TRUE(ddl.flags2.has_value());
    EXPECT_TRUE(ddl.xid.has_value());  // a DDL logged with its xid (Q_XID)
    std::size_t xids = 0;
    for (EventType t : d.types) xids += t == EventType::xid;
    EXPECT_EQ(xids, 6u);  // one per DML statement (autocommit)
    // After the final ROTATE the decoder is at the next file's start.
    EXPECT_NE(dec.position().file.find("mariadb-bin."), std::string_view::npos);
    EXPECT_EQ(dec.position().offset, 4u);
}

TEST(BinlogFixtures, ImagesMinimalNoblobTwoTablesRollbackAndDdl) {
    Decoder dec;
    Decoded d = decode_fixture("images", dec);
    ASSERT_EQ(d.changes.size(), 9u);
    // FULL insert of two rows in one event.
    EXPECT_EQ(d.changes[0].after.at("a"), "one");
    EXPECT_EQ(d.changes[1].after.at("a"), "two");
    // MINIMAL update: before = the key, after = the changed column only.
    const Change& min = d.changes[2];
    EXPECT_EQ(min.before, (std::map<std::string, std::string>{{"id", "1"}, {"a", "-"}, {"b", "-"}, {"c", "-"}}));
    EXPECT_EQ(min.after, (std::map<std::string, std::string>{{"id", "-"}, {"a", "uno"}, {"b", "-"}, {"c", "-"}}));
    // MINIMAL delete: the key.
    EXPECT_EQ(d.changes[3].before.at("id"), "2");
    EXPECT_EQ(d.changes[3].before.at("a"), "-");
    // NOBLOB: every column but the unchanged BLOB.
    const Change& noblob = d.changes[4];
    EXPECT_EQ(noblob.before.at("b"), "-");
    EXPECT_EQ(noblob.before.at("c"), "10");
    EXPECT_EQ(noblob.after.at("c"), "11");
    EXPECT_EQ(noblob.after.at("a"), "uno");
    // Two tables in one transaction; the rolled-back insert of id 4 is absent.
    EXPECT_EQ(d.changes[5].table, "sluice.img");
    EXPECT_EQ(d.changes[6].table, "sluice.other");
    EXPECT_EQ(d.changes[6].after.at("k"), "18446744073709551615");
    for (const Change& c : d.changes) {
        if (c.after.count("id")) {
            EXPECT_NE(c.after.at("id"), "4");
        }
    }
    // binlog_row_metadata=MINIMAL: no names (columns are @1..), values still typed.
    const Change& minimal = d.changes[7];
    EXPECT_EQ(minimal.after.at("@1"), "5");
    EXPECT_EQ(minimal.after.at("@2"), "minimal");
    EXPECT_EQ(minimal.after.at("@4"), "5");
    // After ALTER TABLE: the new column order.
    const Change& altered = d.changes[8];
    EXPECT_EQ(altered.after, (std::map<std::string, std::string>{{"id", "6"}, {"d", "2024-01-02"}, {"a", "six"}, {"c", "6"}}));
}

TEST(BinlogFixtures, SchemaHintNamesColumnsOfMinimalMetadata) {
    Decoder dec;
    dec.set_schema("sluice", "img", TableSchema{{{"id", "int"}, {"a", "varchar"}, {"b", "blob"}, {"c", "int"}}});
    Decoded d = decode_fixture("images", dec);
    EXPECT_EQ(d.changes[7].after.at("a"), "minimal");
    EXPECT_EQ(d.changes[7].after.at("c"), "5");
    // After the ALTER the hint no longer fits (4 columns, other types and
    // order, same count): names from the binlog win (FULL sends them).
    EXPECT_EQ(d.changes[8].after.at("d"), "2024-01-02");
}

TEST(BinlogFixtures, CompressedEventsInflate) {
    Decoder dec;
    Decoded d = decode_fixture("compressed", dec);
    std::size_t compressed_rows = 0, compressed_queries = 0;
    for (EventType t : d.types) {
        compressed_rows += t == EventType::write_rows_compressed_v1 || t == EventType::update_rows_compressed_v1 ||
                           t == EventType::delete_rows_compressed_v1;
        compressed_queries += t == EventType::query_compressed;
    }
    EXPECT_EQ(compressed_rows, 3u);
    EXPECT_GE(compressed_queries, 1u);
    EXPECT_NE(d.queries[0].find("CREATE TABLE sluice.zipped"), std::string::npos);
    ASSERT_EQ(d.changes.size(), 5u);
    std::string body;
    for (int i = 0; i < 50; ++i) body += "compress me ";
    EXPECT_EQ(d.changes[0].after.at("body"), body);
    EXPECT_EQ(d.changes[0].type, EventType::write_rows_compressed_v1);
    EXPECT_EQ(d.changes[1].after.at("body"), "short");
    EXPECT_EQ(d.changes[2].before.at("body"), body);
    EXPECT_EQ(d.changes[2].after.at("body"), "changed");
    EXPECT_EQ(d.changes[3].before.at("id"), "2");
    EXPECT_EQ(d.changes[4].after.at("body"), "plain again");
    EXPECT_EQ(d.changes[4].type, EventType::write_rows_v1);
}

TEST(BinlogFixtures, XaPrepareAndCommit) {
    auto file = test::load_fixture("xa");
    Decoder dec;
    bool saw_prepare = false, saw_prepared_gtid = false, saw_completed_gtid = false;
    for (auto& bytes : test::split_events(file)) {
        Event ev = dec.decode(bytes);
        if (auto* g = std::get_if<Gtid>(&ev.body)) {
            if (g->xa_prepare()) {
                saw_prepared_gtid = true;
                ASSERT_TRUE(g->xa_xid.has_value());
                EXPECT_EQ(g->xa_xid->gtrid, "gtrid-1");
                EXPECT_EQ(g->xa_xid->bqual, "bq");
                EXPECT_EQ(g->xa_xid->format_id, 7u);
            }
            if (g->xa_complete()) {
                saw_completed_gtid = true;
                ASSERT_TRUE(g->xa_xid.has_value());
                EXPECT_EQ(g->xa_xid->gtrid, "gtrid-1");
            }
        }
        if (auto* x = std::get_if<XaPrepare>(&ev.body)) {
            saw_prepare = true;
            EXPECT_FALSE(x->one_phase);
            EXPECT_EQ(x->xid.gtrid, "gtrid-1");
            EXPECT_EQ(x->xid.bqual, "bq");
            EXPECT_EQ(x->xid.format_id, 7u);
        }
    }
    EXPECT_TRUE(saw_prepare);
    EXPECT_TRUE(saw_prepared_gtid);
    EXPECT_TRUE(saw_completed_gtid);
}

TEST(BinlogFixtures, OldTemporalFormatsNeedTheirPrecision) {
    {
        // Without the precision a MariaDB 5.3 TIME(3) cannot be sized: the
        // decoder must say so, not return a wrong row.
        Decoder dec;
        try {
            decode_fixture("old_temporal", dec);
            FAIL() << "decoded a 5.3-format TIME(3) without its precision";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("column 3 't3'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("old_temporal"), std::string::npos) << e.what();
        }
    }
    Decoder dec;
    dec.set_schema("sluice", "old_temporal",
                   TableSchema{{{"id", "int", -1},
                                {"t", "time", 0},
                                {"t3", "time", 3},
                                {"dt", "datetime", 0},
                                {"dt6", "datetime", 6},
                                {"ts", "timestamp", 0},
                                {"ts2", "timestamp", 2}}});
    Decoded d = decode_fixture("old_temporal", dec);
    ASSERT_EQ(d.changes.size(), 2u);
    std::map<std::string, std::string> want1 = {
        {"id", "1"}, {"t", "-12:34:56"}, {"t3", "-01:02:03.456"}, {"dt", "2024-02-29 13:14:15"},
        {"dt6", "2024-02-29 13:14:15.123456"}, {"ts", "2024-02-29 13:14:15"}, {"ts2", "2024-02-29 13:14:15.12"}};
    EXPECT_EQ(d.changes[0].after, want1);
    std::map<std::string, std::string> want2 = {
        {"id", "2"}, {"t", "838:59:59"}, {"t3", "00:00:00.001"}, {"dt", "0000-00-00 00:00:00"},
        {"dt6", "9999-12-31 23:59:59.999999"}, {"ts", "1970-01-01 00:00:01"}, {"ts2", "2038-01-19 03:14:07.99"}};
    EXPECT_EQ(d.changes[1].after, want2);
}

}  // namespace
}  // namespace sluice::mariadb::binlog
