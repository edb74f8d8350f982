// Compressed events (log_bin_compress=ON): QUERY_COMPRESSED's statement
// text and the *_ROWS_COMPRESSED events' column count, bitmaps and rows.
#include <zlib.h>

#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {
// zlib's deflate never does better than about 1032:1; a claimed length
// beyond that cannot be honest, so it is refused before allocating.
constexpr std::uint64_t max_deflate_ratio = 1032;
// Nothing MariaDB writes inflates past max_allowed_packet's ceiling.
constexpr std::uint64_t max_inflated = std::uint64_t{1} << 30;
}  // namespace

Bytes inflate(Reader& r, std::string_view field, std::vector<std::uint8_t>& out) {
    std::uint8_t head = r.u8(field);
    std::uint8_t length_bytes = head & 0x07;
    if ((head & 0x80) == 0 || length_bytes == 0 || length_bytes > 4)
        r.fail(field, "compression header byte " + std::to_string(head) +
                          " is not 0x80 | (1..4 length bytes)");
    Bytes len_be = r.bytes(length_bytes, field);
    std::uint64_t claimed = 0;
    for (std::uint8_t b : len_be) claimed = (claimed << 8) | b;
    Bytes stream = r.rest();
    if (claimed > max_inflated || claimed > stream.size() * max_deflate_ratio + 64)
        r.fail(field, "claims " + std::to_string(claimed) + " inflated bytes from " +
                          std::to_string(stream.size()) + " compressed ones");
    if (claimed == 0) {  // MariaDB never compresses an empty payload; nothing to inflate
        out.clear();
        return {};
    }
    out.resize(static_cast<std::size_t>(claimed));
    uLongf produced = static_cast<uLongf>(claimed);
    int rc = ::uncompress(out.data(), &produced, stream.data(), static_cast<uLong>(stream.size()));
    if (rc != Z_OK)
        r.fail(field, std::string("zlib stream does not inflate (") +
                          (rc == Z_DATA_ERROR  ? "corrupt data"
                           : rc == Z_BUF_ERROR ? "longer than the claimed length, or truncated"
                                               : "zlib error " + std::to_string(rc)) +
                          ")");
    if (produced != claimed)
        r.fail(field, "inflates to " + std::to_string(produced) + " bytes, the header claims " +
                          std::to_string(claimed));
    return {out.data(), out.size()};
}

}  // namespace sluice::mariadb::binlog::detail
