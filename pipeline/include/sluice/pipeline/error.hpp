#pragma once
// The one error type of the pipeline part. Failures of the libraries it
// joins keep their own types (sluice::mariadb::Error, sluice::postgres::Error,
// tideweave::Error values); this type is for what the pipeline itself
// decides is wrong: its arguments, the source table's columns, the sink's
// tables and stored state. Every message names what and where.
#include <stdexcept>
#include <string>
#include <string_view>

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

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

}  // namespace sluice::pipeline
