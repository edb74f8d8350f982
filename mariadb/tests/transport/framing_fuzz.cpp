// Fuzz entry point for the read side of PacketChannel: arbitrary bytes from
// the "server", plain or compressed (first input byte, low bit). Whatever the
// bytes, reading must end in an Error (closed, protocol, ...), never a crash,
// a hang or an allocation the input did not pay for (ASan enforces the
// first and last; the peer closes after the input, so reads cannot hang).
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <thread>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"

using namespace sluice::mariadb;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool compressed = (data[0] & 1U) != 0;
    const std::span<const std::uint8_t> stream(data + 1, size - 1);
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;
    Socket server = Socket::adopt(fds[1], "fuzz-server");
    PacketChannel client(Socket::adopt(fds[0], "fuzz-client"),
                         Timeouts{std::chrono::milliseconds(2000), std::chrono::milliseconds(2000),
                                  std::chrono::milliseconds(2000)});
    if (compressed) client.enable_compression();
    std::thread writer([&] {
        try {
            server.write_all(stream, deadline_after(std::chrono::seconds(2)));
        } catch (const Error&) {
            // The reader gave up early (protocol error): nothing to do.
        }
        server.shutdown();
    });
    std::size_t total = 0;
    try {
        for (;;) {
            const auto packet = client.read_packet();
            for (const std::uint8_t b : packet) total += b;
        }
    } catch (const Error&) {
        // Every malformed or truncated stream ends here.
    }
    client.close();
    writer.join();
    return total == 0xFFFFFFFFFFFFULL ? 1 : 0;  // keep `total` observable
}
