// The checkpoint codec: the layout of a Checkpoint is written down once, in
// describe(), and four archives walk it: JSON writer and reader, binary
// writer and reader. A field added to describe() is written and read by both
// encodings, in the same place; there are no mirrored hand-kept functions.
//
// Readers check structure only (members, types, ranges, lengths) and name
// the place of every problem ("keys[0].events[1][2]: ..."); whether the
// state is reachable is Engine::restore's check, the same for both
// encodings. Inside this file a problem is thrown as an Error and caught by
// decode_json / decode_binary, which return it.
#include <simdjson.h>

#include <array>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "json_out.hpp"
#include "limits.hpp"
#include "messages.hpp"
#include "sluice/tideweave/checkpoint.hpp"
#include "strict_json.hpp"

namespace sluice::tideweave {
namespace {

// ---- the layout ----

// JSON: {"format":"tideweave-checkpoint-1","gap":..,"lateness":..,"version":..,
// "line":..,"watermark":..|null,["source":"<hex>",]"keys":[{"key":..,"blocks":
// [{"first":..,"last":..,"count":..,"min":..,"max":..,"sum":[..]}],"events":
// [[ts,id,value],..],"final":[..]},..]} (docs/tideweave.md, "Checkpoint format").
// Binary: the same fields in the same order; see BinaryWriter.
template <typename A>
void describe(A& a, Checkpoint& c) {
    a.object("checkpoint", [&] {
        a.format("format");
        a.integer("gap", c.config.gap);
        a.integer("lateness", c.config.lateness);
        a.integer("version", c.version);
        a.integer("line", c.line);
        a.nullable_integer("watermark", c.watermark);
        a.source("source", c.source_position);
        a.list("keys", c.keys, [&](CheckpointKey& k) {
            a.object("", [&] {
                a.key("key", k.key);
                a.list("blocks", k.blocks, [&](CheckpointBlock& b) {
                    a.object("", [&] {
                        a.integer("first", b.first);
                        a.integer("last", b.last);
                        a.integer("count", b.count);
                        a.number("min", b.min);
                        a.number("max", b.max);
                        a.list("sum", b.sum_parts, [&](double& part) { a.number("", part); });
                    });
                });
                a.list("events", k.events, [&](CheckpointEvent& e) {
                    a.tuple("[ts, id, value]", 3, [&] {
                        a.integer("", e.ts);
                        a.id("", e.id);
                        a.number("", e.value);
                    });
                });
                a.list("final", k.final_starts, [&](std::int64_t& start) { a.integer("", start); });
            });
        });
    });
}

constexpr std::string_view binary_magic = "TWCK";
constexpr std::uint8_t binary_format_version = 1;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw messages::checkpoint_error(path, what);
}

// Where a reader is, for messages: the top object is "checkpoint" and its
// members are named bare ("gap"); below, "keys[0].blocks[1].sum[2]".
class Path {
public:
    // The path of the next value: a member of the current object, or the
    // current element of a list or tuple.
    std::string next(std::string_view name) const {
        if (frames_.empty()) return std::string(name);
        const Frame& f = frames_.back();
        if (f.is_object) return f.member_prefix + std::string(name);
        return f.path + "[" + std::to_string(f.index) + "]";
    }
    void push_object(std::string path, bool top) {
        std::string prefix = top ? "" : path + ".";
        frames_.push_back({true, std::move(path), std::move(prefix), 0});
    }
    void push_sequence(std::string path) { frames_.push_back({false, std::move(path), "", 0}); }
    void advance() { ++frames_.back().index; }
    void pop() { frames_.pop_back(); }
    bool at_top() const { return frames_.empty(); }

private:
    struct Frame {
        bool is_object;
        std::string path;
        std::string member_prefix;
        std::size_t index;
    };
    std::vector<Frame> frames_;
};

// ---- JSON ----

class JsonWriter {
public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    template <typename F>
    void object(std::string_view name, F&& body) {
        begin_value(name);
        out_.push_back('{');
        first_.push_back(true);
        body();
        first_.pop_back();
        out_.push_back('}');
    }
    template <typename F>
    void tuple(std::string_view, std::size_t, F&& body) {
        begin_value("");
        out_.push_back('[');
        first_.push_back(true);
        body();
        first_.pop_back();
        out_.push_back(']');
    }
    template <typename T, typename F>
    void list(std::string_view name, std::vector<T>& items, F&& item) {
        begin_value(name);
        out_.push_back('[');
        first_.push_back(true);
        for (T& x : items) item(x);
        first_.pop_back();
        out_.push_back(']');
    }
    void format(std::string_view name) {
        begin_value(name);
        json::append_string(out_, checkpoint_format);
    }
    void integer(std::string_view name, std::int64_t& v) {
        begin_value(name);
        json::append_int(out_, v);
    }
    void nullable_integer(std::string_view name, std::optional<std::int64_t>& v) {
        begin_value(name);
        if (v) {
            json::append_int(out_, *v);
        } else {
            out_.append("null");
        }
    }
    void number(std::string_view name, double& v) {
        begin_value(name);
        json::append_number(out_, v);
    }
    void key(std::string_view name, std::string& s) { string(name, s); }
    void id(std::string_view name, std::string& s) { string(name, s); }
    // Absent when empty, so checkpoints without a source position keep the
    // bytes the CLI always wrote.
    void source(std::string_view name, std::string& bytes) {
        if (bytes.empty()) return;
        begin_value(name);
        static constexpr char digits[] = "0123456789abcdef";
        out_.push_back('"');
        for (const char ch : bytes) {
            const auto b = static_cast<unsigned char>(ch);
            out_.push_back(digits[b >> 4]);
            out_.push_back(digits[b & 15]);
        }
        out_.push_back('"');
    }

private:
    void string(std::string_view name, std::string& s) {
        begin_value(name);
        json::append_string(out_, s);
    }
    void begin_value(std::string_view name) {
        if (first_.empty()) return;  // the top object
        if (!first_.back()) out_.push_back(',');
        first_.back() = false;
        if (!name.empty()) {
            out_.push_back('"');
            out_.append(name);
            out_.append("\":");
        }
    }
    std::string& out_;
    std::vector<bool> first_;
};

using simdjson::dom::element;

// Reads a simdjson DOM against describe(). An object is read in two passes:
// first describe() only names its members (naming mode), so that unknown,
// duplicate and missing members are reported before any value; then every
// member is read in describe()'s order.
class JsonReader {
public:
    explicit JsonReader(element root) : root_(root) {}

    template <typename F>
    void object(std::string_view name, F&& body) {
        if (naming(name)) return;
        const std::string path = path_.at_top() ? std::string(name) : path_.next(name);
        const element e = take(name);
        simdjson::dom::object obj;
        if (e.get_object().get(obj)) fail(path, "expected an object");
        // Pass 1: the names describe() gives this object.
        std::vector<std::string_view> names;
        names_ = &names;
        body();
        names_ = nullptr;
        std::vector<element> found(names.size());
        std::vector<bool> seen(names.size());
        for (auto field : obj) {
            std::size_t i = 0;
            while (i < names.size() && names[i] != field.key) ++i;
            if (i == names.size()) fail(path, "unknown member \"" + std::string(field.key) + "\"");
            if (seen[i]) fail(path, "duplicate member \"" + std::string(field.key) + "\"");
            seen[i] = true;
            found[i] = field.value;
        }
        for (std::size_t i = 0; i < names.size(); ++i)
            if (!seen[i] && names[i] != "source") fail(path, "missing member \"" + std::string(names[i]) + "\"");
        // Pass 2: the values, in order.
        const bool top = path_.at_top();
        contexts_.push_back(Context{std::move(names), std::move(found), std::move(seen), {}, false});
        path_.push_object(path, top);
        body();
        path_.pop();
        contexts_.pop_back();
    }
    template <typename F>
    void tuple(std::string_view shape, std::size_t size, F&& body) {
        if (naming("")) return;
        const std::string path = path_.next("");
        simdjson::dom::array arr;
        if (take("").get_array().get(arr)) fail(path, "expected an array");
        if (arr.size() != size) fail(path, "expected " + std::string(shape));
        contexts_.push_back(Context{{}, {}, {}, arr.begin(), true});
        path_.push_sequence(path);
        body();
        path_.pop();
        contexts_.pop_back();
    }
    template <typename T, typename F>
    void list(std::string_view name, std::vector<T>& items, F&& item) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        simdjson::dom::array arr;
        if (take(name).get_array().get(arr)) fail(path, "expected an array");
        items.clear();
        items.reserve(arr.size());
        contexts_.push_back(Context{{}, {}, {}, arr.begin(), true});
        path_.push_sequence(path);
        for (std::size_t i = 0; i < arr.size(); ++i) item(items.emplace_back());
        path_.pop();
        contexts_.pop_back();
    }
    void format(std::string_view name) {
        if (naming(name)) return;
        std::string_view tag;
        if (!strict::read_string(take(name), tag) || tag != checkpoint_format)
            fail(path_.next(name), "expected \"" + std::string(checkpoint_format) + "\"");
    }
    void integer(std::string_view name, std::int64_t& v) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        std::string problem;
        if (!strict::read_ts(take(name), v, problem)) fail(path, problem);
    }
    void nullable_integer(std::string_view name, std::optional<std::int64_t>& v) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        const element e = take(name);
        if (e.is_null()) {
            v.reset();
            return;
        }
        std::int64_t x = 0;
        std::string problem;
        if (!strict::read_ts(e, x, problem)) fail(path, problem);
        v = x;
    }
    void number(std::string_view name, double& v) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        std::string problem;
        if (!strict::read_value(take(name), v, problem)) fail(path, problem);
    }
    void key(std::string_view name, std::string& s) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        std::string_view text;
        std::string problem;
        if (!strict::read_key(take(name), text, problem)) fail(path, problem);
        s.assign(text);
    }
    void id(std::string_view name, std::string& s) {
        if (naming(name)) return;
        const std::string path = path_.next(name);
        std::string_view text;
        std::string problem;
        if (!strict::read_id(take(name), text, problem)) fail(path, problem);
        s.assign(text);
    }
    void source(std::string_view name, std::string& bytes) {
        if (naming(name)) return;
        bytes.clear();
        if (!present(name)) return;
        const std::string path = path_.next(name);
        std::string_view hex;
        const auto nibble = [](char ch) {
            return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        };
        if (!strict::read_string(take(name), hex) || hex.size() % 2 != 0)
            fail(path, "expected a string of lowercase hex digits, two per byte");
        for (std::size_t i = 0; i < hex.size(); i += 2) {
            const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
            if (hi < 0 || lo < 0) fail(path, "expected a string of lowercase hex digits, two per byte");
            bytes.push_back(static_cast<char>(hi * 16 + lo));
        }
    }

private:
    // An object being read (its members, found in pass 1) or a list or
    // tuple (the next element).
    struct Context {
        std::vector<std::string_view> names;
        std::vector<element> found;
        std::vector<bool> seen;
        simdjson::dom::array::iterator next;
        bool sequence = false;
    };

    bool naming(std::string_view name) {
        if (names_ == nullptr) return false;
        names_->push_back(name);
        return true;
    }
    bool present(std::string_view name) const {
        const Context& c = contexts_.back();
        for (std::size_t i = 0; i < c.names.size(); ++i)
            if (c.names[i] == name) return c.seen[i];
        return false;
    }
    // The next value: the named member of the current object, the next
    // element of the current list or tuple, or the root.
    element take(std::string_view name) {
        if (contexts_.empty()) return root_;
        Context& c = contexts_.back();
        if (c.sequence) {
            const element e = *c.next;
            ++c.next;
            path_.advance();
            return e;
        }
        for (std::size_t i = 0; i < c.names.size(); ++i)
            if (c.names[i] == name) return c.found[i];
        return root_;  // unreachable: pass 1 checked every name
    }

    element root_;
    std::vector<std::string_view>* names_ = nullptr;
    std::vector<Context> contexts_;
    Path path_;
};

// ---- binary ----

// Integers as zigzag LEB128 varints, doubles as their 8 bytes little-endian,
// strings as a varint length and the bytes, a nullable as a byte 0 or 1 and
// the value, a list as a varint count and the items; objects and tuples are
// just their fields in describe()'s order. It starts with "TWCK" and a
// format byte (1). A typical event costs 1-3 bytes of ts, the id's length
// and bytes, and 8 bytes of value.
class BinaryWriter {
public:
    explicit BinaryWriter(std::string& out) : out_(out) {}

    template <typename F>
    void object(std::string_view, F&& body) { body(); }
    template <typename F>
    void tuple(std::string_view, std::size_t, F&& body) { body(); }
    template <typename T, typename F>
    void list(std::string_view, std::vector<T>& items, F&& item) {
        varint(items.size());
        for (T& x : items) item(x);
    }
    void format(std::string_view) {
        out_.append(binary_magic);
        out_.push_back(static_cast<char>(binary_format_version));
    }
    void integer(std::string_view, std::int64_t& v) {
        const auto u = static_cast<std::uint64_t>(v);
        varint((u << 1) ^ (v < 0 ? ~std::uint64_t{0} : 0));
    }
    void nullable_integer(std::string_view name, std::optional<std::int64_t>& v) {
        out_.push_back(v ? 1 : 0);
        if (v) integer(name, *v);
    }
    void number(std::string_view, double& v) {
        const auto bits = std::bit_cast<std::uint64_t>(v);
        for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    }
    void key(std::string_view, std::string& s) { bytes(s); }
    void id(std::string_view, std::string& s) { bytes(s); }
    void source(std::string_view, std::string& s) { bytes(s); }

private:
    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    void bytes(const std::string& s) {
        varint(s.size());
        out_.append(s);
    }
    std::string& out_;
};

// Reads what BinaryWriter wrote; every read is bounded by the bytes left and
// names its place. Counts and lengths larger than the bytes left are
// rejected before anything is allocated for them.
class BinaryReader {
public:
    explicit BinaryReader(std::string_view in) : in_(in) {}

    template <typename F>
    void object(std::string_view name, F&& body) {
        const bool top = path_.at_top();
        path_.push_object(top ? std::string(name) : path_.next(name), top);
        body();
        path_.pop();
    }
    // A tuple's elements are named by the tuple's place.
    template <typename F>
    void tuple(std::string_view, std::size_t, F&& body) { body(); }
    template <typename T, typename F>
    void list(std::string_view name, std::vector<T>& items, F&& item) {
        const std::string path = path_.next(name);
        const std::uint64_t n = varint(path);
        if (n > in_.size() - pos_) fail(path, "a count of " + std::to_string(n) + " items is more than the bytes left");
        items.clear();
        items.reserve(n);
        path_.push_sequence(path);
        for (std::uint64_t i = 0; i < n; ++i) {
            item(items.emplace_back());
            path_.advance();
        }
        path_.pop();
    }
    void format(std::string_view name) {
        const std::string path = path_.next(name);
        if (in_.substr(0, binary_magic.size()) != binary_magic)
            fail(path, "expected the binary checkpoint magic \"TWCK\"");
        pos_ = binary_magic.size();
        const std::uint8_t version = byte(path);
        if (version != binary_format_version)
            fail(path, "binary checkpoint format " + std::to_string(version) + " is not supported (expected 1)");
    }
    void integer(std::string_view name, std::int64_t& v) {
        const std::uint64_t u = varint(path_.next(name));
        v = static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
    }
    void nullable_integer(std::string_view name, std::optional<std::int64_t>& v) {
        const std::uint8_t flag = byte(path_.next(name));
        if (flag > 1) fail(path_.next(name), "expected 0 (null) or 1");
        if (flag == 0) {
            v.reset();
            return;
        }
        std::int64_t x = 0;
        integer(name, x);
        v = x;
    }
    void number(std::string_view name, double& v) {
        const std::string path = path_.next(name);
        if (in_.size() - pos_ < 8) fail(path, "truncated (a number needs 8 bytes)");
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits |= std::uint64_t{static_cast<unsigned char>(in_[pos_ + static_cast<std::size_t>(i)])} << (8 * i);
        pos_ += 8;
        v = std::bit_cast<double>(bits);
        if (!std::isfinite(v)) fail(path, "expected a finite number");
    }
    void key(std::string_view name, std::string& s) { bytes(name, s, max_key_bytes); }
    void id(std::string_view name, std::string& s) { bytes(name, s, max_id_bytes); }
    void source(std::string_view name, std::string& s) { bytes(name, s, in_.size()); }

    void finish() const {
        if (pos_ != in_.size())
            fail("checkpoint", std::to_string(in_.size() - pos_) + " bytes after the end of the checkpoint");
    }

private:
    std::uint8_t byte(const std::string& path) {
        if (pos_ >= in_.size()) fail(path, "truncated");
        return static_cast<std::uint8_t>(in_[pos_++]);
    }
    std::uint64_t varint(const std::string& path) {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const std::uint8_t b = byte(path);
            if (shift == 63 && b > 1) fail(path, "a varint beyond 64 bits");
            v |= std::uint64_t{b & 0x7FU} << shift;
            if ((b & 0x80) == 0) return v;
        }
        fail(path, "a varint beyond 64 bits");
    }
    void bytes(std::string_view name, std::string& s, std::size_t limit) {
        const std::string path = path_.next(name);
        const std::uint64_t n = varint(path);
        if (n > in_.size() - pos_) fail(path, "a length of " + std::to_string(n) + " bytes is more than the bytes left");
        if (n > limit) fail(path, "a string of " + std::to_string(n) + " bytes (at most " + std::to_string(limit) + ")");
        s.assign(in_.substr(pos_, n));
        pos_ += n;
    }

    std::string_view in_;
    std::size_t pos_ = 0;
    Path path_;
};

}  // namespace

void append_json(const Checkpoint& checkpoint, std::string& out) {
    JsonWriter w(out);
    describe(w, const_cast<Checkpoint&>(checkpoint));  // writers only read
}

std::string encode_json(const Checkpoint& checkpoint) {
    std::string out;
    append_json(checkpoint, out);
    return out;
}

Result<Checkpoint> decode_json(std::string_view text) {
    simdjson::dom::parser parser;
    const simdjson::padded_string padded(text);
    element root;
    if (auto err = parser.parse(padded).get(root))
        return Error{ErrorKind::checkpoint, std::nullopt,
                     std::string("malformed tideweave checkpoint: invalid JSON: ") + simdjson::error_message(err)};
    try {
        simdjson::dom::object top;
        if (root.get_object().get(top)) fail("checkpoint", "expected an object");
        std::optional<std::int64_t> line_version;
        element wrapped;
        if (!top["checkpoint"].get(wrapped)) {  // the whole output line {"version":v,"checkpoint":{..}}
            std::size_t members = 0;
            for (auto field : top) {
                ++members;
                if (field.key != "version" && field.key != "checkpoint")
                    fail("line", "unknown member \"" + std::string(field.key) + "\"");
            }
            element version;
            if (top["version"].get(version)) fail("line", "missing member \"version\"");
            if (members != 2) fail("line", "duplicate member");
            std::int64_t v = 0;
            std::string problem;
            if (!strict::read_ts(version, v, problem)) fail("version", problem);
            line_version = v;
            root = wrapped;
        }
        Checkpoint c;
        JsonReader r(root);
        describe(r, c);
        if (line_version && *line_version != c.version)
            fail("version", "the line's version differs from the checkpoint's");
        return c;
    } catch (Error& e) {
        return std::move(e);
    }
}

void append_binary(const Checkpoint& checkpoint, std::string& out) {
    BinaryWriter w(out);
    describe(w, const_cast<Checkpoint&>(checkpoint));  // writers only read
}

std::string encode_binary(const Checkpoint& checkpoint) {
    std::string out;
    append_binary(checkpoint, out);
    return out;
}

Result<Checkpoint> decode_binary(std::string_view bytes) {
    try {
        Checkpoint c;
        BinaryReader r(bytes);
        describe(r, c);
        r.finish();
        return c;
    } catch (Error& e) {
        return std::move(e);
    }
}

}  // namespace sluice::tideweave
