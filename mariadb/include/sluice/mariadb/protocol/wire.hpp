#pragma once
// Bounds-checked primitives of the MariaDB wire format: fixed-width
// little-endian integers, length-encoded integers and strings, NUL-terminated
// strings. Reader never reads past its span; every shortfall throws
// Error{protocol} naming the packet, the field and the byte offset, so a
// truncated or hostile packet is reported, never trusted. Strings come back
// as views into the packet: decoding allocates nothing.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::mariadb::protocol {

using Bytes = std::span<const std::uint8_t>;

// Reinterprets packet bytes as text (the protocol carries text as bytes).
inline std::string_view as_text(Bytes bytes) noexcept {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}
inline Bytes as_bytes(std::string_view text) noexcept {
    return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

class Reader {
public:
    // `packet` names the packet in error messages ("OK packet").
    Reader(Bytes bytes, std::string_view packet) noexcept : bytes_(bytes), packet_(packet) {}

    std::size_t position() const noexcept { return pos_; }
    std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
    bool at_end() const noexcept { return pos_ == bytes_.size(); }
    // The next byte without consuming it; Error if none.
    std::uint8_t peek(std::string_view field) const;

    // The fixed-width reads are inline: row decoders call them per cell.
    std::uint8_t u8(std::string_view field) {
        need(1, field);
        return bytes_[pos_++];
    }
    std::uint16_t u16(std::string_view field) { return static_cast<std::uint16_t>(little_endian(2, field)); }
    std::uint32_t u24(std::string_view field) { return static_cast<std::uint32_t>(little_endian(3, field)); }
    std::uint32_t u32(std::string_view field) { return static_cast<std::uint32_t>(little_endian(4, field)); }
    std::uint64_t u64(std::string_view field) { return little_endian(8, field); }
    // int<lenenc>. The NULL marker 0xFB and the reserved 0xFF are errors here.
    std::uint64_t lenenc(std::string_view field);
    // string<lenenc>: the length is checked against the bytes present.
    Bytes lenenc_bytes(std::string_view field);
    std::string_view lenenc_text(std::string_view field) { return as_text(lenenc_bytes(field)); }
    // string<fix>
    Bytes bytes(std::size_t n, std::string_view field) {
        need(n, field);
        Bytes b = bytes_.subspan(pos_, n);
        pos_ += n;
        return b;
    }
    // string<NUL>: the terminator must be present; it is consumed, not returned.
    std::string_view nul_text(std::string_view field);
    // string<EOF>: everything left.
    Bytes rest() noexcept;
    void skip(std::size_t n, std::string_view field) { bytes(n, field); }

    // Error{protocol} "malformed <packet>: <what> (field '<field>' at byte N)".
    [[noreturn]] void fail(std::string_view field, std::string_view what) const;

private:
    void need(std::size_t n, std::string_view field) const {
        if (n > remaining()) [[unlikely]]
            fail_truncated(n, field);
    }
    [[noreturn]] void fail_truncated(std::size_t n, std::string_view field) const;
    // n <= 8 bytes, little-endian.
    std::uint64_t little_endian(std::size_t n, std::string_view field) {
        need(n, field);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{bytes_[pos_ + i]} << (8 * i);
        pos_ += n;
        return v;
    }
    Bytes bytes_;
    std::size_t pos_ = 0;
    std::string_view packet_;
};

// Appends wire primitives to a byte vector owned by the caller (reused
// between packets, so steady-state encoding does not allocate).
class Writer {
public:
    explicit Writer(std::vector<std::uint8_t>& out) noexcept : out_(out) {}

    void u8(std::uint8_t v) { out_.push_back(v); }
    void u16(std::uint16_t v) { little_endian<2>(v); }
    void u24(std::uint32_t v) { little_endian<3>(v); }
    void u32(std::uint32_t v) { little_endian<4>(v); }
    void u64(std::uint64_t v) { little_endian<8>(v); }
    void lenenc(std::uint64_t v);
    void lenenc_bytes(Bytes b);
    void lenenc_text(std::string_view s) { lenenc_bytes(as_bytes(s)); }
    void bytes(Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }
    void text(std::string_view s) { bytes(as_bytes(s)); }
    void nul_text(std::string_view s);
    void zeros(std::size_t n) { out_.insert(out_.end(), n, std::uint8_t{0}); }
    std::size_t size() const noexcept { return out_.size(); }
    std::vector<std::uint8_t>& buffer() noexcept { return out_; }

private:
    // Inline: every execute writes a statement id, an iteration count and
    // its integer parameters through here. Out of line these were 66
    // instructions for a u32 and 115 for a u64 under callgrind; insert()
    // and resize() were out-of-line calls too (plus memcpy or memset), and
    // inlined push_backs came out the cheapest of the three.
    template <std::size_t N>
    void little_endian(std::uint64_t v) {
        for (std::size_t i = 0; i < N; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }

    std::vector<std::uint8_t>& out_;
};

// Bytes int<lenenc> takes for v (1, 3, 4 or 9).
constexpr std::size_t lenenc_size(std::uint64_t v) noexcept {
    return v < 0xFB ? 1 : v <= 0xFFFF ? 3 : v <= 0xFFFFFF ? 4 : 9;
}

}  // namespace sluice::mariadb::protocol
