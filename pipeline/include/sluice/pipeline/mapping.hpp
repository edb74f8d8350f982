#pragma once
// Row image -> Tideweave event: the mapping of issue 15, sans-I/O.
//
// A source row is an event when its four mapped columns give
//   id    = the text of the id column (non-empty, at most 256 bytes, UTF-8),
//   key   = the text of the key column (at most 256 bytes, UTF-8),
//   ts    = the integer in the ts column, in [-2^60, 2^60],
//   value = the number in the value column (finite; an integer at most 2^53
//           in magnitude),
// the ranges of the Tideweave contract. Otherwise it is a Rejection with
// the reason, naming the column.
//
// LIFETIME: an Event's id and key view either the SourceValues they came
// from or the StringArena given to map_event; both must outlive the Event.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sluice::pipeline {

// The four mapped column names (--id, --key, --ts, --value).
struct ColumnNames {
    std::string id;
    std::string key;
    std::string ts;
    std::string value;
};

// One cell of a source row, typed as far as the mapping cares.
struct SourceValue {
    enum class Kind : std::uint8_t { null, signed_integer, unsigned_integer, floating, text };
    Kind kind = Kind::null;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string_view text;  // text (also DECIMAL's digits and every other type's text form)

    static SourceValue null_value() { return {}; }
    static SourceValue of_signed(std::int64_t v) { return {Kind::signed_integer, v, 0, 0, {}}; }
    static SourceValue of_unsigned(std::uint64_t v) { return {Kind::unsigned_integer, 0, v, 0, {}}; }
    static SourceValue of_double(double v) { return {Kind::floating, 0, 0, v, {}}; }
    static SourceValue of_text(std::string_view v) { return {Kind::text, 0, 0, 0, v}; }
};

// Bytes that live as long as the arena (until clear()): the text of
// integer ids and keys, copies of snapshot fields.
class StringArena {
public:
    std::string_view store(std::string_view s);
    void clear();

private:
    std::vector<std::unique_ptr<char[]>> chunks_;
    std::size_t used_ = 0;      // in chunks_.back()
    std::size_t capacity_ = 0;  // of chunks_.back()
    std::size_t first_capacity_ = 0;
};

struct Event {
    std::string_view id;
    std::string_view key;
    std::int64_t ts = 0;
    double value = 0;
};

struct Rejection {
    std::string reason;  // e.g. `ts column "t": NULL`
};

using Mapped = std::variant<Event, Rejection>;

// The four cells of a row (in the order id, key, ts, value) to an event or
// the reason it is not one.
Mapped map_event(const ColumnNames& names, const SourceValue& id, const SourceValue& key, const SourceValue& ts,
                 const SourceValue& value, StringArena& arena);

// A cell's text for NAME_rejected (nullopt for NULL).
std::optional<std::string> text_of(const SourceValue& v);

// The limits of the contract (tideweave-semantics.md, "Data").
inline constexpr std::int64_t max_abs_ts = std::int64_t{1} << 60;
inline constexpr double max_abs_integer_value = 9007199254740992.0;  // 2^53
inline constexpr std::size_t max_id_bytes = 256;
inline constexpr std::size_t max_key_bytes = 256;

bool valid_utf8(std::string_view s) noexcept;

}  // namespace sluice::pipeline
