#pragma once
// A source row change reduced to what the mapping reads: the operation and
// the four mapped cells (id, key, ts, value) of its before and after images.
// Built from a binlog change (binlog_adapter.hpp) or a snapshot row; unit
// tests build them by hand.
//
// LIFETIME: the SourceValues' text views the bytes of the event they were
// read from; a SourceChange is valid while that event is.
#include <array>
#include <optional>

#include "sluice/pipeline/mapping.hpp"

namespace sluice::pipeline {

using RowImage = std::array<SourceValue, 4>;  // id, key, ts, value

struct SourceChange {
    enum class Op : std::uint8_t { insert, update, remove };
    Op op = Op::insert;
    std::optional<RowImage> before;  // update, remove
    std::optional<RowImage> after;   // insert, update
};

}  // namespace sluice::pipeline
