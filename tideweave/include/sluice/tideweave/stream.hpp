// Tideweave's NDJSON codec: a Stream turns one NDJSON input line into one
// NDJSON output line (docs/tideweave.md, "Input lines" and "Output lines"),
// parsing it into a typed command for an Engine (engine.hpp) and writing the
// typed result as JSON. Sans-I/O; the CLI (tideweave/cli) is a thin
// buffered-I/O shell around it (run.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/tideweave/engine.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::tideweave {

// One NDJSON stream, exactly as the contract describes. Movable, not copyable.
class Stream {
public:
    // Throws std::invalid_argument if the configuration is out of range.
    explicit Stream(Config config = {}, EngineKind kind = EngineKind::incremental);
    ~Stream();
    Stream(Stream&&) noexcept;
    Stream& operator=(Stream&&) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    // From a checkpoint: the whole output line {"version":..,"checkpoint":{..}}
    // or its inner object. Throws a Failure (failure.hpp) of kind checkpoint
    // with a clear message for a malformed checkpoint.
    static Stream restore(std::string_view checkpoint_json, EngineKind kind = EngineKind::incremental);

    enum class Outcome { ok, empty, error };

    // One input line (no newline), numbered line_no from 1 (for error
    // objects). Appends exactly one output line ending in '\n' to `out`, or
    // nothing for an empty line (Outcome::empty). On Outcome::error the state
    // and version are unchanged.
    Outcome process_line(std::string_view line, std::int64_t line_no, std::string& out);

    std::int64_t version() const;
    // The number of the last line given to process_line (0 at first); after
    // restore, the checkpoint line's number, so that a resumed run numbers
    // the rest of its input (and its error objects) as the uninterrupted run.
    std::int64_t line() const;
    // Events currently held (sealed ones included, until folded by forget).
    std::size_t active_events() const;
    // Session rows currently held.
    std::size_t row_count() const;
    // Keys currently registered (a key is released when it holds nothing:
    // after forget, or when the rejected transaction that named it first is
    // undone).
    std::size_t key_count() const;
    const Config& config() const;
    // The engine behind the codec (version, counts, watermark).
    const Engine& engine() const;

    class Impl;

private:
    explicit Stream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::tideweave
