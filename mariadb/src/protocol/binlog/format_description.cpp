// FORMAT_DESCRIPTION_EVENT: the binlog version, the server version, the
// header length, the post-header length of every event type, and (from
// checksum-aware servers: MariaDB 5.3+, MySQL 5.6.1+) the checksum
// algorithm. Its own CRC is always present on those servers, whatever the
// algorithm says for the events after it.
#include <charconv>
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

constexpr std::size_t server_version_length = 50;

// Does this server write the checksum algorithm byte (and a CRC) in its
// FORMAT_DESCRIPTION?
bool checksum_aware(std::string_view version) noexcept {
    int part[3] = {0, 0, 0};
    const char* p = version.data();
    const char* end = p + version.size();
    for (int i = 0; i < 3 && p < end; ++i) {
        auto [next, ec] = std::from_chars(p, end, part[i]);
        if (ec != std::errc{}) break;
        p = next;
        if (p < end && *p == '.') ++p;
        else break;
    }
    bool mariadb = version.find("MariaDB") != std::string_view::npos;
    auto at_least = [&](int a, int b, int c) {
        return part[0] != a ? part[0] > a : part[1] != b ? part[1] > b : part[2] >= c;
    };
    return mariadb ? at_least(5, 3, 0) : at_least(5, 6, 1);
}

}  // namespace

FormatDescription parse_format_description(Bytes event) {
    Reader r(event, "FORMAT_DESCRIPTION_EVENT");
    r.skip(event_header_length, "event header");
    FormatDescription fd;
    fd.binlog_version = r.u16("binlog version");
    if (fd.binlog_version != 4)
        r.fail("binlog version", "binlog version " + std::to_string(fd.binlog_version) +
                                     " (only version 4, MySQL 5.0+ / MariaDB, is supported)");
    std::string_view version = as_text(r.bytes(server_version_length, "server version"));
    fd.server_version = version.substr(0, version.find('\0'));
    fd.create_timestamp = r.u32("create timestamp");
    fd.header_length = r.u8("header length");
    if (fd.header_length != event_header_length)
        r.fail("header length", "event header length " + std::to_string(fd.header_length) +
                                    " (binlog v4 headers are 19 bytes)");
    Bytes rest = r.rest();
    if (checksum_aware(fd.server_version)) {
        // ... post-header lengths, 1 byte algorithm, 4 bytes CRC.
        if (rest.size() < 5)
            r.fail("checksum algorithm", "no room for the checksum algorithm and CRC (" +
                                             std::to_string(rest.size()) + " bytes left)");
        fd.post_header_lengths = rest.first(rest.size() - 5);
        std::uint8_t alg = rest[rest.size() - 5];
        if (alg == 0) fd.checksum = Checksum::off;
        else if (alg == 1) fd.checksum = Checksum::crc32;
        else if (alg == 255) fd.checksum = Checksum::undefined;
        else r.fail("checksum algorithm", "unknown checksum algorithm " + std::to_string(alg));
    } else {
        fd.post_header_lengths = rest;
        fd.checksum = Checksum::undefined;
    }
    return fd;
}

}  // namespace sluice::mariadb::binlog::detail
