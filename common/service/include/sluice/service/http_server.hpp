#pragma once
// --metrics HOST:PORT: an HTTP server (cpp-httplib, Debian's
// libcpp-httplib-dev) on its own threads, bound to exactly the address
// given, serving
//   /metrics  the registry, Prometheus text format 0.0.4
//   /healthz  200 "ok", or 503 with the problems (health.hpp)
//   /status   Monitor::status_json()
//   /         the status page
// Port 0 picks a free port: port() says which.
#include <memory>
#include <string>

#include "sluice/service/monitor.hpp"

namespace sluice::service {

struct ListenAddress {
    std::string host;  // as given, without brackets for IPv6 ("::1")
    int port = 0;
};
// "HOST:PORT", "[IPV6]:PORT"; std::invalid_argument naming what is wrong.
ListenAddress parse_listen_address(const std::string& text);

class HttpServer {
public:
    // Binds (std::runtime_error naming the address when it cannot) and
    // starts serving.
    HttpServer(const ListenAddress& address, Monitor& monitor);
    ~HttpServer();  // stops serving and joins the threads
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    int port() const { return port_; }
    // http://HOST:PORT/ as the tools print it ("metrics: http://...").
    std::string url() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string host_;
    int port_ = 0;
};

}  // namespace sluice::service
