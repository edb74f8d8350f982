// The decoder's CRC-32 (its own slicing-by-8 for short events, libdeflate's for
// long ones) against zlib's, on every length from 0 to 300 from every
// alignment, around the switch-over length, and on a large buffer.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

#include "../../src/protocol/binlog/detail.hpp"

namespace sluice::mariadb::binlog {
namespace {

TEST(BinlogChecksum, MatchesZlibForEveryLengthAndAlignment) {
    std::mt19937 rng(13);
    std::vector<std::uint8_t> buf(70000);
    for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    for (std::size_t offset = 0; offset < 8; ++offset)
        for (std::size_t len = 0; len <= 300; ++len) {
            Bytes b(buf.data() + offset, len);
            uLong z = ::crc32(0L, b.data(), static_cast<uInt>(b.size()));
            ASSERT_EQ(detail::crc32_sliced(b), static_cast<std::uint32_t>(z)) << "offset " << offset << " length " << len;
            ASSERT_EQ(detail::crc32(b), static_cast<std::uint32_t>(z)) << "offset " << offset << " length " << len;
        }
    Bytes all(buf.data() + 3, buf.size() - 3);
    auto z_all = static_cast<std::uint32_t>(::crc32(0L, all.data(), static_cast<uInt>(all.size())));
    EXPECT_EQ(detail::crc32(all), z_all);
    EXPECT_EQ(detail::crc32_sliced(all), z_all);
    // Long events (libdeflate's folding, with its own tail handling) at
    // every alignment and lengths that leave every remainder of 64.
    for (std::size_t offset = 0; offset < 16; ++offset)
        for (std::size_t len = detail::long_event; len <= detail::long_event + 130; ++len) {
            Bytes b(buf.data() + offset, len);
            ASSERT_EQ(detail::crc32(b), static_cast<std::uint32_t>(::crc32(0L, b.data(), static_cast<uInt>(len))))
                << "offset " << offset << " length " << len;
        }
    // Around the length where crc32() switches to libdeflate.
    for (std::size_t len = detail::long_event - 9; len <= detail::long_event + 9; ++len) {
        Bytes b(buf.data() + 1, len);
        ASSERT_EQ(detail::crc32(b), static_cast<std::uint32_t>(::crc32(0L, b.data(), static_cast<uInt>(len)))) << len;
    }
    // The check value of the CRC-32/ISO-HDLC catalogue entry.
    const char* check = "123456789";
    EXPECT_EQ(detail::crc32(Bytes(reinterpret_cast<const std::uint8_t*>(check), 9)), 0xCBF43926u);
}

}  // namespace
}  // namespace sluice::mariadb::binlog
