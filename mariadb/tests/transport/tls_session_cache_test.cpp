// The per-context store of resumable TLS sessions, without a server: the
// sessions are made by hand (an id makes one resumable), so the keying, the
// single use of TLS 1.3 tickets and the bounds can be checked exactly.
#include "tls_session_cache.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <string>

namespace sluice::mariadb::detail {
namespace {

// A resumable session of `version`, made now, valid for `lifetime` seconds.
SslSessionPtr make_session(int version, unsigned char id, long lifetime = 3600) {
    SslSessionPtr s(SSL_SESSION_new());
    const unsigned char session_id[1] = {id};
    EXPECT_EQ(SSL_SESSION_set1_id(s.get(), session_id, 1), 1);
    EXPECT_EQ(SSL_SESSION_set_protocol_version(s.get(), version), 1);
    SSL_SESSION_set_time(s.get(), static_cast<long>(std::time(nullptr)));
    SSL_SESSION_set_timeout(s.get(), lifetime);
    return s;
}

// The id of a session, to tell them apart.
int id_of(const SslSessionPtr& s) {
    if (!s) return -1;
    unsigned int length = 0;
    const unsigned char* id = SSL_SESSION_get_id(s.get(), &length);
    return length == 1 ? id[0] : -1;
}

TEST(TlsSessionCache, OffersOnlyUnderTheSameKey) {
    TlsSessionCache cache;
    cache.put("127.0.0.1:3306\n127.0.0.1\nrequire", make_session(TLS1_3_VERSION, 1));
    EXPECT_EQ(cache.take("127.0.0.1:3306\n127.0.0.1\nverify-full"), nullptr);
    EXPECT_EQ(cache.take("127.0.0.1:3307\n127.0.0.1\nrequire"), nullptr);
    EXPECT_EQ(cache.take("127.0.0.1:3306\nlocalhost\nrequire"), nullptr);
    EXPECT_EQ(id_of(cache.take("127.0.0.1:3306\n127.0.0.1\nrequire")), 1);
}

TEST(TlsSessionCache, Tls13TicketsAreTakenNewestFirstAndOnlyOnce) {
    TlsSessionCache cache;
    cache.put("k", make_session(TLS1_3_VERSION, 1));
    cache.put("k", make_session(TLS1_3_VERSION, 2));
    EXPECT_EQ(cache.size(), 2U);
    EXPECT_EQ(id_of(cache.take("k")), 2);
    EXPECT_EQ(id_of(cache.take("k")), 1);
    EXPECT_EQ(cache.take("k"), nullptr);
    EXPECT_EQ(cache.size(), 0U);
}

TEST(TlsSessionCache, ATls12SessionStaysUntilForgotten) {
    TlsSessionCache cache;
    cache.put("k", make_session(TLS1_2_VERSION, 1));
    cache.put("k", make_session(TLS1_2_VERSION, 2));
    EXPECT_EQ(cache.size(), 1U) << "a TLS 1.2 session replaces the key's older ones";
    const SslSessionPtr first = cache.take("k");
    EXPECT_EQ(id_of(first), 2);
    EXPECT_EQ(id_of(cache.take("k")), 2) << "reusable: offered again";
    cache.forget("k", first.get());
    EXPECT_EQ(cache.take("k"), nullptr);
}

TEST(TlsSessionCache, NeitherExpiredNorUnresumableSessionsAreKeptOrOffered) {
    TlsSessionCache cache;
    SslSessionPtr old = make_session(TLS1_3_VERSION, 1, 10);
    SSL_SESSION_set_time(old.get(), static_cast<long>(std::time(nullptr)) - 60);
    cache.put("k", std::move(old));
    cache.put("k", SslSessionPtr(SSL_SESSION_new()));  // no id, no ticket
    EXPECT_EQ(cache.size(), 0U);
    EXPECT_EQ(cache.take("k"), nullptr);
}

TEST(TlsSessionCache, BoundedPerKeyAndInKeys) {
    TlsSessionCache cache;
    for (unsigned char i = 0; i < 10; ++i) cache.put("k", make_session(TLS1_3_VERSION, i));
    EXPECT_EQ(cache.size(), TlsSessionCache::max_sessions_per_key);
    EXPECT_EQ(id_of(cache.take("k")), 9) << "the newest are kept";

    TlsSessionCache many;
    for (std::size_t k = 0; k < TlsSessionCache::max_keys; ++k) {
        many.put("key" + std::to_string(k), make_session(TLS1_3_VERSION, 1));
    }
    // key0, the oldest, is used again: key1 is now the least recently used.
    EXPECT_EQ(id_of(many.take("key0")), 1);
    many.put("key0", make_session(TLS1_3_VERSION, 7));
    many.put("one more", make_session(TLS1_3_VERSION, 1));
    EXPECT_EQ(many.size(), TlsSessionCache::max_keys);
    EXPECT_EQ(many.take("key1"), nullptr) << "the least recently used key made room";
    EXPECT_EQ(id_of(many.take("key0")), 7);
    EXPECT_EQ(id_of(many.take("one more")), 1);
    EXPECT_EQ(id_of(many.take("key2")), 1);
}

}  // namespace
}  // namespace sluice::mariadb::detail
