// Tideweave's exception type, for where an error leaves the part: inside,
// errors are Error values in a Result (types.hpp), the hot path's style;
// Stream::restore (a checkpoint that does not restore) and the CLI runner
// (run.hpp: a read or write that failed) throw a Failure instead, which is
// a sluice::common::Error (part() "tideweave") carrying the Error value.
// None is transient: bad data and a failed read stay what they are.
#pragma once

#include <string>
#include <string_view>

#include "sluice/common/error.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

std::string_view to_string(ErrorKind kind) noexcept;

class Failure : public common::Error {
public:
    explicit Failure(tideweave::Error error) : common::Error(error.message), error_(std::move(error)) {}
    Failure(ErrorKind kind, const std::string& message) : Failure(tideweave::Error{kind, std::nullopt, message}) {}

    const tideweave::Error& error() const noexcept { return error_; }
    ErrorKind kind() const noexcept { return error_.kind; }

    std::string_view part() const noexcept override { return "tideweave"; }
    std::string_view kind_name() const noexcept override { return to_string(error_.kind); }
    bool transient() const noexcept override { return false; }

private:
    tideweave::Error error_;
};

}  // namespace sluice::tideweave
