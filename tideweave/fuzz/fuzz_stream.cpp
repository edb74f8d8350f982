// Fuzzes Tideweave's input side: the bytes are NDJSON lines fed to both
// engines, and the whole input is also offered to checkpoint restore.
// Invariants (any violation aborts):
//  - nothing crashes, throws or hangs;
//  - an empty or blank line gives no output; every other line gives exactly one output
//    line, which is valid JSON, and is an error object exactly when the
//    outcome says error;
//  - the incremental and the naive engine write the same bytes;
//  - a checkpoint taken at the end restores to a stream whose snapshot is
//    byte-for-byte the original's.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sluice/tideweave/stream.hpp"

namespace {

using sluice::tideweave::EngineKind;
using sluice::tideweave::Stream;

[[noreturn]] void violated(const char* what, std::string_view line, std::string_view out) {
    std::fprintf(stderr, "tideweave fuzz invariant violated: %s\n  input:  %.*s\n  output: %.*s\n", what,
                 static_cast<int>(line.size()), line.data(), static_cast<int>(out.size()), out.data());
    std::abort();
}

simdjson::dom::parser& parser() {
    static simdjson::dom::parser p;
    return p;
}

// Blank lines (nothing but spaces, tabs and a CR) are skipped like empty ones
// (docs/tideweave.md).
bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

void check_one_line(std::string_view line, Stream::Outcome outcome, const std::string& out) {
    if (blank(line)) {
        if (outcome != Stream::Outcome::empty || !out.empty()) violated("empty line gave output", line, out);
        return;
    }
    if (out.empty() || out.back() != '\n' || out.find('\n') != out.size() - 1)
        violated("not exactly one output line", line, out);
    simdjson::dom::object object;
    if (parser().parse(out.data(), out.size() - 1).get_object().get(object) != simdjson::SUCCESS)
        violated("output is not a JSON object", line, out);
    const bool is_error = out.rfind("{\"error\":", 0) == 0;
    if (is_error != (outcome == Stream::Outcome::error)) violated("outcome disagrees with the output", line, out);
}

std::string snapshot_of(Stream& s) {
    std::string out;
    s.process_line("{\"snapshot\":true}", 1, out);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    // The whole input as a checkpoint: either a clean std::runtime_error or a
    // stream that works.
    try {
        Stream restored = Stream::restore(input);
        check_one_line("{\"snapshot\":true}", Stream::Outcome::ok, snapshot_of(restored));
    } catch (const std::runtime_error&) {
    }

    // Small configurations make sessions merge, split and finalize quickly.
    const sluice::tideweave::Config config{3, 5};
    Stream incremental(config, EngineKind::incremental);
    Stream naive(config, EngineKind::naive);
    std::int64_t line_no = 0;
    std::size_t begin = 0;
    while (begin <= input.size()) {
        std::size_t end = input.find('\n', begin);
        if (end == std::string_view::npos) end = input.size();
        const std::string_view line = input.substr(begin, end - begin);
        ++line_no;
        std::string a;
        std::string b;
        const auto outcome_a = incremental.process_line(line, line_no, a);
        const auto outcome_b = naive.process_line(line, line_no, b);
        check_one_line(line, outcome_a, a);
        if (outcome_a != outcome_b || a != b) violated("the engines disagree", line, a + b);
        begin = end + 1;
    }

    std::string checkpoint;
    incremental.process_line("{\"checkpoint\":true}", line_no + 1, checkpoint);
    check_one_line("{\"checkpoint\":true}", Stream::Outcome::ok, checkpoint);
    checkpoint.pop_back();
    try {
        Stream restored = Stream::restore(checkpoint, EngineKind::naive);
        if (snapshot_of(restored) != snapshot_of(incremental)) violated("restore changed the state", checkpoint, "");
    } catch (const std::runtime_error& e) {
        violated("restore rejected a checkpoint", checkpoint, e.what());
    }
    return 0;
}
