#pragma once
// The rules of an `export agg` that need no type checking of its blocks:
// the parts it must have, what its state may hold, and the names it may
// use. The checker (checker.cpp) checks the blocks themselves as functions
// over the state (ir::Function::aggregate).

#include "ir/ir.hpp"
#include "syntax/ast.hpp"
#include "syntax/diagnostics.hpp"

namespace keal::check {

// Reports what is wrong with the aggregate's shape; true when its blocks can
// be checked (a missing result type or step leaves nothing to check).
bool check_aggregate_shape(const ast::Aggregate& agg, Diagnostics& diags);

// The state as a record type: one field per `state` line, in order.
ir::Type aggregate_state_type(const ast::Aggregate& agg);

}  // namespace keal::check
