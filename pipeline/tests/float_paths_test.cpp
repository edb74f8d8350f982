// A FLOAT value column gives the pipeline the same double whichever way the
// row came: from the binlog (BinlogAdapter), or as a CDC NDJSON line from a
// JetStream stream (NdjsonTransactions), and the same as a snapshot's
// SELECT text: the double nearest the float's shortest decimal text
// (docs/mariadb-cdc.md, "FLOAT").
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/pipeline/binlog_adapter.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"

namespace sluice::pipeline {
namespace {

namespace binlog = sluice::mariadb::binlog;
using mariadb::ColumnType;

binlog::TableMap table() {
    binlog::TableMap t;
    t.table_id = 1;
    t.db = "shop";
    t.table = "ev";
    t.has_column_names = true;
    for (auto [name, type] : {std::pair{"id", ColumnType::longlong}, {"k", ColumnType::varchar},
                              {"t", ColumnType::longlong}, {"v", ColumnType::float_}}) {
        binlog::ColumnInfo c;
        c.type = type;
        c.binlog_type = type;
        c.name = name;
        c.has_name = true;
        t.columns.push_back(c);
    }
    return t;
}

struct Paths {
    double binlog = 0;
    double line = 0;
};

Paths value_of(float v) {
    const binlog::TableMap t = table();
    std::vector<binlog::Cell> cells(4);
    for (auto& c : cells) c.present = true;
    cells[0].value = std::int64_t{1};
    cells[1].value = binlog::Text{"a"};
    cells[2].value = std::int64_t{5};
    cells[3].value = v;
    mariadb::cdc::Change change{binlog::RowsKind::write, &t, {}, cells};
    BinlogAdapter adapter({"id", "k", "t", "v"});
    StringArena scratch;
    Paths p;
    const SourceValue b = (*adapter.change(change, scratch).after)[3];
    EXPECT_EQ(b.kind, SourceValue::Kind::floating);
    p.binlog = b.d;

    std::string line = R"({"gtid":"0-1-1","server_id":1,"ts":1,"changes":[{"op":"insert","db":"shop","table":"ev","after":)";
    mariadb::cdc::ndjson::append_image(line, cells, t);
    line += "}]}";
    NdjsonTransactions reader({"id", "k", "t", "v"}, "shop", "ev");
    const SourceValue l = (*reader.parse(line, "test").changes.at(0).after)[3];
    // An integral float is written as an integer ("16777216").
    p.line = l.kind == SourceValue::Kind::floating         ? l.d
             : l.kind == SourceValue::Kind::signed_integer ? static_cast<double>(l.i)
                                                           : -1;
    return p;
}

TEST(FloatColumns, TheBinlogAndTheLineGiveTheDoubleOfTheFloatsDecimalText) {
    const Paths tenth = value_of(0.1F);
    EXPECT_EQ(tenth.binlog, 0.1);  // not 0.100000001490116..., the float's binary value
    EXPECT_EQ(tenth.line, 0.1);
    EXPECT_EQ(value_of(1.2345678F).binlog, 1.2345678);
    EXPECT_EQ(value_of(16777216.0F).binlog, 16777216.0);
    EXPECT_EQ(value_of(-2.5F).binlog, -2.5);
    std::mt19937 rng(30);
    for (int i = 0; i < 2000; ++i) {
        const auto bits = static_cast<std::uint32_t>(rng());
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        if (!std::isfinite(f) || f == 0) continue;
        const Paths p = value_of(f);
        EXPECT_EQ(p.binlog, p.line) << f;
        EXPECT_EQ(static_cast<float>(p.binlog), f) << "nothing of the float is lost";
    }
}

}  // namespace
}  // namespace sluice::pipeline
