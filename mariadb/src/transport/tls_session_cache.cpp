// Resumable TLS client sessions per resumption key (see the header).
#include "tls_session_cache.hpp"

#include <algorithm>
#include <ctime>

namespace sluice::mariadb::detail {
namespace {

// OpenSSL checks a ticket's age itself (an expired one is not offered and
// the handshake is a full one); dropping it here keeps it from taking the
// place of a usable one.
bool usable(const SSL_SESSION* session) {
    if (SSL_SESSION_is_resumable(session) != 1) return false;
    const long now = static_cast<long>(std::time(nullptr));
    return SSL_SESSION_get_time(session) + SSL_SESSION_get_timeout(session) > now;
}

bool is_tls13(const SSL_SESSION* session) { return SSL_SESSION_get_protocol_version(session) >= TLS1_3_VERSION; }

}  // namespace

TlsSessionCache::Slot* TlsSessionCache::find(const std::string& key, bool create) {
    auto it = std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.key == key; });
    if (it == slots_.end()) {
        if (!create) return nullptr;
        if (slots_.size() >= max_keys) slots_.pop_back();  // least recently used
        slots_.insert(slots_.begin(), Slot{key, {}});
        return &slots_.front();
    }
    std::rotate(slots_.begin(), it, it + 1);
    return &slots_.front();
}

void TlsSessionCache::put(const std::string& key, SslSessionPtr session) {
    if (!session || !usable(session.get())) return;
    std::lock_guard lock(mutex_);
    Slot* slot = find(key, true);
    // A TLS 1.2 session replaces what the key had: it can be offered any
    // number of times, so one is enough.
    if (!is_tls13(session.get())) slot->sessions.clear();
    // Appended then rotated to the front rather than insert(begin()): GCC 12
    // at -O2 reports a false -Wnull-dereference inside vector::insert of a
    // unique_ptr, which breaks the release build under -Werror.
    slot->sessions.push_back(std::move(session));
    std::rotate(slot->sessions.begin(), slot->sessions.end() - 1, slot->sessions.end());
    if (slot->sessions.size() > max_sessions_per_key) slot->sessions.pop_back();
}

SslSessionPtr TlsSessionCache::take(const std::string& key) {
    std::lock_guard lock(mutex_);
    Slot* slot = find(key, false);
    if (slot == nullptr) return nullptr;
    while (!slot->sessions.empty()) {
        SslSessionPtr& newest = slot->sessions.front();
        if (!usable(newest.get())) {
            slot->sessions.erase(slot->sessions.begin());
            continue;
        }
        if (is_tls13(newest.get())) {
            SslSessionPtr taken = std::move(newest);
            slot->sessions.erase(slot->sessions.begin());
            return taken;
        }
        SSL_SESSION_up_ref(newest.get());
        return SslSessionPtr(newest.get());
    }
    return nullptr;
}

void TlsSessionCache::forget(const std::string& key, const SSL_SESSION* session) {
    std::lock_guard lock(mutex_);
    Slot* slot = find(key, false);
    if (slot == nullptr) return;
    std::erase_if(slot->sessions, [&](const SslSessionPtr& s) { return s.get() == session; });
}

std::size_t TlsSessionCache::size() {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const Slot& s : slots_) n += s.sessions.size();
    return n;
}

}  // namespace sluice::mariadb::detail
