#pragma once
// A private two-host network for tests that need an address that is not
// loopback: two network namespaces joined by a veth pair,
//
//   client namespace   sluice-c  10.231.19.1/29, fd00:231:19::1/64
//   server namespace   sluice-s  10.231.19.2/29 and 10.231.19.3/29,
//                                 fd00:231:19::2/64
//   (IPv6 without duplicate address detection, so usable at once)
//
// Both namespaces are this process's own and have no name: each is made by
// a thread's unshare(CLONE_NEWNET) and held only by a descriptor
// (/proc/thread-self/ns/net), so concurrent runs cannot collide, nothing is
// routed anywhere (neither namespace has a route off its subnets, and the
// root namespace, with the real network, never sees these addresses), and
// nothing can be left behind: the kernel frees both namespaces and the
// veth pair when the descriptors close, at the end of the test or when the
// process dies, however it dies (a named namespace, `ip netns add`, would
// outlive a SIGKILL between its add and its del). A failed step throws with
// the command and its output, or the system call and errno (e.g.
// "Operation not permitted" when not root).
//
// Code runs "on" a host in a thread of its own that joins that namespace
// (setns(2) changes only the calling thread, and a command it starts runs
// there too): a socket keeps the namespace it was created in, so a listener
// made in the server namespace can be served from any thread.
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
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
    static constexpr const char* server_address_v6 = "fd00:231:19::2";

    TestNetwork() {
        try {
            client_fd_ = new_namespace();
            server_fd_ = new_namespace();
            // ip's "netns" takes a process id, and a thread's id is one: the
            // pair is made in the server namespace, its client end sent to a
            // thread parked in the client namespace meanwhile.
            std::promise<pid_t> parked;
            std::promise<void> release;
            std::exception_ptr park_error;
            std::thread parker([&] {
                try {
                    join(client_fd_);
                    parked.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
                } catch (...) {
                    park_error = std::current_exception();
                    parked.set_value(-1);
                }
                release.get_future().wait();
            });
            const pid_t client_thread = parked.get_future().get();
            try {
                if (park_error) std::rethrow_exception(park_error);
                on_server([&] {
                    run("ip link add sluice-s type veth peer name sluice-c netns " + std::to_string(client_thread));
                });
            } catch (...) {
                release.set_value();
                parker.join();
                throw;
            }
            release.set_value();
            parker.join();
            on_server([&] {
                run(std::string("ip addr add ") + server_address + "/29 dev sluice-s");
                run(std::string("ip addr add ") + other_server_address + "/29 dev sluice-s");
                run(std::string("ip addr add ") + server_address_v6 + "/64 dev sluice-s nodad");
                run("ip link set lo up");
                run("ip link set sluice-s up");
            });
            on_client([&] {
                run(std::string("ip addr add ") + client_address + "/29 dev sluice-c");
                run("ip addr add fd00:231:19::1/64 dev sluice-c nodad");
                run("ip link set lo up");
                run("ip link set sluice-c up");
            });
        } catch (...) {
            close_descriptors();
            throw;
        }
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
                join(ns_fd);
                f();
            } catch (...) {
                error = std::current_exception();
            }
        });
        host.join();
        if (error) std::rethrow_exception(error);
    }

    // Runs a command line (fixed words and numbers only) in the calling
    // thread's namespace; throws with its output unless it exits 0.
    static void run(const std::string& command) {
        std::string output;
        const int status = capture(command, output);
        if (status != 0) {
            throw std::runtime_error("test network: '" + command + "' failed (status " + std::to_string(status) +
                                     "): " + output);
        }
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
    // The calling thread enters the namespace `ns_fd`.
    static void join(int ns_fd) {
        if (::setns(ns_fd, CLONE_NEWNET) != 0) {
            throw std::runtime_error(std::string("test network: setns(CLONE_NEWNET) failed: ") + std::strerror(errno));
        }
    }
    // A new, empty network namespace (only a `lo`, down), made by a thread
    // that leaves it at once; the descriptor returned is what keeps it.
    static int new_namespace() {
        int fd = -1;
        std::string error;
        std::thread maker([&] {
            if (::unshare(CLONE_NEWNET) != 0) {
                error = std::string("unshare(CLONE_NEWNET) failed: ") + std::strerror(errno);
                return;
            }
            fd = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
            if (fd < 0) error = std::string("cannot open /proc/thread-self/ns/net: ") + std::strerror(errno);
        });
        maker.join();
        if (fd < 0) throw std::runtime_error("test network: " + error);
        return fd;
    }
    void close_descriptors() noexcept {
        for (int* fd : {&client_fd_, &server_fd_}) {
            if (*fd >= 0) ::close(*fd);
            *fd = -1;
        }
    }

    int client_fd_ = -1;
    int server_fd_ = -1;
};

}  // namespace sluice::mariadb::test
