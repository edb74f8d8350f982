// The engine's hash of ids and keys: the wyhash construction (64x64->128
// bit multiply-and-fold of 8-byte reads), for the short strings ids and
// keys usually are.
//
// Why not std::hash<std::string_view>: libstdc++'s is a byte-oriented
// Murmur variant behind a call; every mutation hashes its id (identity
// index) and its key (key table), and on the typed API's batched stream
// those two calls cost ~120 instructions of the engine's few hundred per
// insert. This one is inline and a few multiplies for up to 16 bytes. Its
// top bits are as good as its low ones (IdIndex takes a slot's home from
// the top bits).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace sluice::tideweave {

namespace string_hash_detail {

__extension__ typedef unsigned __int128 uint128;  // GCC and Clang: one mul instruction

inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) {
    const uint128 r = static_cast<uint128>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t read8(const char* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline std::uint64_t read4(const char* p) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline constexpr std::uint64_t k0 = 0xa0761d6478bd642fULL;
inline constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbULL;
inline constexpr std::uint64_t k2 = 0x8ebc6af09c88c6e3ULL;

}  // namespace string_hash_detail

// The hash of `s`; every byte of `s` is also ORed into `bits`, at a byte
// boundary (the reads cover the string), so that a caller hashing many ids
// learns whether all are ASCII (no 0x80 bit) without reading them again.
[[gnu::always_inline]] inline std::uint64_t hash_string(std::string_view s, std::uint64_t& bits) {
    using namespace string_hash_detail;
    const char* p = s.data();
    const std::size_t len = s.size();
    std::uint64_t seed = k0 ^ fold_multiply(k0 ^ k2, k1);
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    // Up to 8 bytes go whole into `a` (b stays 0, as wyhash does for up to
    // 3): two overlapping 4-byte reads for 4..8, three bytes for 1..3. Up to
    // 16, two overlapping 8-byte reads. (wyhash reads 4..16 bytes as two
    // pairs of 4-byte reads; for the usual 7- and 8-byte ids that was ~6
    // instructions more per id.)
    if (len <= 8) {
        if (len >= 4) {
            a = (read4(p + len - 4) << 32) | read4(p);
        } else if (len > 0) {
            a = (std::uint64_t{static_cast<unsigned char>(p[0])} << 16) |
                (std::uint64_t{static_cast<unsigned char>(p[len >> 1])} << 8) |
                std::uint64_t{static_cast<unsigned char>(p[len - 1])};
        }
    } else if (len <= 16) {
        a = read8(p);
        b = read8(p + len - 8);
    } else {
        std::size_t left = len;
        while (left > 16) {
            const std::uint64_t x = read8(p);
            const std::uint64_t y = read8(p + 8);
            bits |= x | y;
            seed = fold_multiply(x ^ k1, y ^ seed);
            p += 16;
            left -= 16;
        }
        // The last 16 bytes, overlapping what the loop read when fewer are left.
        a = read8(p + left - 16);
        b = read8(p + left - 8);
    }
    bits |= a | b;
    a ^= k1;
    b ^= seed;
    const uint128 r = static_cast<uint128>(a) * b;
    return fold_multiply(static_cast<std::uint64_t>(r) ^ k0 ^ len, static_cast<std::uint64_t>(r >> 64) ^ k1);
}

[[gnu::always_inline]] inline std::uint64_t hash_string(std::string_view s) {
    std::uint64_t unused = 0;
    return hash_string(s, unused);
}

}  // namespace sluice::tideweave
