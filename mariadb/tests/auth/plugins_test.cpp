// Known-answer and behaviour tests of the auth plugins, without a server.
#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/mariadb/auth/auth_plugin.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

std::string hex(const Bytes& b) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (auto c : b) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

Bytes scramble20() {
    Bytes s(20);
    for (std::size_t i = 0; i < 20; ++i) s[i] = static_cast<std::uint8_t>(i + 1);
    return s;
}

ErrorKind kind_of(auto&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "no Error thrown";
    return ErrorKind::usage;
}

TEST(NativePassword, KnownAnswer) {
    // Computed independently:
    //   python3 -c "import hashlib; pw=b'secret-pass'; scr=bytes(range(1,21));
    //     s1=hashlib.sha1(pw).digest(); s2=hashlib.sha1(s1).digest();
    //     m=hashlib.sha1(scr+s2).digest(); print(bytes(a^b for a,b in zip(s1,m)).hex())"
    auto plugin = make_auth_plugin("mysql_native_password");
    EXPECT_EQ(plugin->name(), "mysql_native_password");
    AuthContext ctx{.user = "u", .password = "secret-pass"};
    EXPECT_EQ(hex(plugin->start(scramble20(), ctx)), "398f38a7476e120e2857bef7ed77094850e7d047");
}

TEST(NativePassword, TrailingNulOfTheScrambleIsIgnored) {
    auto plugin = make_auth_plugin("mysql_native_password");
    AuthContext ctx{.user = "u", .password = "secret-pass"};
    Bytes with_nul = scramble20();
    with_nul.push_back(0);
    EXPECT_EQ(hex(plugin->start(with_nul, ctx)), "398f38a7476e120e2857bef7ed77094850e7d047");
}

TEST(NativePassword, EmptyPasswordGivesAnEmptyResponse) {
    auto plugin = make_auth_plugin("mysql_native_password");
    EXPECT_TRUE(plugin->start(scramble20(), AuthContext{.user = "u", .password = ""}).empty());
}

TEST(NativePassword, ShortScrambleIsAProtocolError) {
    auto plugin = make_auth_plugin("mysql_native_password");
    EXPECT_EQ(kind_of([&] { plugin->start(Bytes(8, 1), AuthContext{.password = "x"}); }), ErrorKind::protocol);
}

TEST(NativePassword, UnexpectedMoreDataIsAProtocolError) {
    auto plugin = make_auth_plugin("mysql_native_password");
    EXPECT_EQ(kind_of([&] { plugin->more(Bytes{1, 2}, AuthContext{}); }), ErrorKind::protocol);
}

// The public key MariaDB stores for a password (what ed25519_password()
// returns), derived here with libsodium's clamping base multiplication.
std::array<unsigned char, 32> ed25519_public_key(std::string_view password) {
    std::array<unsigned char, 64> az{};
    crypto_hash_sha512(az.data(), reinterpret_cast<const unsigned char*>(password.data()), password.size());
    std::array<unsigned char, 32> a{};
    std::copy(az.begin(), az.begin() + 32, a.begin());
    std::array<unsigned char, 32> pk{};
    EXPECT_EQ(crypto_scalarmult_ed25519_base(pk.data(), a.data()), 0);
    return pk;
}

std::string base64(const std::array<unsigned char, 32>& key) {
    char out[64];
    sodium_bin2base64(out, sizeof out, key.data(), key.size(), sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
    return out;
}

TEST(Ed25519, PublicKeyDerivationMatchesMariaDBsOwnVectors) {
    ASSERT_GE(sodium_init(), 0);
    // Read from a real MariaDB 10.11.19: CREATE USER t IDENTIFIED VIA ed25519
    // USING PASSWORD('foo'), then JSON_VALUE(priv, '$.authentication_string')
    // FROM mysql.global_priv (and the same for 'foobar').
    EXPECT_EQ(base64(ed25519_public_key("foo")), "vubFBzIrapbfHct1/J72dnUryz5VS7lA6XHH8sIx4TI");
    EXPECT_EQ(base64(ed25519_public_key("foobar")), "qv2mG6HWCuy32Slb5xhV4THStewNz2VINVPbgk+XAJ8");
}

TEST(Ed25519, SignatureVerifiesAgainstThePasswordsPublicKey) {
    ASSERT_GE(sodium_init(), 0);
    auto plugin = make_auth_plugin("client_ed25519");
    EXPECT_EQ(plugin->name(), "client_ed25519");
    for (std::string_view password : {"foo", "foobar", "", "a much longer password with spaces and ünïcödé"}) {
        Bytes message(32);
        randombytes_buf(message.data(), message.size());
        const Bytes signature = plugin->start(message, AuthContext{.password = password});
        ASSERT_EQ(signature.size(), 64U);
        const auto pk = ed25519_public_key(password);
        EXPECT_EQ(crypto_sign_verify_detached(signature.data(), message.data(), message.size(), pk.data()), 0)
            << "password '" << password << "'";
        // Another password's key must not verify it.
        const auto other = ed25519_public_key(std::string(password) + "x");
        EXPECT_NE(crypto_sign_verify_detached(signature.data(), message.data(), message.size(), other.data()), 0);
    }
}

TEST(Ed25519, AScrambleEndingInZeroIsSignedWhole) {
    // Regression: a trailing zero byte of the 32 random bytes was taken for a
    // NUL terminator, and the login failed ("scramble has 31 bytes").
    ASSERT_GE(sodium_init(), 0);
    auto plugin = make_auth_plugin("client_ed25519");
    Bytes message(32, 0x5A);
    message[31] = 0;
    const Bytes signature = plugin->start(message, AuthContext{.password = "pw"});
    ASSERT_EQ(signature.size(), 64U);
    const auto pk = ed25519_public_key("pw");
    EXPECT_EQ(crypto_sign_verify_detached(signature.data(), message.data(), message.size(), pk.data()), 0);
    // With a NUL terminator after it (33 bytes) the same 32 bytes are signed.
    Bytes terminated = message;
    terminated.push_back(0);
    EXPECT_EQ(plugin->start(terminated, AuthContext{.password = "pw"}), signature);
}

TEST(Ed25519, SignatureIsDeterministic) {
    auto plugin = make_auth_plugin("client_ed25519");
    const Bytes message(32, 7);
    EXPECT_EQ(plugin->start(message, AuthContext{.password = "pw"}),
              plugin->start(message, AuthContext{.password = "pw"}));
}

TEST(Ed25519, WrongScrambleSizeIsAProtocolError) {
    auto plugin = make_auth_plugin("client_ed25519");
    EXPECT_EQ(kind_of([&] { plugin->start(Bytes(20, 1), AuthContext{.password = "pw"}); }), ErrorKind::protocol);
}

TEST(ClearPassword, SendsThePasswordWithANulOnSecureTransport) {
    auto plugin = make_auth_plugin("mysql_clear_password");
    const AuthContext ctx{.user = "u", .password = "pw1", .secure_transport = true};
    EXPECT_EQ(plugin->start(scramble20(), ctx), (Bytes{'p', 'w', '1', 0}));
}

TEST(ClearPassword, RefusedWithoutTlsUnlessAllowed) {
    auto plugin = make_auth_plugin("mysql_clear_password");
    try {
        plugin->start(scramble20(), AuthContext{.user = "u", .password = "pw1"});
        FAIL() << "expected a refusal";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth);
        EXPECT_NE(std::string(e.what()).find("mysql_clear_password"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("without TLS"), std::string::npos) << e.what();
    }
    const AuthContext allowed{.user = "u", .password = "pw1", .allow_cleartext = true};
    EXPECT_EQ(plugin->start(scramble20(), allowed), (Bytes{'p', 'w', '1', 0}));
}

TEST(Dialog, AnswersEveryQuestionWithThePassword) {
    auto plugin = make_auth_plugin("dialog");
    EXPECT_EQ(plugin->name(), "dialog");
    const AuthContext ctx{.user = "u", .password = "pam-pw", .secure_transport = true};
    Bytes first = bytes_of("\x04Password: ");
    EXPECT_EQ(plugin->start(first, ctx), bytes_of(std::string("pam-pw") + '\0'));
    // Second round: an ordinary question, then the last password question.
    auto second = plugin->more(bytes_of("\x02One-time code: "), ctx);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(*second, bytes_of(std::string("pam-pw") + '\0'));
    auto third = plugin->more(bytes_of("\x05Password again: "), ctx);
    ASSERT_TRUE(third.has_value());
    EXPECT_EQ(*third, bytes_of(std::string("pam-pw") + '\0'));
}

TEST(Dialog, RefusedWithoutTlsUnlessAllowed) {
    auto plugin = make_auth_plugin("dialog");
    EXPECT_EQ(kind_of([&] { plugin->start(bytes_of("\x04Password: "), AuthContext{.password = "x"}); }),
              ErrorKind::auth);
    auto allowed = make_auth_plugin("dialog");
    EXPECT_EQ(allowed->start(bytes_of("\x04Password: "), AuthContext{.password = "x", .allow_cleartext = true}),
              (Bytes{'x', 0}));
}

TEST(Dialog, EndlessQuestionsAreCutOff) {
    auto plugin = make_auth_plugin("dialog");
    const AuthContext ctx{.password = "x", .secure_transport = true};
    plugin->start(bytes_of("\x04Password: "), ctx);
    EXPECT_EQ(kind_of([&] {
                  for (int i = 0; i < 100; ++i) plugin->more(bytes_of("\x04Password: "), ctx);
              }),
              ErrorKind::auth);
}

TEST(Dialog, UnknownQuestionTypeIsAProtocolError) {
    auto plugin = make_auth_plugin("dialog");
    EXPECT_EQ(kind_of([&] { plugin->start(bytes_of("\x09?"), AuthContext{.password = "x", .secure_transport = true}); }),
              ErrorKind::protocol);
}

TEST(Gssapi, EmptyServicePrincipalIsAProtocolError) {
    auto plugin = make_auth_plugin("auth_gssapi_client");
    EXPECT_EQ(plugin->name(), "auth_gssapi_client");
    EXPECT_EQ(kind_of([&] { plugin->start(Bytes{0}, AuthContext{}); }), ErrorKind::protocol);
}

TEST(Gssapi, MissingTicketGivesAnAuthErrorWithGssStatus) {
    // No credentials cache at all: libkrb5 must report it, and the plugin
    // must pass the GSS status text on.
    ::setenv("KRB5CCNAME", "FILE:/nonexistent/sluice-no-ccache", 1);
    auto plugin = make_auth_plugin("auth_gssapi_client");
    const std::string spn = "mariadb/localhost@SLUICE.TEST";
    Bytes data(spn.begin(), spn.end());
    data.push_back(0);
    try {
        plugin->start(data, AuthContext{.user = "u"});
        FAIL() << "expected an auth error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth);
        const std::string what = e.what();
        EXPECT_NE(what.find(spn), std::string::npos) << what;
        EXPECT_NE(what.find("/nonexistent/sluice-no-ccache"), std::string::npos) << what;
    }
}

TEST(Registry, UnknownPluginNamesIt) {
    try {
        make_auth_plugin("caching_sha2_password");
        FAIL() << "expected an auth error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::auth);
        EXPECT_NE(std::string(e.what()).find("'caching_sha2_password'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace sluice::mariadb
