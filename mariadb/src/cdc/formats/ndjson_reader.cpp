#include "sluice/mariadb/cdc/ndjson_reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::ndjson {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

[[noreturn]] void malformed(const std::string& where, const std::string& what) {
    throw Error(ErrorKind::protocol, where + ": " + what + " (not a sluice-mariadb cdc line?)");
}

// The writer prints a DOUBLE in its shortest form, which for some values of
// 2^64 and above has no exponent: 150916611789446217728, an integer
// literal wider than 64 bits, which simdjson refuses (NUMBER_ERROR). Such a
// literal denotes that double: given an exponent ("...e0") it parses as
// one, to the same value (the text is the double's shortest round trip).
// Only called on a line that failed to parse.
std::string with_wide_integers_as_doubles(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 16);
    bool in_string = false;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (in_string) {
            out.push_back(c);
            if (c == '\\' && i + 1 < text.size()) out.push_back(text[++i]);
            else if (c == '"') in_string = false;
            ++i;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out.push_back(c);
            ++i;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t end = i + (c == '-' ? 1 : 0);
            while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
            const std::string_view number = text.substr(i, end - i);
            out.append(number);
            const bool fraction_or_exponent =
                end < text.size() && (text[end] == '.' || text[end] == 'e' || text[end] == 'E');
            if (!fraction_or_exponent) {
                bool fits = true;
                if (c == '-') {
                    std::int64_t v = 0;
                    fits = std::from_chars(number.data(), number.data() + number.size(), v).ec == std::errc();
                } else {
                    std::uint64_t v = 0;
                    fits = std::from_chars(number.data(), number.data() + number.size(), v).ec == std::errc();
                }
                if (!fits) out += "e0";
            }
            i = end;
            continue;
        }
        out.push_back(c);
        ++i;
    }
    return out;
}

}  // namespace

struct LineReader::Parser {
    simdjson::dom::parser parser;
    simdjson::padded_string buffer;
    // Every image's values, one after the other; a change's images are
    // offsets into it until parse() ends (the vector may move meanwhile).
    std::vector<LineValue> values;
    struct Images {
        std::size_t before = npos, after = npos;
    };
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::vector<Images> images;

    // The largest line since the buffers were last released. simdjson's
    // parser keeps the capacity of the largest document it parsed (about 8
    // bytes of tape and a string copy per byte), and the value and image
    // vectors those of the line with the most changes: after one 8 MiB part
    // line the reader would hold ~120 MiB for 1 MiB lines ever after (a
    // JetStream worker reads a huge transaction's first part at the full
    // line bound and its later parts at 1 MiB). So a line under a quarter of
    // the largest one, when that was over 2 MiB, gives the memory back first.
    static constexpr std::size_t keep_below = std::size_t{2} << 20;
    std::size_t largest = 0;
    void fit(std::size_t next_line) {
        if (largest > keep_below && next_line < largest / 4) {
            parser = simdjson::dom::parser();
            std::vector<LineValue>().swap(values);
            std::vector<Images>().swap(images);
            largest = 0;
        }
        largest = std::max(largest, next_line);
    }

    // One image (an object keyed by column name) -> the picked columns'
    // values, appended; returns where they start.
    std::size_t image(const simdjson::dom::object& img, const std::vector<PickedColumn>& columns,
                      const std::string& db, const std::string& table, const std::string& here,
                      const std::string& which) {
        const std::size_t at = values.size();
        for (const PickedColumn& col : columns) {
            element v;
            if (img[col.name].get(v)) {
                std::string hint = which == "a snapshot row" ? col.label
                                                             : (col.label.empty() ? "" : col.label + "; ") +
                                                                   "set binlog_row_image=FULL";
                throw Error(ErrorKind::protocol, here + ": " + which + " of " + db + "." + table + " lacks column \"" +
                                                     col.name + "\"" + (hint.empty() ? "" : " (" + hint + ")"));
            }
            LineValue out;
            switch (v.type()) {
                case element_type::NULL_VALUE: break;
                case element_type::INT64:
                    out.kind = LineValue::Kind::signed_integer;
                    out.i = v.get_int64().value_unsafe();
                    break;
                case element_type::UINT64:
                    out.kind = LineValue::Kind::unsigned_integer;
                    out.u = v.get_uint64().value_unsafe();
                    break;
                case element_type::DOUBLE:
                    out.kind = LineValue::Kind::floating;
                    out.d = v.get_double().value_unsafe();
                    break;
                case element_type::STRING:
                    out.kind = LineValue::Kind::text;
                    out.text = v.get_string().value_unsafe();
                    break;
                case element_type::BOOL:
                    out.kind = LineValue::Kind::signed_integer;
                    out.i = v.get_bool().value_unsafe() ? 1 : 0;
                    break;
                default: malformed(here, "column \"" + col.name + "\" holds an array or object");
            }
            values.push_back(out);
        }
        return at;
    }
};

LineReader::LineReader(std::vector<PickedColumn> columns, std::string db, std::string table)
    : columns_(std::move(columns)), db_(std::move(db)), table_(std::move(table)), parser_(std::make_unique<Parser>()) {}
LineReader::~LineReader() = default;

std::size_t LineReader::held_bytes() const noexcept {
    const Parser& p = *parser_;
    // simdjson's parser holds about a tape word (8 bytes) and a string byte
    // per byte of capacity.
    return p.parser.capacity() * 9 + p.values.capacity() * sizeof(LineValue) +
           p.images.capacity() * sizeof(Parser::Images);
}

const Line& LineReader::parse(std::string_view text, const std::string& where) {
    Parser& p = *parser_;
    p.fit(text.size());
    line_ = Line{};
    line_.changes.clear();
    p.values.clear();
    p.images.clear();
    p.buffer = simdjson::padded_string(text);
    element root;
    auto err = p.parser.parse(p.buffer).get(root);
    if (err == simdjson::NUMBER_ERROR) {
        p.buffer = simdjson::padded_string(with_wide_integers_as_doubles(text));
        err = p.parser.parse(p.buffer).get(root);
    }
    if (err) malformed(where, std::string("malformed JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get(obj)) malformed(where, "not a JSON object");
    if (simdjson::dom::object snap; !obj["snapshot"].get(snap)) {
        // {"snapshot":{"gtid":G,"db":D,"table":T},"rows":[...]}, or
        // {"snapshot":{"gtid":G,"done":true}} / {"snapshot":{"gtid":G,"aborted":true}}.
        if (snap["gtid"].get(line_.gtid)) malformed(where, "a snapshot line without a \"gtid\" string");
        for (const auto& [key, kind] : {std::pair{"done", LineKind::snapshot_done},
                                        std::pair{"aborted", LineKind::snapshot_aborted}}) {
            bool flag = false;
            if (snap[key].get(flag)) continue;
            if (!flag) malformed(where, std::string("a snapshot line with \"") + key + "\" false");
            line_.kind = kind;
            return line_;
        }
        std::string_view sdb, stable;
        if (snap["db"].get(sdb) || snap["table"].get(stable))
            malformed(where, "a snapshot chunk without \"db\" and \"table\" strings (and not done or aborted)");
        simdjson::dom::array rows;
        if (obj["rows"].get(rows)) malformed(where, "a snapshot chunk without a \"rows\" array");
        line_.kind = LineKind::snapshot_chunk;
        if (sdb != db_ || stable != table_) return line_;
        std::size_t index = 0;
        for (element r : rows) {
            const std::string here = where + ", row " + std::to_string(index++);
            simdjson::dom::object img;
            if (r.get(img)) malformed(here, "a snapshot row that is not an object");
            line_.changes.push_back({RowOp::insert, {}, {}});
            p.images.push_back({Parser::npos, p.image(img, columns_, db_, table_, here, "a snapshot row")});
        }
    } else {
        element changes;
        if (obj["changes"].get(changes)) return line_;  // DDL: nothing to apply
        if (obj["gtid"].get(line_.gtid)) malformed(where, "a transaction without a \"gtid\" string");
        std::uint64_t ts = 0;
        if (obj["ts"].get(ts) || ts > 0xFFFFFFFFULL) malformed(where, "a transaction without a \"ts\" integer");
        line_.timestamp = static_cast<std::uint32_t>(ts);
        if (element part; !obj["part"].get(part)) {
            if (part.get(line_.part) || line_.part == 0) malformed(where, "\"part\" is not an integer from 1 up");
            for (const auto& [key, flag] : {std::pair{"last", &line_.last}, std::pair{"rolled_back", &line_.rolled_back}}) {
                element v;
                if (obj[key].get(v)) continue;
                if (v.get(*flag) || !*flag) malformed(where, std::string("\"") + key + "\" is not true");
            }
            if (line_.rolled_back && !line_.last) malformed(where, "\"rolled_back\" on a part that is not \"last\"");
        } else if (!obj["last"].error() || !obj["rolled_back"].error()) {
            malformed(where, "\"last\" or \"rolled_back\" on a line without \"part\"");
        }
        simdjson::dom::array list;
        if (changes.get(list)) malformed(where, "\"changes\" is not an array");
        line_.kind = LineKind::transaction;
        std::size_t index = 0;
        for (element c : list) {
            const std::string here = where + ", change " + std::to_string(index++);
            std::string_view op, db, table;
            if (c["op"].get(op) || c["db"].get(db) || c["table"].get(table))
                malformed(here, "a change without \"op\", \"db\" and \"table\" strings");
            if (db != db_ || table != table_) continue;
            LineChange change;
            if (op == "insert") change.op = RowOp::insert;
            else if (op == "update") change.op = RowOp::update;
            else if (op == "delete") change.op = RowOp::remove;
            else malformed(here, "unknown op \"" + std::string(op) + "\"");
            auto image = [&](const char* which) {
                simdjson::dom::object img;
                if (c[which].get(img))
                    malformed(here, std::string(op == "delete" ? "a " : "an ") + std::string(op) + " without a \"" +
                                        which + "\" object");
                return p.image(img, columns_, db_, table_, here, "the " + std::string(which) + " image of a row");
            };
            Parser::Images at;
            if (change.op != RowOp::insert) at.before = image("before");
            if (change.op != RowOp::remove) at.after = image("after");
            line_.changes.push_back(change);
            p.images.push_back(at);
        }
    }
    // The values are in place: the images can view them.
    const std::span<const LineValue> all(p.values);
    for (std::size_t i = 0; i < line_.changes.size(); ++i) {
        if (p.images[i].before != Parser::npos) line_.changes[i].before = all.subspan(p.images[i].before, columns_.size());
        if (p.images[i].after != Parser::npos) line_.changes[i].after = all.subspan(p.images[i].after, columns_.size());
    }
    return line_;
}

PartSequence::Step PartSequence::next(const Line& line, const std::string& where) {
    const bool is_part = line.kind == LineKind::transaction && line.part != 0;
    if (next_part_ == 0) {
        if (!is_part) return Step::whole;
        if (line.part != 1)
            throw Error(ErrorKind::protocol, where + ", \"part\": part " + std::to_string(line.part) + " of " +
                                                 std::string(line.gtid) + " without its part 1");
        if (line.last) return line.rolled_back ? Step::rolled_back : Step::whole;  // one part: the whole transaction
        gtid_ = std::string(line.gtid);
        timestamp_ = line.timestamp;
        next_part_ = 2;
        return Step::opens;
    }
    const std::string awaiting = "transaction " + gtid_ + " awaits its part " + std::to_string(next_part_);
    if (!is_part) throw Error(ErrorKind::protocol, where + ", \"part\": a line that is not a part while " + awaiting);
    if (line.gtid != gtid_)
        throw Error(ErrorKind::protocol, where + ", \"gtid\": " + std::string(line.gtid) + " while " + awaiting);
    if (line.timestamp != timestamp_)
        throw Error(ErrorKind::protocol, where + ", \"ts\": " + std::to_string(line.timestamp) + ", not the " +
                                             std::to_string(timestamp_) + " of the transaction's part 1");
    if (line.part != next_part_)
        throw Error(ErrorKind::protocol, where + ", \"part\": part " + std::to_string(line.part) + " while " + awaiting);
    if (line.last) {
        next_part_ = 0;
        return line.rolled_back ? Step::rolled_back : Step::completes;
    }
    ++next_part_;
    return Step::continues;
}

void PartSequence::finish(const std::string& where) const {
    if (next_part_ != 0)
        throw Error(ErrorKind::protocol, where + ": the input ends while transaction " + gtid_ + " awaits its part " +
                                             std::to_string(next_part_) + " (its last part is missing)");
}

double float_value_as_read(float value) noexcept {
    // The writer's text of the float (json::write_float: its shortest
    // round-trip decimal form), read back as a double. (Infinities and NaN
    // are written as strings; zero as 0.)
    if (!std::isfinite(value) || value == 0) return static_cast<double>(value);
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, value);
    double d = 0;
    std::from_chars(text, written.ptr, d);
    return d;
}

}  // namespace sluice::mariadb::cdc::ndjson
