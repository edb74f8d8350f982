#pragma once
// The client's side of the MariaDB handshake built by hand (greeting parsing,
// SSLRequest prefix, a mysql_native_password HandshakeResponse), for the
// transport tests: they depend on nothing above the transport.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::mariadb::test {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t client_protocol_41 = 1U << 9;
constexpr std::uint32_t client_compress = 1U << 5;
constexpr std::uint32_t client_ssl = 1U << 11;
constexpr std::uint32_t client_secure_connection = 1U << 15;
constexpr std::uint32_t client_plugin_auth = 1U << 19;
constexpr std::uint8_t utf8mb4_general_ci = 45;

// What the tests need from the v10 greeting.
struct Greeting {
    std::uint32_t capabilities = 0;  // the classic 32 bits
    Bytes scramble;                  // 20 bytes
    std::uint32_t connection_id = 0;
};

inline Greeting parse_greeting(std::span<const std::uint8_t> p) {
    Greeting g;
    EXPECT_GE(p.size(), 40U);
    EXPECT_EQ(p[0], 10) << "protocol version";
    std::size_t at = 1;
    while (at < p.size() && p[at] != 0) ++at;  // server version
    ++at;                                      // its NUL
    for (std::size_t i = 0; i < 4; ++i) g.connection_id |= std::uint32_t{p[at + i]} << (8 * i);
    at += 4;
    g.scramble.assign(p.begin() + static_cast<std::ptrdiff_t>(at), p.begin() + static_cast<std::ptrdiff_t>(at + 8));
    at += 8 + 1;  // scramble part 1, filler
    g.capabilities = std::uint32_t{p[at]} | (std::uint32_t{p[at + 1]} << 8);
    at += 2 + 1 + 2;  // capabilities low, collation, status
    g.capabilities |= (std::uint32_t{p[at]} << 16) | (std::uint32_t{p[at + 1]} << 24);
    at += 2 + 1 + 6 + 4;  // capabilities high, auth data length, filler, MariaDB capabilities
    g.scramble.insert(g.scramble.end(), p.begin() + static_cast<std::ptrdiff_t>(at),
                      p.begin() + static_cast<std::ptrdiff_t>(at + 12));
    return g;
}

inline void put_u32(Bytes& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// The 32-byte fixed prefix shared by SSLRequest and HandshakeResponse41.
// Bit 0 (CLIENT_MYSQL) stays clear: we are a MariaDB client.
inline Bytes response_prefix(std::uint32_t capabilities) {
    Bytes out;
    put_u32(out, capabilities);
    put_u32(out, 1U << 24);  // max packet size
    out.push_back(utf8mb4_general_ci);
    out.insert(out.end(), 19, 0);
    put_u32(out, 0);  // MariaDB extended capabilities: none
    return out;
}

inline Bytes sha1(const Bytes& a, const Bytes& b = {}) {
    Bytes joined = a;
    joined.insert(joined.end(), b.begin(), b.end());
    Bytes out(SHA_DIGEST_LENGTH);
    SHA1(joined.data(), joined.size(), out.data());
    return out;
}

// HandshakeResponse41 for mysql_native_password, computed inline.
inline Bytes login_response(std::uint32_t capabilities, const std::string& user, const std::string& password,
                     const Bytes& scramble) {
    Bytes out = response_prefix(capabilities);
    out.insert(out.end(), user.begin(), user.end());
    out.push_back(0);
    const Bytes stage1 = sha1(Bytes(password.begin(), password.end()));
    const Bytes mask = sha1(scramble, sha1(stage1));
    out.push_back(20);
    for (std::size_t i = 0; i < 20; ++i) out.push_back(stage1[i] ^ mask[i]);
    const std::string plugin = "mysql_native_password";
    out.insert(out.end(), plugin.begin(), plugin.end());
    out.push_back(0);
    return out;
}

}  // namespace sluice::mariadb::test
