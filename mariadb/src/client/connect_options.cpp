// mariadb:// URLs. Grammar in connect_options.hpp and docs/mariadb.md.
#include <charconv>
#include <cmath>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/host_list.hpp"
#include "url_parts.hpp"

namespace sluice::mariadb {

// Secure by default, as Connector/C 3.4: without a mode, a connection that
// crosses a network verifies the server (else anyone on the path can stand
// in for it and read the login and the data); local transports keep prefer,
// which nobody off the machine can intercept.
SslMode ConnectOptions::effective_ssl_mode(PeerLocality peer) const noexcept {
    if (ssl_mode) return *ssl_mode;
    if (!ssl_ca.empty() || !ssl_capath.empty()) return SslMode::verify_full;
    return peer == PeerLocality::network ? SslMode::verify_full : SslMode::prefer;
}

namespace {

[[noreturn]] void bad_url(std::string_view what) { throw Error(ErrorKind::usage, "invalid URL: " + std::string(what)); }

int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::string detail::percent_decode(std::string_view s, std::string_view part) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
        int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) bad_url("bad percent-escape in " + std::string(part));
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

namespace {
using detail::percent_decode;

bool parse_bool(std::string_view key, std::string_view v) {
    if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "0" || v == "no" || v == "off") return false;
    bad_url(std::string(key) + "=" + std::string(v) + " (expected true or false)");
}

std::uint64_t parse_count(std::string_view key, std::string_view v) {
    std::uint64_t n = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size()) {
        bad_url(std::string(key) + "=" + std::string(v) + " (expected a non-negative integer)");
    }
    return n;
}

std::chrono::milliseconds parse_seconds(std::string_view key, std::string_view v) {
    double s = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), s);
    if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size() || !(s >= 0) || s > 1e9) {
        bad_url(std::string(key) + "=" + std::string(v) + " (expected seconds, e.g. 2.5)");
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(s * 1000)));
}

void apply_param(ConnectOptions& o, std::string key, std::string value) {
    for (char& c : key)
        if (c == '_') c = '-';
    if (key == "ssl-mode") o.ssl_mode = parse_ssl_mode(value);
    else if (key == "ssl-ca") o.ssl_ca = value;
    else if (key == "ssl-capath") o.ssl_capath = value;
    else if (key == "ssl-cert") o.ssl_cert = value;
    else if (key == "ssl-key") o.ssl_key = value;
    else if (key == "ssl-cipher") o.ssl_cipher = value;
    else if (key == "ssl-session-reuse") o.tls_session_reuse = parse_bool(key, value);
    else if (key == "socket") o.unix_socket = value;
    else if (key == "connect-timeout") o.timeouts.connect = parse_seconds(key, value);
    else if (key == "read-timeout") o.timeouts.read = parse_seconds(key, value);
    else if (key == "write-timeout") o.timeouts.write = parse_seconds(key, value);
    else if (key == "compress") o.compress = parse_bool(key, value);
    else if (key == "compress-threshold") o.compress_threshold = parse_count(key, value);
    else if (key == "allow-cleartext") o.allow_cleartext = parse_bool(key, value);
    else if (key == "long-data-threshold") {
        o.long_data_threshold = parse_count(key, value);
        if (o.long_data_threshold == 0) bad_url("long-data-threshold must be positive");
    } else if (key == "init-command") o.init_commands.push_back(value);
    else bad_url("unknown parameter '" + key + "'");
}

}  // namespace

// host[:port], [v6]:port, or a percent-encoded socket path; an empty host
// stays empty (the caller's default), a missing port is 3306.
ServerAddress detail::parse_server(std::string_view authority, std::string_view what) {
    ServerAddress out;
    std::string_view host = authority;
    std::string_view port;
    if (!authority.empty() && authority[0] == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) bad_url("unterminated '[' in " + std::string(what));
        host = authority.substr(1, close - 1);
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') bad_url("unexpected text after ']' in " + std::string(what));
            port = after.substr(1);
        }
    } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    if (!host.empty()) {
        std::string h = percent_decode(host, what);
        // A percent-encoded path as host is the unix socket form.
        if (h[0] == '/') out.unix_socket = h;
        else out.host = h;
    }
    if (!port.empty()) {
        std::uint64_t p = parse_count("port", port);
        if (p == 0 || p > 65535) bad_url("port " + std::string(port) + " out of range");
        out.port = static_cast<std::uint16_t>(p);
    }
    return out;
}

ConnectOptions parse_url(std::string_view url) {
    ConnectOptions o;
    std::string_view rest;
    for (std::string_view scheme : {"mariadb://", "mysql://"}) {
        if (url.substr(0, scheme.size()) == scheme) rest = url.substr(scheme.size());
    }
    // The URL itself is not echoed: its start may hold a password.
    if (rest.data() == nullptr) bad_url("the scheme must be mariadb:// or mysql://");

    // Split off ?query first, then /database, then user@host:port.
    std::string_view query;
    if (auto q = rest.find('?'); q != std::string_view::npos) {
        query = rest.substr(q + 1);
        rest = rest.substr(0, q);
    }
    std::string_view authority = rest;
    if (auto slash = rest.find('/'); slash != std::string_view::npos) {
        authority = rest.substr(0, slash);
        std::string_view db = rest.substr(slash + 1);
        if (db.find('/') != std::string_view::npos) bad_url("database name may not contain '/' (escape it as %2F)");
        o.database = percent_decode(db, "database");
    }
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
        std::string_view userinfo = authority.substr(0, at);
        authority = authority.substr(at + 1);
        if (auto colon = userinfo.find(':'); colon != std::string_view::npos) {
            o.user = percent_decode(userinfo.substr(0, colon), "user");
            o.password = percent_decode(userinfo.substr(colon + 1), "password");
        } else {
            o.user = percent_decode(userinfo, "user");
        }
    }
    if (authority.find(',') != std::string_view::npos) {
        o.hosts = parse_host_list(authority);
        o.host = o.hosts.front().host;
        o.port = o.hosts.front().port;
    } else {
        ServerAddress one = detail::parse_server(authority, "host");
        if (!one.unix_socket.empty()) o.unix_socket = one.unix_socket;
        else if (!one.host.empty()) o.host = one.host;
        o.port = one.port;
    }
    while (!query.empty()) {
        std::string_view pair = query.substr(0, query.find('&'));
        query = pair.size() < query.size() ? query.substr(pair.size() + 1) : std::string_view{};
        if (pair.empty()) continue;
        auto eq = pair.find('=');
        if (eq == std::string_view::npos) bad_url("parameter '" + std::string(pair) + "' has no value");
        apply_param(o, percent_decode(pair.substr(0, eq), "parameter name"),
                    percent_decode(pair.substr(eq + 1), "parameter value"));
    }
    if (!o.hosts.empty() && !o.unix_socket.empty()) bad_url("socket= cannot go with a list of hosts");
    return o;
}

}  // namespace sluice::mariadb
