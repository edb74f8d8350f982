// The property test: thousands of random workloads, each run through the
// incremental engine, the naive engine and a chain of checkpoint restores,
// every output line compared with the brute-force model's.
//
// Reproduce a failure with TIDEWEAVE_PROPERTY_SEED=<seed> (printed on
// failure, together with a file holding the workload's input lines);
// TIDEWEAVE_PROPERTY_WORKLOADS=<n> changes how many workloads run,
// TIDEWEAVE_PROPERTY_LINES=<n> gives every workload n lines (12 to 48 by default).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "model.hpp"
#include "sluice/tideweave/stream.hpp"
#include "workload.hpp"

namespace sluice::tideweave {
namespace {

using model::Expected;
using model::GeneratedLine;
using model::Line;
using model::Model;
using model::WorkloadGenerator;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

simdjson::dom::parser& parser() {
    static simdjson::dom::parser p;
    return p;
}

const char* kind_name(EngineKind k) { return k == EngineKind::incremental ? "incremental" : "naive"; }

// Checks one actual output line against the model's verdict; returns a
// description of the difference, or nothing.
std::optional<std::string> check_output(const Expected& expected, const GeneratedLine& g,
                                        Stream::Outcome outcome, const std::string& out) {
    if (expected.kind == Expected::Kind::none) {
        if (outcome != Stream::Outcome::empty || !out.empty()) return "an empty line must give no output";
        return std::nullopt;
    }
    if (out.empty() || out.back() != '\n' || out.find('\n') != out.size() - 1)
        return "not exactly one output line";
    switch (expected.kind) {
        case Expected::Kind::exact:
            if (outcome != Stream::Outcome::ok) return "outcome is not ok";
            if (out != expected.bytes) return "expected " + expected.bytes;
            return std::nullopt;
        case Expected::Kind::prefix: {
            if (outcome != Stream::Outcome::ok) return "outcome is not ok";
            const auto n = expected.bytes.size();
            if (out.compare(0, n, expected.bytes) != 0 || (out.compare(n, 2, "}\n") != 0 && out[n] != ','))
                return "expected " + expected.bytes + "} or " + expected.bytes + ",...}";
            return std::nullopt;
        }
        case Expected::Kind::checkpoint: {
            if (outcome != Stream::Outcome::ok) return "outcome is not ok";
            const std::string prefix = "{\"version\":" + std::to_string(expected.version) + ",\"checkpoint\":{";
            if (out.rfind(prefix, 0) != 0 || out.size() < prefix.size() + 3 || out.compare(out.size() - 3, 3, "}}\n") != 0)
                return "expected a checkpoint line starting " + prefix;
            simdjson::dom::element doc;
            if (parser().parse(out).get(doc) != simdjson::SUCCESS) return "checkpoint line is not JSON";
            return std::nullopt;
        }
        case Expected::Kind::error: {
            if (outcome != Stream::Outcome::error) return "expected an error outcome";
            simdjson::dom::object top;
            if (parser().parse(out).get_object().get(top) != simdjson::SUCCESS || top.size() != 1)
                return "an error line must be an object with one member";
            simdjson::dom::object err;
            if (top["error"].get_object().get(err) != simdjson::SUCCESS) return "no error object";
            std::int64_t line = 0;
            if (err["line"].get_int64().get(line) != simdjson::SUCCESS || line != expected.line)
                return "error names line " + std::to_string(line) + ", expected " + std::to_string(expected.line);
            std::string_view message;
            if (err["message"].get_string().get(message) != simdjson::SUCCESS || message.empty())
                return "error without a message";
            std::uint64_t index = 0;
            const auto index_error = err["index"].get_uint64().get(index);
            if (expected.index) {
                if (index_error != simdjson::SUCCESS || index != *expected.index)
                    return "expected an error at mutation index " + std::to_string(*expected.index);
            } else if (!g.index_unspecified && index_error != simdjson::NO_SUCH_FIELD) {
                return "expected an error without a mutation index";
            }
            return std::nullopt;
        }
        case Expected::Kind::none: break;
    }
    return std::nullopt;
}

struct Runner {
    std::string name;
    Stream stream;
};

// Runs one workload; returns a failure description, or nothing.
std::optional<std::string> run_workload(std::uint64_t seed, int lines) {
    WorkloadGenerator gen(seed);
    Model model(gen.config());
    const Config config{gen.config().gap, gen.config().lateness};
    std::vector<Runner> runners;
    runners.push_back({"incremental", Stream(config, EngineKind::incremental)});
    runners.push_back({"naive", Stream(config, EngineKind::naive)});
    runners.push_back({"restored chain", Stream(config, EngineKind::incremental)});
    std::vector<std::string> inputs;
    std::uint64_t restores = seed;  // a second deterministic stream of choices

    auto fail = [&](const std::string& what) {
        const std::string path = "/tmp/tideweave-property-" + std::to_string(seed) + ".ndjson";
        std::ofstream f(path, std::ios::binary);
        for (const auto& in : inputs) f << in << '\n';
        std::ostringstream s;
        s << "seed " << seed << " (gap " << config.gap << ", lateness " << config.lateness << "), line "
          << inputs.size() << ": " << what << "\n  input: " << inputs.back() << "\n  workload so far: " << path;
        return s.str();
    };

    for (int line_no = 1; line_no <= lines; ++line_no) {
        const GeneratedLine g = gen.next(model);
        inputs.push_back(g.text);
        const Expected expected = model.apply(g.line, line_no);
        const std::size_t model_rows = model.rows().size();
        std::string first_checkpoint;
        for (auto& r : runners) {
            std::string out;
            Stream::Outcome outcome{};
            try {
                outcome = r.stream.process_line(g.text, line_no, out);
            } catch (const std::exception& e) {
                return fail(r.name + " threw: " + e.what());
            }
            if (auto diff = check_output(expected, g, outcome, out)) return fail(r.name + ": " + *diff + "\n  actual:   " + out);
            if (expected.kind == Expected::Kind::checkpoint) {
                // Both engines, restored or not, write the same checkpoint bytes.
                if (first_checkpoint.empty()) first_checkpoint = out;
                else if (out != first_checkpoint)
                    return fail(r.name + " wrote a different checkpoint:\n  " + out + "  vs " + first_checkpoint);
            }
            if (r.stream.version() != model.version()) return fail(r.name + ": version() differs from the model");
            if (r.stream.row_count() != model_rows) return fail(r.name + ": row_count() differs from the model");
        }
        if (expected.kind == Expected::Kind::checkpoint) {
            // Continue the chain from this checkpoint: the whole line or its
            // inner object, into either engine.
            restores = restores * 6364136223846793005ULL + 1442695040888963407ULL;
            const auto kind = (restores >> 40) % 2 ? EngineKind::naive : EngineKind::incremental;
            std::string text = first_checkpoint.substr(0, first_checkpoint.size() - 1);
            if ((restores >> 20) % 2) {
                const auto at = text.find("\"checkpoint\":") + std::string("\"checkpoint\":").size();
                text = text.substr(at, text.size() - at - 1);
            }
            try {
                runners[2] = {std::string("restored chain (") + kind_name(kind) + ")", Stream::restore(text, kind)};
            } catch (const std::exception& e) {
                return fail(std::string("restore threw: ") + e.what());
            }
            if (runners[2].stream.version() != model.version()) return fail("restored version() differs from the model");
        }
    }
    return std::nullopt;
}

TEST(TideweaveProperty, BothEnginesMatchTheBruteForceModel) {
    const std::uint64_t single = env_or("TIDEWEAVE_PROPERTY_SEED", 0);
    const std::uint64_t workloads = single ? 1 : env_or("TIDEWEAVE_PROPERTY_WORKLOADS", 2000);
    const std::uint64_t first = single ? single : 1;
    std::uint64_t failures = 0;
    for (std::uint64_t seed = first; seed < first + workloads; ++seed) {
        const auto fixed_lines = env_or("TIDEWEAVE_PROPERTY_LINES", 0);
        const int lines = fixed_lines ? static_cast<int>(fixed_lines) : 12 + static_cast<int>(seed % 37);
        if (auto failure = run_workload(seed, lines)) {
            ADD_FAILURE() << *failure;
            if (++failures == env_or("TIDEWEAVE_PROPERTY_MAX_FAILURES", 3)) break;  // a few reproducers are enough
        }
    }
}

}  // namespace
}  // namespace sluice::tideweave
