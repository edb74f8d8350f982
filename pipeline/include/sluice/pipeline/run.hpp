#pragma once
// The one run loop of the pipeline, over any Source (source.hpp) into the
// PostgreSQL sink. The exactly-once argument is in docs/pipeline.md; run()
// keeps to it:
//   - the only state that survives a crash is the sink's, written in one
//     PostgreSQL transaction with the rows it explains;
//   - every start (a fresh process, or a retry after a lost connection)
//     restores the engine from the stored checkpoint and resumes the source
//     at that checkpoint's position;
//   - commits are held back until the source is past the stored position
//     again (replay after a checkpoint that is older than the state), and
//     replayed writes are idempotent (upserts by (key, start), late and
//     rejected rows by (gtid, seq));
//   - a snapshot (its rows, then its done step) is one Tideweave
//     transaction; nothing is committed while one is open.
#include <iosfwd>

#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/source.hpp"

namespace sluice::pipeline {

// One attempt on a checked source and an open sink (neither read yet):
// restore from the sink, open the source, create the sink's tables, then
// apply, gate, commit until the source ends; throws on any failure.
// `stats` accumulates across attempts.
void run(Source& source, Sink& sink, const RunOptions& options, RunStats& stats, std::ostream& log);

}  // namespace sluice::pipeline
