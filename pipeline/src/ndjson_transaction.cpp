#include "sluice/pipeline/ndjson_transaction.hpp"

#include "sluice/mariadb/error.hpp"
#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

namespace line = sluice::mariadb::cdc::ndjson;

namespace {

std::vector<line::PickedColumn> picked(const ColumnNames& n) {
    return {{n.id, "--id"}, {n.key, "--key"}, {n.ts, "--ts"}, {n.value, "--value"}};
}

SourceValue source_value(const line::LineValue& v) {
    switch (v.kind) {
        case line::LineValue::Kind::null: return SourceValue::null_value();
        case line::LineValue::Kind::signed_integer: return SourceValue::of_signed(v.i);
        case line::LineValue::Kind::unsigned_integer: return SourceValue::of_unsigned(v.u);
        case line::LineValue::Kind::floating: return SourceValue::of_double(v.d);
        case line::LineValue::Kind::text: return SourceValue::of_text(v.text);
    }
    return SourceValue::null_value();
}

RowImage image_of(std::span<const line::LineValue> values) {
    RowImage out;
    for (std::size_t role = 0; role < 4; ++role) out[role] = source_value(values[role]);
    return out;
}

}  // namespace

NdjsonTransactions::NdjsonTransactions(const ColumnNames& names, std::string db, std::string table)
    : reader_(picked(names), std::move(db), std::move(table)) {}

const ParsedLine& NdjsonTransactions::parse(std::string_view text, const std::string& where) {
    const line::Line* l = nullptr;
    try {
        l = &reader_.parse(text, where);
        line_.part_step = parts_.next(*l, where);
    } catch (const mariadb::Error& e) {
        // The line is the source's image of its rows, as a binlog event is.
        throw Error(ErrorKind::source_image, e.what());
    }
    line_.transaction = l->kind == line::LineKind::transaction;
    line_.gtid.clear();
    line_.snapshot_gtid.clear();
    line_.timestamp = l->timestamp;
    line_.part = l->part;
    switch (l->kind) {
        case line::LineKind::snapshot_chunk: line_.snapshot = SnapshotPart::chunk; break;
        case line::LineKind::snapshot_done: line_.snapshot = SnapshotPart::done; break;
        case line::LineKind::snapshot_aborted: line_.snapshot = SnapshotPart::aborted; break;
        default: line_.snapshot = SnapshotPart::none; break;
    }
    if (line_.transaction) line_.gtid.assign(l->gtid);
    else if (line_.snapshot != SnapshotPart::none) line_.snapshot_gtid.assign(l->gtid);
    line_.changes.clear();
    // A huge transaction's 8 MiB first part leaves room for ~50 MiB of
    // changes; the 1 MiB parts after it (and every small transaction after
    // that) need an eighth of it, so the vector is given back when it is
    // far larger than the line needs (the reader does the same with its
    // parser, LineReader).
    if (line_.changes.capacity() > 4 * l->changes.size() + 16384) std::vector<SourceChange>().swap(line_.changes);
    line_.changes.reserve(l->changes.size());
    for (const line::LineChange& c : l->changes) {
        SourceChange s;
        switch (c.op) {
            case line::RowOp::insert: s.op = SourceChange::Op::insert; break;
            case line::RowOp::update: s.op = SourceChange::Op::update; break;
            case line::RowOp::remove: s.op = SourceChange::Op::remove; break;
        }
        if (!c.before.empty()) s.before = image_of(c.before);
        if (!c.after.empty()) s.after = image_of(c.after);
        line_.changes.push_back(s);
    }
    return line_;
}

}  // namespace sluice::pipeline
