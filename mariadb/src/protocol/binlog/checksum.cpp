// CRC-32 of binlog events (BINLOG_CHECKSUM_ALG_CRC32: the IEEE/zlib
// polynomial, over header and body without the 4 stored bytes).
//
// Two ways by length: binlog events are mostly short (30-300 bytes: a
// GTID, a TABLE_MAP, a one-row WRITE_ROWS, an XID per transaction), and
// zlib's per-call setup made crc32() about 300 MB/s on such lengths, half
// of the decoding time of one-row transactions; slicing-by-8 over tables
// built at compile time has no setup. On long events (multi-row batches)
// libdeflate's crc32 takes over: carry-less multiplication (PCLMUL) where
// the CPU has it, chosen once at run time, several times zlib's braided
// loop (~4 GB/s; 9% of the client's instructions in a 500,000-row
// catch-up). The tests check both against zlib.
#include <libdeflate.h>

#include <array>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[0][i] = c;
    }
    for (std::size_t s = 1; s < 8; ++s)
        for (std::size_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}

constexpr Tables tables = make_tables();

}  // namespace

std::uint32_t crc32_sliced(Bytes bytes) noexcept {
    std::uint32_t c = 0xFFFFFFFFu;
    const std::uint8_t* p = bytes.data();
    std::size_t n = bytes.size();
    while (n >= 8) {
        std::uint32_t lo = c ^ (std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
                                (std::uint32_t{p[3]} << 24));
        std::uint32_t hi = std::uint32_t{p[4]} | (std::uint32_t{p[5]} << 8) | (std::uint32_t{p[6]} << 16) |
                           (std::uint32_t{p[7]} << 24);
        c = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^ tables[4][lo >> 24] ^
            tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^ tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = tables[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::uint32_t crc32(Bytes bytes) noexcept {
    if (bytes.size() < long_event) return crc32_sliced(bytes);
    return libdeflate_crc32(0, bytes.data(), bytes.size());
}

}  // namespace sluice::mariadb::binlog::detail
