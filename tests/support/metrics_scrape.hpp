#pragma once
// Reading a tool's --metrics endpoints in tests: the port the tool printed
// on stderr, GETs with cpp-httplib's client, and one series' value from a
// Prometheus text exposition. Shared by the CDC and pipeline service tests.
#include <httplib.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <thread>
#include <vector>
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

// One series' value from a scrape of /metrics, -1 when the endpoint or the
// series is not there.
inline double scrape(int port, const std::string& series) {
    auto r = http_get(port, "/metrics");
    if (!r || r->status != 200) return -1;
    return metric_value(r->body, series).value_or(-1);
}

// Scrapes every 100 ms while alive and records whether a counter went down.
class Scraper {
public:
    Scraper(int port, std::vector<std::string> counters) : port_(port), counters_(std::move(counters)) {
        thread_ = std::thread([this] {
            std::vector<double> last(counters_.size(), 0);
            while (!stop_) {
                if (auto r = http_get(port_, "/metrics"); r && r->status == 200) {
                    ++scrapes_;
                    for (std::size_t i = 0; i < counters_.size(); ++i) {
                        const double v = metric_value(r->body, counters_[i]).value_or(-1);
                        if (v < last[i]) went_down_ = counters_[i] + " went from " + std::to_string(last[i]) + " to " + std::to_string(v);
                        last[i] = v;
                    }
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
    }
    ~Scraper() { stop(); }
    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    std::string went_down() const { return went_down_; }
    int scrapes() const { return scrapes_; }

private:
    int port_;
    std::vector<std::string> counters_;
    std::atomic<bool> stop_{false};
    std::atomic<int> scrapes_{0};
    std::string went_down_;
    std::thread thread_;
};

// Everything a person or a scraper can read from the process.
inline std::string every_endpoint(int port) {
    std::string all;
    for (const char* path : {"/metrics", "/healthz", "/status", "/"})
        if (auto r = http_get(port, path)) all += r->body;
    return all;
}

}  // namespace sluice::test_support
