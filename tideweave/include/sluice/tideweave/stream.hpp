// Tideweave: per-key event-time session windows over transactions of inserts
// and retractions, with an exact before/after changelog.
//
// The contract is ../shared/design/tideweave-semantics.md; docs/tideweave.md
// records every choice where the contract is silent. A Stream is sans-I/O: it
// turns one NDJSON input line into one NDJSON output line, and the CLI
// (tideweave/cli) is a thin buffered-I/O shell around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sluice::tideweave {

struct Config {
    std::int64_t gap = 10;       // in (0, 2^60]
    std::int64_t lateness = 20;  // in [0, 2^60]
};

// incremental: O(log n) per mutation in its key's events.
// naive: rebuilds the affected key's sessions from its events on every
// mutation; the benchmark's same-build alternative. Both give the same bytes.
enum class EngineKind { incremental, naive };

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
    // or its inner object. Throws std::runtime_error with a clear message for a
    // malformed checkpoint.
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

    class Impl;

private:
    explicit Stream(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::tideweave
