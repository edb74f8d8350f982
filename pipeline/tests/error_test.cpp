// pipeline::Error as a sluice::common::Error: the retry loop retries
// exactly source_ended and sink_moved, and prints "kind: message".
#include "sluice/pipeline/error.hpp"

#include <gtest/gtest.h>

namespace {

using sluice::pipeline::Error;
using sluice::pipeline::ErrorKind;

TEST(PipelineError, OnlyAnEndedSourceAndAMovedStateAreTransient) {
    EXPECT_TRUE(Error(ErrorKind::source_ended, "x").transient());
    EXPECT_TRUE(Error(ErrorKind::sink_moved, "x").transient());
    for (ErrorKind k : {ErrorKind::usage, ErrorKind::source_table, ErrorKind::sink_schema, ErrorKind::sink_state,
                        ErrorKind::source_image})
        EXPECT_FALSE(Error(k, "x").transient()) << sluice::pipeline::to_string(k);
    EXPECT_TRUE(sluice::common::is_transient(Error(ErrorKind::sink_moved, "x")));
}

TEST(PipelineError, DescribeLeadsWithTheKind) {
    const Error e(ErrorKind::sink_state, "\"t\" was written with other settings");
    EXPECT_EQ(e.describe(), "sink state: \"t\" was written with other settings");
    EXPECT_EQ(e.part(), "pipeline");
    EXPECT_EQ(e.kind_name(), "sink state");
    EXPECT_STREQ(e.what(), "\"t\" was written with other settings");
}

}  // namespace
