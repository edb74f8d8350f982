#include "sluice/pipeline/ndjson_transaction.hpp"

#include <simdjson.h>

#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

const char* const roles[4] = {"id", "key", "ts", "value"};

const std::string& name_of(const ColumnNames& n, std::size_t role) {
    switch (role) {
        case 0: return n.id;
        case 1: return n.key;
        case 2: return n.ts;
        default: return n.value;
    }
}

[[noreturn]] void malformed(const std::string& where, const std::string& what) {
    throw Error(ErrorKind::source_image, where + ": " + what + " (not a sluice-mariadb cdc line?)");
}

// One image (an object keyed by column name) -> the four mapped cells.
RowImage image_of(const simdjson::dom::object& img, const ColumnNames& names, StringArena& arena, const std::string& db,
                  const std::string& table, const std::string& here, const std::string& which) {
    RowImage out;
    for (std::size_t role = 0; role < 4; ++role) {
        const std::string& col = name_of(names, role);
        element v;
        if (img[col].get(v))
            throw Error(ErrorKind::source_image, here + ": " + which + " of " + db + "." + table +
                                                     " lacks column \"" + col + "\" (--" + roles[role] +
                                                     (which == "a snapshot row" ? ")" : "; set binlog_row_image=FULL)"));
        switch (v.type()) {
            case element_type::NULL_VALUE: out[role] = SourceValue::null_value(); break;
            case element_type::INT64: out[role] = SourceValue::of_signed(v.get_int64().value_unsafe()); break;
            case element_type::UINT64: out[role] = SourceValue::of_unsigned(v.get_uint64().value_unsafe()); break;
            case element_type::DOUBLE: out[role] = SourceValue::of_double(v.get_double().value_unsafe()); break;
            case element_type::STRING: out[role] = SourceValue::of_text(arena.store(v.get_string().value_unsafe())); break;
            case element_type::BOOL: out[role] = SourceValue::of_signed(v.get_bool().value_unsafe() ? 1 : 0); break;
            default: malformed(here, "column \"" + col + "\" holds an array or object");
        }
    }
    return out;
}

// {"snapshot":{"gtid":G,"db":D,"table":T},"rows":[...]}, or
// {"snapshot":{"gtid":G,"done":true}} / {"snapshot":{"gtid":G,"aborted":true}}.
void parse_snapshot(ParsedLine& line, const simdjson::dom::object& obj, const simdjson::dom::object& snap,
                    const ColumnNames& names, StringArena& arena, const std::string& db, const std::string& table,
                    const std::string& where) {
    std::string_view gtid;
    if (snap["gtid"].get(gtid)) malformed(where, "a snapshot line without a \"gtid\" string");
    line.snapshot_gtid.assign(gtid);
    bool flag = false;
    if (!snap["done"].get(flag)) {
        if (!flag) malformed(where, "a snapshot line with \"done\" false");
        line.snapshot = SnapshotPart::done;
        return;
    }
    if (!snap["aborted"].get(flag)) {
        if (!flag) malformed(where, "a snapshot line with \"aborted\" false");
        line.snapshot = SnapshotPart::aborted;
        return;
    }
    std::string_view sdb, stable;
    if (snap["db"].get(sdb) || snap["table"].get(stable))
        malformed(where, "a snapshot chunk without \"db\" and \"table\" strings (and not done or aborted)");
    simdjson::dom::array rows;
    if (obj["rows"].get(rows)) malformed(where, "a snapshot chunk without a \"rows\" array");
    line.snapshot = SnapshotPart::chunk;
    if (sdb != db || stable != table) return;
    std::size_t index = 0;
    for (element r : rows) {
        const std::string here = where + ", row " + std::to_string(index++);
        simdjson::dom::object img;
        if (r.get(img)) malformed(here, "a snapshot row that is not an object");
        SourceChange c;
        c.op = SourceChange::Op::insert;
        c.after = image_of(img, names, arena, db, table, here, "a snapshot row");
        line.changes.push_back(c);
    }
}

}  // namespace

struct NdjsonTransactions::Parser {
    simdjson::dom::parser parser;
    simdjson::padded_string buffer;
};

NdjsonTransactions::NdjsonTransactions(ColumnNames names, std::string db, std::string table)
    : names_(std::move(names)), db_(std::move(db)), table_(std::move(table)), parser_(std::make_unique<Parser>()) {}
NdjsonTransactions::~NdjsonTransactions() = default;

const ParsedLine& NdjsonTransactions::parse(std::string_view text, const std::string& where) {
    line_.transaction = false;
    line_.snapshot = SnapshotPart::none;
    line_.snapshot_gtid.clear();
    line_.gtid.clear();
    line_.timestamp = 0;
    line_.changes.clear();
    arena_.clear();
    parser_->buffer = simdjson::padded_string(text);
    element root;
    if (auto err = parser_->parser.parse(parser_->buffer).get(root))
        malformed(where, std::string("malformed JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get(obj)) malformed(where, "not a JSON object");
    if (simdjson::dom::object snap; !obj["snapshot"].get(snap)) {
        parse_snapshot(line_, obj, snap, names_, arena_, db_, table_, where);
        return line_;
    }
    element changes;
    if (obj["changes"].get(changes)) return line_;  // DDL: nothing to apply
    std::string_view gtid;
    if (obj["gtid"].get(gtid)) malformed(where, "a transaction without a \"gtid\" string");
    line_.gtid.assign(gtid);
    std::uint64_t ts = 0;
    if (obj["ts"].get(ts) || ts > 0xFFFFFFFFULL) malformed(where, "a transaction without a \"ts\" integer");
    line_.timestamp = static_cast<std::uint32_t>(ts);
    simdjson::dom::array list;
    if (changes.get(list)) malformed(where, "\"changes\" is not an array");
    line_.transaction = true;
    std::size_t index = 0;
    for (element c : list) {
        const std::string here = where + ", change " + std::to_string(index++);
        std::string_view op, db, table;
        if (c["op"].get(op) || c["db"].get(db) || c["table"].get(table))
            malformed(here, "a change without \"op\", \"db\" and \"table\" strings");
        if (db != db_ || table != table_) continue;
        SourceChange s;
        if (op == "insert") s.op = SourceChange::Op::insert;
        else if (op == "update") s.op = SourceChange::Op::update;
        else if (op == "delete") s.op = SourceChange::Op::remove;
        else malformed(here, "unknown op \"" + std::string(op) + "\"");
        auto image = [&](const char* which) {
            simdjson::dom::object img;
            if (c[which].get(img)) malformed(here, std::string(op == "delete" ? "a " : "an ") + std::string(op) + " without a \"" + which + "\" object");
            return image_of(img, names_, arena_, db_, table_, here, "the " + std::string(which) + " image of a row");
        };
        if (s.op != SourceChange::Op::insert) s.before = image("before");
        if (s.op != SourceChange::Op::remove) s.after = image("after");
        line_.changes.push_back(s);
    }
    return line_;
}

}  // namespace sluice::pipeline
