#pragma once
// A private two-host network for tests that need an address that is not
// loopback: two network namespaces joined by a veth pair,
//
//   client namespace   sluice-c  10.231.19.1/29
//   server namespace   sluice-s  10.231.19.2/29 and 10.231.19.3/29
//
// Both namespaces are this process's own (named sluice-h19-<pid>-c/-s while
// they are set up), so concurrent runs cannot collide and nothing is routed
// anywhere: neither namespace has a route off the /29, and the root
// namespace (with the real network) never sees these addresses.
//
// Clean-up cannot be forgotten: once both are configured, the process holds
// each namespace by an open descriptor and deletes the names at once
// (`ip netns del`); the kernel frees the namespaces and the veth pair when
// the descriptors close, at the end of the test or when the process dies,
// however it dies. A failed step deletes whatever it had made and throws
// with the command and its output (e.g. "Operation not permitted" when not
// root).
//
// Code runs "on" a host in a thread of its own that joins that namespace
// (setns(2) changes only the calling thread): a socket keeps the namespace
// it was created in, so a listener made in the server namespace can be
// served from any thread.
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sluice::mariadb::test {

class TestNetwork {
public:
    static constexpr const char* client_address = "10.231.19.1";
    static constexpr const char* server_address = "10.231.19.2";
    // The same server host under a second address, which its certificate
    // does not name.
    static constexpr const char* other_server_address = "10.231.19.3";

    TestNetwork() {
        const std::string base = "sluice-h19-" + std::to_string(::getpid());
        client_name_ = base + "-c";
        server_name_ = base + "-s";
        // A name left by an earlier process of the same pid that died within
        // the microseconds between add and del below.
        run_quietly("ip netns del " + client_name_);
        run_quietly("ip netns del " + server_name_);
        try {
            run("ip netns add " + client_name_);
            run("ip netns add " + server_name_);
            run("ip -n " + client_name_ + " link add sluice-c type veth peer name sluice-s netns " + server_name_);
            run("ip -n " + client_name_ + " addr add " + client_address + "/29 dev sluice-c");
            run("ip -n " + server_name_ + " addr add " + server_address + "/29 dev sluice-s");
            run("ip -n " + server_name_ + " addr add " + other_server_address + "/29 dev sluice-s");
            for (const std::string* ns : {&client_name_, &server_name_}) {
                run("ip -n " + *ns + " link set lo up");
                run("ip -n " + *ns + " link set " + (ns == &client_name_ ? "sluice-c" : "sluice-s") + " up");
            }
            client_fd_ = open_namespace(client_name_);
            server_fd_ = open_namespace(server_name_);
        } catch (...) {
            close_descriptors();
            delete_names();
            throw;
        }
        delete_names();  // the descriptors keep both alive until the destructor
    }
    ~TestNetwork() { close_descriptors(); }
    TestNetwork(const TestNetwork&) = delete;
    TestNetwork& operator=(const TestNetwork&) = delete;

    // Runs f() in a new thread inside the client namespace and waits for it;
    // an exception f() throws is rethrown here. f may use gtest's EXPECT_*.
    template <class F>
    void on_client(F&& f) const {
        run_in(client_fd_, std::forward<F>(f));
    }
    template <class F>
    void on_server(F&& f) const {
        run_in(server_fd_, std::forward<F>(f));
    }

private:
    template <class F>
    static void run_in(int ns_fd, F&& f) {
        std::exception_ptr error;
        std::thread host([&] {
            try {
                if (::setns(ns_fd, CLONE_NEWNET) != 0) {
                    throw std::runtime_error(std::string("setns(CLONE_NEWNET) failed: ") + std::strerror(errno));
                }
                f();
            } catch (...) {
                error = std::current_exception();
            }
        });
        host.join();
        if (error) std::rethrow_exception(error);
    }

    // Runs a command line (fixed words and this process's pid only); throws
    // with its output unless it exits 0.
    static void run(const std::string& command) {
        std::string output;
        const int status = capture(command, output);
        if (status != 0) {
            throw std::runtime_error("test network: '" + command + "' failed (status " + std::to_string(status) +
                                     "): " + output);
        }
    }
    static void run_quietly(const std::string& command) {
        std::string ignored;
        capture(command, ignored);
    }
    static int capture(const std::string& command, std::string& output) {
        FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
        if (pipe == nullptr) {
            output = std::string("popen: ") + std::strerror(errno);
            return -1;
        }
        char buf[512];
        std::size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
        return ::pclose(pipe);
    }
    static int open_namespace(const std::string& name) {
        const std::string path = "/run/netns/" + name;
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw std::runtime_error("test network: cannot open " + path + ": " + std::strerror(errno));
        return fd;
    }
    void delete_names() const {
        run_quietly("ip netns del " + client_name_);
        run_quietly("ip netns del " + server_name_);
    }
    void close_descriptors() noexcept {
        for (int* fd : {&client_fd_, &server_fd_}) {
            if (*fd >= 0) ::close(*fd);
            *fd = -1;
        }
    }

    std::string client_name_, server_name_;
    int client_fd_ = -1;
    int server_fd_ = -1;
};

}  // namespace sluice::mariadb::test
