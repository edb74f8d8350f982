// Fuzzes the binary checkpoint decoder (decode_binary) and what restores
// from it: the bytes a pipeline reads back from a database column.
// Invariants (any violation aborts):
//  - nothing crashes, throws or hangs; hostile bytes give an Error of kind
//    checkpoint whose message starts "malformed tideweave checkpoint: ";
//  - a decoded checkpoint re-encodes to bytes that decode to the same value;
//  - if it restores, both engines restore it (or neither), to the same state,
//    with the source position kept; that state's checkpoint round-trips
//    through JSON and binary to the same value and restores to the same
//    snapshot.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/engine.hpp"

namespace {

namespace tw = sluice::tideweave;

[[noreturn]] void violated(const char* what, std::string_view detail) {
    std::fprintf(stderr, "tideweave checkpoint fuzz invariant violated: %s\n  %.*s\n", what,
                 static_cast<int>(detail.size()), detail.data());
    std::abort();
}

void check_error(const tw::Error& e) {
    if (e.kind != tw::ErrorKind::checkpoint || e.message.rfind("malformed tideweave checkpoint: ", 0) != 0)
        violated("an error that is not a checkpoint error", e.message);
}

std::string rows_of(tw::Engine& engine) {
    std::string out;
    const tw::Snapshot s = engine.snapshot();
    for (const tw::Row& r : s.rows) {
        out.append(r.key);
        out += ' ' + std::to_string(r.start) + ' ' + std::to_string(r.end) + ' ' + std::to_string(r.count) + ' ' +
               std::to_string(r.sum) + ' ' + std::to_string(r.min) + ' ' + std::to_string(r.max) +
               (r.final ? " final\n" : "\n");
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto decoded = tw::decode_binary(input);
    if (!decoded) {
        check_error(decoded.error());
        return 0;
    }
    const auto again = tw::decode_binary(tw::encode_binary(*decoded));
    if (!again || !(*again == *decoded)) violated("re-encoding changed the checkpoint", input);

    auto incremental = tw::Engine::restore(*decoded, tw::EngineKind::incremental);
    auto naive = tw::Engine::restore(*decoded, tw::EngineKind::naive);
    if (incremental.ok() != naive.ok()) violated("the engines disagree on restoring", input);
    if (!incremental) {
        check_error(incremental.error());
        if (incremental.error().message != naive.error().message) violated("the engines word it differently", input);
        return 0;
    }
    if (incremental->source_position() != decoded->source_position) violated("the source position changed", input);
    const tw::Checkpoint state = incremental->checkpoint(decoded->source_position);
    if (!(naive->checkpoint(decoded->source_position) == state)) violated("the engines restored different states", input);
    const std::string snapshot = rows_of(*incremental);
    for (const bool binary : {false, true}) {
        const auto round = binary ? tw::decode_binary(tw::encode_binary(state)) : tw::decode_json(tw::encode_json(state));
        if (!round) violated("a restored state's checkpoint does not decode", round.error().message);
        if (!(*round == state)) violated("a restored state's checkpoint does not round-trip", input);
        auto restored = tw::Engine::restore(*round);
        if (!restored) violated("a restored state's checkpoint does not restore", restored.error().message);
        if (rows_of(*restored) != snapshot) violated("restoring again changed the rows", input);
    }
    return 0;
}
