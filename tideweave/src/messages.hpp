// The wording of the engine's errors (docs/tideweave.md, "Error messages"),
// kept apart from the rules that detect them. Strings are quoted as they are
// (the NDJSON codec escapes the whole message when it writes it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "json_out.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave::messages {

inline std::string quoted(std::string_view s) {
    std::string q;
    q.reserve(s.size() + 2);
    q.push_back('"');
    q.append(s);
    q.push_back('"');
    return q;
}

inline std::string number(double v) {
    std::string s;
    json::append_number(s, v);
    return s;
}

// "tx[3].insert" / "tx[3].retract"
inline std::string mutation_path(std::size_t index, Mutation::Kind kind) {
    return "tx[" + std::to_string(index) + "]." + (kind == Mutation::Kind::insert ? "insert" : "retract");
}

inline Error mutation_error(ErrorKind kind, std::size_t index, std::string message) {
    return Error{kind, index, std::move(message)};
}

inline Error duplicate_id(std::size_t index, std::string_view id, std::string_view held_key, std::int64_t held_ts) {
    return mutation_error(ErrorKind::identity, index,
                          mutation_path(index, Mutation::Kind::insert) + ": an active event with id " + quoted(id) +
                              " already exists (key " + quoted(held_key) + ", ts " + std::to_string(held_ts) + ")");
}

inline Error no_such_event(std::size_t index, std::string_view id) {
    return mutation_error(ErrorKind::identity, index,
                          mutation_path(index, Mutation::Kind::retract) + ": no active event with id " + quoted(id));
}

// A retraction naming a held event whose `field` differs.
inline Error retract_mismatch(std::size_t index, std::string_view id, std::string_view field, const std::string& held,
                              const std::string& given) {
    return mutation_error(ErrorKind::identity, index,
                          mutation_path(index, Mutation::Kind::retract) + ": event " + quoted(id) + " has " +
                              std::string(field) + " " + held + ", not " + given);
}

inline Error bad_field(std::size_t index, Mutation::Kind kind, std::string_view field, std::string_view problem) {
    return mutation_error(ErrorKind::shape, index,
                          mutation_path(index, kind) + "." + std::string(field) + ": " + std::string(problem));
}

inline Error sum_overflow(std::string_view key, std::int64_t start) {
    return Error{ErrorKind::sum_overflow, std::nullopt,
                 "tx: the sum of the session of key " + quoted(key) + " starting at " + std::to_string(start) +
                     " would exceed the double range"};
}

inline Error watermark_behind(std::int64_t w, std::int64_t current) {
    return Error{ErrorKind::watermark_behind, std::nullopt,
                 "watermark: " + std::to_string(w) + " is behind the current watermark " + std::to_string(current)};
}

inline Error checkpoint_error(const std::string& path, const std::string& what) {
    return Error{ErrorKind::checkpoint, std::nullopt, "malformed tideweave checkpoint: " + path + ": " + what};
}

}  // namespace sluice::tideweave::messages
