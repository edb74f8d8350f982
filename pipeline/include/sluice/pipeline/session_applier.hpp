#pragma once
// Applying one mapped source transaction to the engine and gathering what
// it changed into the sink batch, then advancing the watermark by the rule.
// Sans-I/O: engine and batch in memory.
//
//   applier.apply(mapper, "0-1-42", batch);
//
// A transaction the engine refuses (an identity error: a retraction of an
// event it never saw, an insert of an id it holds; a sum beyond the double
// range) changes nothing in the engine; all its changes go to NAME_rejected
// with the engine's message, and the watermark does not move for it.
#include <cstdint>
#include <string_view>

#include "sluice/pipeline/sink_batch.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"
#include "sluice/pipeline/watermark_rule.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::pipeline {

class SessionApplier {
public:
    SessionApplier(tideweave::Engine& engine, WatermarkRule& rule) : engine_(&engine), rule_(&rule) {}

    struct Outcome {
        bool accepted = true;
        std::size_t late = 0;
        std::size_t rejected = 0;
    };
    Outcome apply(TransactionMapper& mapped, std::string_view gtid, SinkBatch& batch);

private:
    tideweave::Engine* engine_;
    WatermarkRule* rule_;
};

}  // namespace sluice::pipeline
