// Tideweave's typed values: configuration, mutations, rows, the results of
// each command, and the one error type of the part. Plain structs, no JSON.
//
// LIFETIME: every std::string_view and std::span in a result (Changes,
// Finalized, Snapshot, and the Row and LateItem values in them) points into
// the Engine that returned it, or, for a LateItem's id and key, into the
// caller's Mutation array. They are valid until the next call on that Engine
// other than a const accessor (and, for LateItem, while the caller's
// mutations are). Copy what you keep (Row::key is a view; std::string(key)).
//
// ERRORS: one style for the part. Whatever the input can get wrong (a
// mutation's shape or identity, a watermark behind the current one, a sum
// beyond the double range, a malformed checkpoint) comes back as an Error
// value inside a Result; nothing is thrown for bad data. Only a broken
// precondition of the program itself (a configuration out of range given to
// a constructor, reading the wrong side of a Result) throws: an
// std::invalid_argument or std::logic_error. Where an error leaves the part
// (a checkpoint that does not restore, the CLI runner's I/O) it is thrown as
// a Failure (failure.hpp), a sluice::common::Error carrying the Error value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice::tideweave {

struct Config {
    std::int64_t gap = 10;       // in (0, 2^60]
    std::int64_t lateness = 20;  // in [0, 2^60]
};

// incremental: O(log n) per mutation in its key's events.
// naive: rebuilds the affected key's sessions from its events on every
// mutation; the benchmark's same-build alternative. Both give the same results.
enum class EngineKind { incremental, naive };

// One mutation of a transaction (docs/tideweave.md, "Transactions"). The
// strings are the caller's; apply() copies what it keeps.
struct Mutation {
    enum class Kind : std::uint8_t { insert, retract };
    Kind kind = Kind::insert;
    std::string_view id;   // non-empty, at most 256 bytes
    std::string_view key;  // at most 256 bytes
    std::int64_t ts = 0;   // in [-2^60, 2^60]
    double value = 0;      // finite; an insert's value, or a retraction's when check_value
    bool check_value = false;  // retraction only: the held value must equal `value` too

    static constexpr Mutation insert(std::string_view id, std::string_view key, std::int64_t ts, double value) {
        return {Kind::insert, id, key, ts, value, false};
    }
    static constexpr Mutation retract(std::string_view id, std::string_view key, std::int64_t ts) {
        return {Kind::retract, id, key, ts, 0, false};
    }
    static constexpr Mutation retract(std::string_view id, std::string_view key, std::int64_t ts, double value) {
        return {Kind::retract, id, key, ts, value, true};
    }
};

// One session's row (docs/tideweave.md, "Sessions"): end = largest ts + gap.
struct Row {
    std::string_view key;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    double sum = 0;  // the exact sum, rounded once
    double min = 0;
    double max = 0;
    bool final = false;
};

// A mutation that was not applied because its ts is below the horizon.
struct LateItem {
    std::size_t index = 0;  // the mutation's position in the transaction
    std::string_view id;
    std::string_view key;
    std::int64_t ts = 0;
};

// What an accepted transaction changed: rows gone (before) and rows new
// (after), each sorted by (key, start), rows left as they were not listed.
struct Changes {
    std::int64_t version = 0;
    std::span<const Row> before;
    std::span<const Row> after;
    std::span<const LateItem> late;
};

// The rows a watermark made final (sorted by (key, start), final = true).
struct Finalized {
    std::int64_t version = 0;
    std::int64_t watermark = 0;
    std::span<const Row> rows;
};

struct Forgotten {
    std::int64_t version = 0;
    std::size_t rows_dropped = 0;   // final rows released
    std::size_t events_folded = 0;  // sealed events folded into per-session blocks
};

struct Snapshot {
    std::int64_t version = 0;
    std::optional<std::int64_t> watermark;  // nullopt before the first one
    std::span<const Row> rows;              // every row held, sorted by (key, start)
};

// The one error type of the part.
enum class ErrorKind {
    shape,             // a mutation's field out of its range (id, key, ts, value)
    identity,          // an insert of a held id, or a retraction that does not match
    sum_overflow,      // the transaction would leave a session whose sum exceeds the double range
    watermark_behind,  // a watermark below the current one
    watermark_range,   // a watermark outside [-2^60, 2^60]
    checkpoint,        // a checkpoint that does not decode or is not a reachable state
    // Only where errors leave the part as a Failure (failure.hpp), never
    // from the engine or a Stream's lines:
    io,     // reading the input or writing the output failed (run.hpp), or a file does not open
    usage,  // the command line asks for something that cannot be (the CLI)
};

struct Error {
    ErrorKind kind = ErrorKind::shape;
    std::optional<std::size_t> index;  // the offending mutation of a transaction
    std::string message;               // names what and where, e.g. tx[1].insert: an active event with id "a" ...
};

// A value or an Error.
template <typename T>
class Result {
public:
    Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit, like std::expected
    Result(Error error) : v_(std::move(error)) {}  // NOLINT
    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    const T& value() const& { return ok() ? std::get<0>(v_) : throw std::logic_error("tideweave: " + error().message); }
    T& value() & { return ok() ? std::get<0>(v_) : throw std::logic_error("tideweave: " + error().message); }
    T&& value() && { return std::move(value()); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }
    const Error& error() const {
        if (ok()) throw std::logic_error("tideweave: Result holds a value, not an error");
        return std::get<1>(v_);
    }

private:
    std::variant<T, Error> v_;
};

}  // namespace sluice::tideweave
