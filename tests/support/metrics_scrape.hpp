#pragma once
// Reading a tool's --metrics endpoints in tests: the port the tool printed
// on stderr, GETs with cpp-httplib's client, and one series' value from a
// Prometheus text exposition. Shared by the CDC and pipeline service tests.
#include <httplib.h>

#include <charconv>
#include <optional>
#include <regex>
#include <string>

#include "own_servers.hpp"

namespace sluice::test_support {

struct HttpReply {
    int status = 0;
    std::string body;
};

inline std::optional<HttpReply> http_get(int port, const std::string& path) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    auto r = c.Get(path.c_str());
    if (!r) return std::nullopt;
    return HttpReply{r->status, r->body};
}

// The port of "metrics: http://127.0.0.1:PORT/" in the log at `path`, once
// the tool wrote it (0 when it did not within `limit`).
inline int metrics_port(const std::string& path, std::chrono::milliseconds limit = std::chrono::seconds(60)) {
    static const std::regex line(R"(metrics: http://127\.0\.0\.1:([0-9]+)/)");
    int port = 0;
    wait_until(
        [&] {
            std::smatch m;
            const std::string text = read_text(path);
            if (!std::regex_search(text, m, line)) return false;
            port = std::stoi(m[1].str());
            return true;
        },
        limit);
    return port;
}

// The value of the series `series` (a name, or name{labels} as written)
// in an exposition; nullopt when it is not there.
inline std::optional<double> metric_value(const std::string& exposition, const std::string& series) {
    std::size_t at = 0;
    while ((at = exposition.find(series + " ", at)) != std::string::npos) {
        if (at == 0 || exposition[at - 1] == '\n') {
            const std::size_t begin = at + series.size() + 1;
            const std::size_t end = exposition.find('\n', begin);
            return std::stod(exposition.substr(begin, end - begin));
        }
        at += series.size();
    }
    return std::nullopt;
}

}  // namespace sluice::test_support
