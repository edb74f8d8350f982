#include "sluice/service/http_server.hpp"

#include <httplib.h>

#include <charconv>
#include <stdexcept>
#include <thread>

#include "sluice/service/secrets.hpp"

namespace sluice::service {

ListenAddress parse_listen_address(const std::string& text) {
    ListenAddress a;
    std::string port;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            throw std::invalid_argument("--metrics \"" + text + "\": expected [IPV6]:PORT");
        a.host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string::npos)
            throw std::invalid_argument("--metrics \"" + text + "\": expected HOST:PORT (e.g. 127.0.0.1:9187, port 0 for any free port)");
        a.host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (a.host.empty()) throw std::invalid_argument("--metrics \"" + text + "\": no host (give the address to bind, e.g. 127.0.0.1)");
    auto r = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (port.empty() || r.ec != std::errc() || r.ptr != port.data() + port.size() || a.port < 0 || a.port > 65535)
        throw std::invalid_argument("--metrics \"" + text + "\": port \"" + port + "\" is not a number in [0, 65535]");
    return a;
}

struct HttpServer::Impl {
    httplib::Server server;
    std::thread thread;
};

HttpServer::HttpServer(const ListenAddress& address, Monitor& monitor) : impl_(new Impl), host_(address.host) {
    httplib::Server& s = impl_->server;
    // cpp-httplib's default sets SO_REUSEPORT, which would let a second
    // process bind the same port beside us: only SO_REUSEADDR (a restart
    // may bind while old connections are in TIME_WAIT).
    s.set_socket_options([](socket_t sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    s.set_keep_alive_max_count(100);
    s.Get("/metrics", [&monitor](const httplib::Request&, httplib::Response& res) {
        res.set_content(mask_secrets(monitor.registry().exposition()), "text/plain; version=0.0.4; charset=utf-8");
    });
    s.Get("/healthz", [&monitor](const httplib::Request&, httplib::Response& res) {
        const std::string problems = mask_secrets(monitor.health().problems());
        res.status = problems.empty() ? 200 : 503;
        res.set_content(problems.empty() ? "ok\n" : problems + "\n", "text/plain; charset=utf-8");
    });
    s.Get("/status", [&monitor](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cache-Control", "no-store");
        res.set_content(monitor.status_json(), "application/json");
    });
    s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(status_page_html, "text/html; charset=utf-8");
    });
    if (address.port == 0) {
        port_ = s.bind_to_any_port(address.host);
        if (port_ <= 0) throw std::runtime_error("--metrics: cannot listen on " + address.host + " (any free port)");
    } else {
        if (!s.bind_to_port(address.host, address.port))
            throw std::runtime_error("--metrics: cannot listen on " + address.host + ":" + std::to_string(address.port) +
                                     " (in use, or not an address of this machine)");
        port_ = address.port;
    }
    impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
    // stop() before the thread runs would be lost (it only stops a running
    // server): wait until it runs.
    while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpServer::~HttpServer() {
    impl_->server.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

std::string HttpServer::url() const {
    const bool v6 = host_.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_) + "/";
}

}  // namespace sluice::service
