#pragma once
// The error a CDC NDJSON line makes NdjsonTransactions (table shop.ev,
// columns id k t v) raise, for the unit tests of broken transaction and
// snapshot lines (partition_test, snapshot_lines_test). Bytes alone.
#include <gtest/gtest.h>

#include <string>

#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"

namespace sluice::pipeline::test {

// The message of the error parsing `line` at "stream "S" sequence 9" raises
// (asserted to be a source_image error), or "no error".
inline std::string error_of(const std::string& line) {
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    try {
        r.parse(line, "stream \"S\" sequence 9");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::source_image);
        return e.what();
    }
    return "no error";
}

}  // namespace sluice::pipeline::test
