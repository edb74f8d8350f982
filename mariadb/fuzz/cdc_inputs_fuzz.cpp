// Fuzz target for the CDC parsers of untrusted input that are not binlog
// events: dump-stream packets (from the server), and the --out file, GTID
// states and table patterns (from files and command lines). Invariants
// beyond "no crash": a scanned file keeps a prefix of itself, and scanning
// what it keeps gives the same position with nothing more to cut.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/cdc/ndjson_file.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/replica.hpp"

using namespace sluice::mariadb;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        protocol::classify_dump_packet(protocol::Bytes(data, size));
    } catch (const Error&) {
    }
    try {
        cdc::GtidState s = cdc::GtidState::parse(text);
        if (cdc::GtidState::parse(s.to_string()) != s) std::abort();  // formats back to itself
    } catch (const Error&) {
    }
    try {
        cdc::TableFilter f = cdc::TableFilter::parse(text);
        (void)f.selects_ddl("db", text);
    } catch (const Error&) {
    }
    try {
        std::size_t keep = 0;
        cdc::FileResume r = cdc::scan_cdc_lines(text, cdc::GtidState{}, keep);
        if (keep > size || r.cut_bytes != size - keep) std::abort();
        std::size_t again = 0;
        cdc::FileResume r2 = cdc::scan_cdc_lines(text.substr(0, keep), cdc::GtidState{}, again);
        if (again != keep || r2.cut_bytes != 0 || !(r2.position == r.position)) std::abort();
    } catch (const Error&) {
    }
    return 0;
}
