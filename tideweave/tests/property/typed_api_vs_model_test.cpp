// The typed API against the brute-force model: the same random workloads as
// engine_vs_model_test.cpp, but driven through tw::Engine directly from each
// line's meaning (no JSON in): transactions as Mutation values (a mutation the
// generator broke becomes one with an empty id, a shape error at the same
// index), watermarks, forget, snapshot, checkpoint. Typed results are
// written out with the model's own formatting (model.hpp) and compared with
// the model's bytes. Three engines run each workload: incremental, naive,
// and a restored chain, replaced at every checkpoint line by Engine::restore
// of that checkpoint after a round trip through the JSON or the binary
// encoding (alternating), with a random source position that must come back.
//
// TIDEWEAVE_PROPERTY_SEED / _WORKLOADS / _LINES as in engine_vs_model_test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model.hpp"
#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/engine.hpp"
#include "workload.hpp"

namespace sluice::tideweave {
namespace {

using model::Expected;
using model::Line;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string rows_text(std::span<const Row> rows) {
    std::string out = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        if (i) out += ',';
        out += model::format_row(model::Row{std::string(r.key), r.start, r.end, r.count, r.sum, r.min, r.max, r.final});
    }
    return out + "]";
}

std::string changes_text(const Changes& c) {
    std::string out = "{\"version\":" + std::to_string(c.version) + ",\"before\":" + rows_text(c.before) +
                      ",\"after\":" + rows_text(c.after) + ",\"late\":[";
    for (std::size_t k = 0; k < c.late.size(); ++k) {
        if (k) out += ',';
        out += "{\"index\":" + std::to_string(c.late[k].index) + ",\"id\":" + model::format_string(std::string(c.late[k].id)) +
               ",\"key\":" + model::format_string(std::string(c.late[k].key)) + ",\"ts\":" + std::to_string(c.late[k].ts) + "}";
    }
    return out + "]}\n";
}

// What one engine did with one line: the output text in the model's form,
// or an error.
struct Outcome {
    std::string text;
    std::optional<Error> error;
};

Outcome run_line(Engine& engine, const Line& line) {
    switch (line.kind) {
        case Line::Kind::tx: {
            std::vector<Mutation> typed;
            for (const auto& m : line.mutations) {
                const std::string_view id = m.shape_error ? std::string_view() : std::string_view(m.event.id);
                if (m.kind == model::Mutation::Kind::insert) {
                    typed.push_back(Mutation::insert(id, m.event.key, m.event.ts, m.event.value));
                } else if (m.value_given) {
                    typed.push_back(Mutation::retract(id, m.event.key, m.event.ts, m.event.value));
                } else {
                    typed.push_back(Mutation::retract(id, m.event.key, m.event.ts));
                }
            }
            auto r = engine.apply(typed);
            if (!r) return {"", r.error()};
            return {changes_text(*r), std::nullopt};
        }
        case Line::Kind::watermark: {
            auto r = engine.advance_watermark(line.watermark);
            if (!r) return {"", r.error()};
            return {"{\"version\":" + std::to_string(r->version) + ",\"watermark\":" + std::to_string(r->watermark) +
                        ",\"finalized\":" + rows_text(r->rows) + "}\n",
                    std::nullopt};
        }
        case Line::Kind::forget: {
            const Forgotten f = engine.forget();
            return {"{\"version\":" + std::to_string(f.version) + ",\"forgotten\":" + std::to_string(f.rows_dropped) +
                        "}\n",
                    std::nullopt};
        }
        case Line::Kind::snapshot: {
            const Snapshot s = engine.snapshot();
            return {"{\"version\":" + std::to_string(s.version) + ",\"watermark\":" +
                        (s.watermark ? std::to_string(*s.watermark) : std::string("null")) +
                        ",\"rows\":" + rows_text(s.rows) + "}\n",
                    std::nullopt};
        }
        default: return {"", std::nullopt};
    }
}

std::optional<std::string> check(const Expected& expected, const Outcome& got) {
    switch (expected.kind) {
        case Expected::Kind::exact:
            if (got.error) return "unexpected error: " + got.error->message;
            if (got.text != expected.bytes) return "expected " + expected.bytes + "  actual   " + got.text;
            return std::nullopt;
        case Expected::Kind::prefix:
            // The forget line: the model fixes version and forgotten.
            if (got.error) return "unexpected error: " + got.error->message;
            if (got.text != expected.bytes + "}\n") return "expected " + expected.bytes + "}  actual   " + got.text;
            return std::nullopt;
        case Expected::Kind::error:
            if (!got.error) return "expected an error, got " + got.text;
            if (got.error->index != expected.index)
                return "error at index " + (got.error->index ? std::to_string(*got.error->index) : "none") +
                       ", expected " + (expected.index ? std::to_string(*expected.index) : "none") + ": " +
                       got.error->message;
            if (got.error->message.empty()) return "an error without a message";
            return std::nullopt;
        default: return std::nullopt;
    }
}

// How much a run compared, so that a generator that stopped producing some
// line kind cannot pass silently.
struct Coverage {
    std::uint64_t compared = 0;
    std::uint64_t errors = 0;
    std::uint64_t restores[2] = {0, 0};  // from JSON, from binary
    std::uint64_t with_position = 0;
};

std::optional<std::string> run_workload(std::uint64_t seed, int lines, Coverage& coverage) {
    model::WorkloadGenerator gen(seed);
    model::Model m(gen.config());
    const Config config{gen.config().gap, gen.config().lateness};
    std::vector<std::pair<std::string, Engine>> engines;
    engines.emplace_back("incremental", Engine(config, EngineKind::incremental));
    engines.emplace_back("naive", Engine(config, EngineKind::naive));
    engines.emplace_back("restored chain", Engine(config, EngineKind::incremental));
    std::mt19937_64 choices(seed);
    int checkpoints = 0;
    for (int line_no = 1; line_no <= lines; ++line_no) {
        const model::GeneratedLine g = gen.next(m);
        const Expected expected = m.apply(g.line, line_no);
        const auto where = [&](const std::string& who) {
            std::ostringstream s;
            s << "seed " << seed << " line " << line_no << " (" << g.text << "), " << who << ": ";
            return s.str();
        };
        if (g.line.kind == Line::Kind::bad || g.line.kind == Line::Kind::empty) continue;  // only JSON can say these
        if (g.line.kind == Line::Kind::checkpoint) {
            // A source position of random bytes (any byte, empty now and then).
            std::string position(choices() % 3 == 0 ? 0 : choices() % 40, '\0');
            for (char& c : position) c = static_cast<char>(choices() & 0xFF);
            const Checkpoint c = engines[0].second.checkpoint(position);
            for (auto& [name, engine] : engines) {
                if (engine.version() != expected.version) return where(name) + "version differs from the model";
                if (!(engine.checkpoint(position) == c)) return where(name) + "a different checkpoint";
            }
            const bool binary = checkpoints++ % 2 == 1;
            const auto decoded = binary ? decode_binary(encode_binary(c)) : decode_json(encode_json(c));
            if (!decoded) return where("decode") + decoded.error().message;
            if (!(*decoded == c)) return where(binary ? "binary" : "json") + "the round trip changed the checkpoint";
            if (encode_json(*decoded) != encode_json(c)) return where("json") + "re-encoding changed the bytes";
            const auto kind = choices() % 2 ? EngineKind::naive : EngineKind::incremental;
            auto restored = Engine::restore(*decoded, kind);
            if (!restored) return where("restore") + restored.error().message;
            if (restored->source_position() != position) return where("restore") + "the source position differs";
            if (!(restored->checkpoint(position) == c)) return where("restore") + "restored state differs";
            ++coverage.restores[binary ? 1 : 0];
            if (!position.empty()) ++coverage.with_position;
            engines[2] = {std::string("restored chain (") + (binary ? "binary, " : "json, ") +
                              (kind == EngineKind::naive ? "naive)" : "incremental)"),
                          std::move(*restored)};
            continue;
        }
        for (auto& [name, engine] : engines) {
            const Outcome got = run_line(engine, g.line);
            if (auto diff = check(expected, got)) return where(name) + *diff;
            if (engine.version() != m.version()) return where(name) + "version() differs from the model";
            if (engine.row_count() != m.rows().size()) return where(name) + "row_count() differs from the model";
            ++coverage.compared;
            if (got.error) ++coverage.errors;
        }
    }
    return std::nullopt;
}

TEST(TideweaveTypedApiProperty, EveryEngineAndRestoreMatchTheBruteForceModel) {
    const std::uint64_t single = env_or("TIDEWEAVE_PROPERTY_SEED", 0);
    const std::uint64_t workloads = single ? 1 : env_or("TIDEWEAVE_PROPERTY_WORKLOADS", 1000);
    const std::uint64_t first = single ? single : 1;
    std::uint64_t failures = 0;
    Coverage coverage;
    for (std::uint64_t seed = first; seed < first + workloads; ++seed) {
        const auto fixed_lines = env_or("TIDEWEAVE_PROPERTY_LINES", 0);
        const int lines = fixed_lines ? static_cast<int>(fixed_lines) : 12 + static_cast<int>(seed % 37);
        if (auto failure = run_workload(seed, lines, coverage)) {
            ADD_FAILURE() << *failure;
            if (++failures == 3) break;
        }
    }
    if (!single) {
        EXPECT_GT(coverage.compared, workloads * 10);
        EXPECT_GT(coverage.errors, workloads / 4);
        EXPECT_GT(coverage.restores[0], workloads / 10);
        EXPECT_GT(coverage.restores[1], workloads / 10);
        EXPECT_GT(coverage.with_position, workloads / 10);
    }
    std::cout << "typed API property: " << coverage.compared << " results compared (" << coverage.errors
              << " errors), restores from JSON " << coverage.restores[0] << ", from binary " << coverage.restores[1]
              << " (" << coverage.with_position << " with a source position)\n";
}

}  // namespace
}  // namespace sluice::tideweave
