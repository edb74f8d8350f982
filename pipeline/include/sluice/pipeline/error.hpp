#pragma once
// The one error type of the pipeline part. Failures of the libraries it
// joins keep their own types (sluice::mariadb::Error, sluice::postgres::Error,
// tideweave::Error values); this type is for what the pipeline itself
// decides is wrong: its arguments, the source table's columns, the sink's
// tables and stored state. Every message names what and where. Like the
// others it is a sluice::common::Error (part() "pipeline"): the retry loop
// asks transient() and describe() of whichever error it caught.
#include <string>
#include <string_view>

#include "sluice/common/error.hpp"

namespace sluice::pipeline {

enum class ErrorKind {
    usage,        // a bad command-line argument (mapping, ranges, URLs)
    source_table, // the source table or a mapped column is missing or has an unusable type
    sink_schema,  // an existing sink table whose columns do not match
    sink_state,   // the stored state of NAME is unreadable or was written with other arguments
    source_image, // the binlog does not carry what the mapping needs (row image not FULL, no column names)
    source_ended, // the binlog stream ended without --until-end (the server shut down): retried
    sink_moved,   // the stored state moved under us (a killed predecessor's last commit landed late): retried
};

std::string_view to_string(ErrorKind kind) noexcept;

class Error : public common::Error {
public:
    Error(ErrorKind kind, const std::string& message) : common::Error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

    std::string_view part() const noexcept override { return "pipeline"; }
    std::string_view kind_name() const noexcept override { return to_string(kind_); }
    // A source that ended while following, a state row another writer
    // moved: the next attempt restores from the sink and goes on.
    bool transient() const noexcept override {
        return kind_ == ErrorKind::source_ended || kind_ == ErrorKind::sink_moved;
    }
    // "kind: message" (e.g. "sink state: ..."), as the pipeline has always
    // printed its own errors.
    std::string describe() const override { return std::string(kind_name()) + ": " + what(); }

private:
    ErrorKind kind_;
};

}  // namespace sluice::pipeline
