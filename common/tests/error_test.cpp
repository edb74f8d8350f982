#include "sluice/common/error.hpp"

#include <gtest/gtest.h>

#include <new>

namespace {

class DiskError : public sluice::common::Error {
public:
    DiskError(const std::string& message, bool retry) : Error(message), retry_(retry) {}
    std::string_view part() const noexcept override { return "disk"; }
    std::string_view kind_name() const noexcept override { return "full"; }
    bool transient() const noexcept override { return retry_; }

private:
    bool retry_;
};

TEST(CommonError, DescribeNamesTheKind) {
    const DiskError e("writing /var/x: no space left", false);
    EXPECT_EQ(e.describe(), "writing /var/x: no space left (full)");
    EXPECT_EQ(e.part(), "disk");
}

TEST(CommonError, IsTransientAsksTheErrorAndRefusesOtherExceptions) {
    EXPECT_TRUE(sluice::common::is_transient(DiskError("x", true)));
    EXPECT_FALSE(sluice::common::is_transient(DiskError("x", false)));
    EXPECT_FALSE(sluice::common::is_transient(std::runtime_error("x")));
    EXPECT_FALSE(sluice::common::is_transient(std::bad_alloc()));
}

TEST(CommonError, AsErrorFindsTheInterfaceBehindAStdException) {
    const DiskError disk("x", true);
    const std::exception& e = disk;
    ASSERT_NE(sluice::common::as_error(e), nullptr);
    EXPECT_EQ(sluice::common::as_error(e)->part(), "disk");
    EXPECT_EQ(sluice::common::as_error(std::runtime_error("x")), nullptr);
}

}  // namespace
