// Failure, Tideweave's exception where errors leave the part: a checkpoint
// that does not restore, the CLI runner's read and write failures.
#include "sluice/tideweave/failure.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "sluice/tideweave/run.hpp"
#include "sluice/tideweave/stream.hpp"

namespace {

namespace tw = sluice::tideweave;

TEST(Failure, ARestoreThatFailsThrowsAFailureCarryingTheErrorValue) {
    try {
        tw::Stream::restore("{\"version\":1}");
        FAIL() << "restored a checkpoint without its members";
    } catch (const tw::Failure& e) {
        EXPECT_EQ(e.kind(), tw::ErrorKind::checkpoint);
        EXPECT_EQ(e.error().message, e.what());
        EXPECT_EQ(e.part(), "tideweave");
        EXPECT_EQ(e.kind_name(), "checkpoint");
        EXPECT_FALSE(sluice::common::is_transient(e));
    }
}

TEST(Failure, TheRunnerThrowsAWriteThatFailsAsIo) {
    int in[2];
    ASSERT_EQ(::pipe(in), 0);
    const std::string line = "{\"watermark\":5}\n";
    ASSERT_EQ(::write(in[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
    ::close(in[1]);
    const int read_only = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // writing it fails (EBADF)
    ASSERT_GE(read_only, 0);
    tw::Stream stream;
    try {
        tw::run_stream(stream, in[0], read_only, tw::RunOptions{});
        FAIL() << "run_stream wrote to a read-only descriptor";
    } catch (const tw::Failure& e) {
        EXPECT_EQ(e.kind(), tw::ErrorKind::io);
        EXPECT_STREQ(e.what(), "write: Bad file descriptor");
    }
    ::close(in[0]);
    ::close(read_only);
}

TEST(Failure, TheRunnerThrowsAReadThatFailsAsIo) {
    const int write_only = ::open("/dev/null", O_WRONLY | O_CLOEXEC);  // reading it fails (EBADF)
    ASSERT_GE(write_only, 0);
    tw::Stream stream;
    try {
        tw::run_stream(stream, write_only, write_only, tw::RunOptions{});
        FAIL() << "run_stream read from a write-only descriptor";
    } catch (const tw::Failure& e) {
        EXPECT_EQ(e.kind(), tw::ErrorKind::io);
        EXPECT_STREQ(e.what(), "read: Bad file descriptor");
    }
    ::close(write_only);
}

}  // namespace
