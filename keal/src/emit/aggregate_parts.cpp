// What every target's aggregate entry points share: the parts' C names and
// state parameters, and the result made from a state.
#include "emit/aggregates.hpp"

#include "emit/c_names.hpp"

namespace keal::emit {

namespace {

const ir::Aggregate& owner(const ir::Module& module, const ir::Function& part) {
  return module.aggregates[static_cast<std::size_t>(part.aggregate)];
}

}  // namespace

std::string aggregate_state_c_type(const ir::Aggregate& agg) { return record_c_name(*agg.state.record); }

std::string aggregate_part_c_name(const ir::Module& module, const ir::Function& part) {
  return "ka_" + owner(module, part).name + "__" + ir::part_name(part.part);
}

std::string aggregate_part_state_params(const ir::Module& module, const ir::Function& part) {
  const std::string s = aggregate_state_c_type(owner(module, part));
  switch (part.part) {
    case ir::AggregatePart::Combine: return s + " *st, const " + s + " *other";
    case ir::AggregatePart::Final: return "const " + s + " *st";
    default: return s + " *st";
  }
}

std::string aggregate_result(const ir::Module& module, const ir::Aggregate& agg, const std::string& st) {
  if (agg.final_fn < 0) {
    // Without `final` the result is the one state field; a T field for a
    // T? result is wrapped.
    const ir::Type& field = agg.state.record->fields[0].type;
    if (agg.ret.nullable && !field.nullable) return "(" + c_type(agg.ret) + "){false, " + st + "->f0}";
    return st + "->f0";
  }
  return aggregate_part_c_name(module, module.functions[static_cast<std::size_t>(agg.final_fn)]) + "(" + st + ")";
}

}  // namespace keal::emit
