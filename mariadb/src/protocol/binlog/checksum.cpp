// CRC32 of binlog events: zlib's crc32, the algorithm MariaDB's
// binlog_checksum=CRC32 uses (over header and body, without the 4 bytes).
#include <zlib.h>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

std::uint32_t crc32(Bytes bytes) noexcept {
    uLong crc = ::crc32(0L, Z_NULL, 0);
    const Bytef* p = bytes.data();
    std::size_t left = bytes.size();
    // zlib's length is a uInt: feed it in chunks for events over 4 GiB
    // (never sent, but the length is the caller's).
    while (left > 0) {
        uInt n = left > 0x40000000 ? 0x40000000u : static_cast<uInt>(left);
        crc = ::crc32(crc, p, n);
        p += n;
        left -= n;
    }
    return static_cast<std::uint32_t>(crc);
}

}  // namespace sluice::mariadb::binlog::detail
