// The publisher's reading of outside bytes: the headers of the stream's last
// message (any program may have written the stream) -> where to continue.
// Input: "Name: value" lines. Every input either gives a resume point or
// throws Error{protocol}; a snapshot id that parses formats back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"

using namespace sluice::mariadb;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    jetstream::StoredMessage m;
    m.seq = 1;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        const std::string_view line = text.substr(pos, nl - pos);
        const std::size_t colon = line.find(": ");
        if (colon != std::string_view::npos)
            m.headers.emplace(std::string(line.substr(0, colon)), std::string(line.substr(colon + 2)));
        pos = nl + 1;
    }
    try {
        jetstream::ResumePoint r = jetstream::resume_point(m, "S");
        if (r.from && r.unfinished_snapshot) std::abort();  // inside a snapshot there is no position
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::protocol) std::abort();
    }
    try {
        jetstream::SnapshotId id = jetstream::SnapshotId::parse(text, "fuzz");
        jetstream::SnapshotId back = jetstream::SnapshotId::parse(id.to_string(), "fuzz");
        if (!(back.at == id.at) || back.started_ms != id.started_ms) std::abort();
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::protocol) std::abort();
    }
    return 0;
}
