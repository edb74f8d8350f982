#include "check/aggregates.hpp"

#include <map>
#include <set>

#include "check/types.hpp"

namespace keal::check {

namespace {

// A fixed-size state is what PostgreSQL's parallel workers exchange (the
// serial function copies it) and what lives across rows without a memory
// context of its own on every server: numbers and truth values only.
bool state_type_allowed(const ir::Type& t) {
  return t.base == ir::Base::Int || t.base == ir::Base::Float || t.base == ir::Base::Bool;
}

// A result is made once per group, by `final`, in the call that returns it:
// a text, bytes or char is copied out by each server as a scalar
// function's is, so it needs no memory across rows.
bool result_type_allowed(const ir::Type& t) {
  return state_type_allowed(t) || t.base == ir::Base::Text || t.base == ir::Base::Bytes || t.base == ir::Base::Char;
}

}  // namespace

ir::Type aggregate_state_type(const ast::Aggregate& agg) {
  std::vector<ir::Field> fields;
  std::set<std::string> seen;
  for (const auto& s : agg.state) {
    if (!seen.insert(s.name).second) continue;
    fields.push_back({s.name, from_ast(s.type)});
  }
  return ir::record_type(std::move(fields));
}

bool check_aggregate_shape(const ast::Aggregate& agg, Diagnostics& diags) {
  bool checkable = true;
  if (!agg.ret) {
    diags.error(agg.name_span, "aggregate '" + agg.name + "' needs a result type: 'export agg " + agg.name + "(...) -> T'");
    checkable = false;
  }
  if (agg.ret && !result_type_allowed(from_ast(*agg.ret))) {
    diags.error(agg.ret->span, "aggregate '" + agg.name + "' returns " + quoted(from_ast(*agg.ret)) +
                                   "; an aggregate's result is int, float, bool, text, bytes or char (nullable or not) in this "
                                   "version");
    checkable = false;
  }
  if (agg.params.empty()) {
    diags.error(agg.name_span, "aggregate '" + agg.name + "' takes no argument; an aggregate reads at least one value per row");
  }
  if (agg.params.size() > 100) {
    diags.error(agg.name_span, "an aggregate takes at most 100 parameters (PostgreSQL's limit)");
  }
  if (!agg.step.present) {
    diags.error(agg.name_span, "aggregate '" + agg.name + "' has no 'step' block: 'step { ... }' folds one row into the state");
    checkable = false;
  }
  if (agg.state.empty()) {
    diags.error(agg.name_span, "aggregate '" + agg.name + "' has no state: declare it with 'state name: T = initial value'");
    checkable = false;
  }
  std::set<std::string> params;
  for (const ast::Param& p : agg.params) {
    if (!params.insert(p.name).second) diags.error(p.span, "parameter '" + p.name + "' is declared twice");
  }
  std::map<std::string, Span> fields;
  for (const auto& s : agg.state) {
    const ir::Type t = from_ast(s.type);
    if (!state_type_allowed(t)) {
      Diagnostic& d = diags.error(s.type.span, "state '" + s.name + "' has type " + quoted(t) +
                                                   "; an aggregate's state holds int, float and bool values only");
      d.notes.push_back({agg.name_span, "the state is a fixed-size block that PostgreSQL's parallel workers copy to each other"});
      checkable = false;
    }
    if (s.name == "other") {
      diags.error(s.span, "'other' names the second state inside 'combine'; choose another name for this state field");
      checkable = false;
    }
    if (params.count(s.name) != 0) {
      diags.error(s.span, "state '" + s.name + "' has the name of a parameter; the step sees both, so name them apart");
      checkable = false;
    }
    auto [it, inserted] = fields.emplace(s.name, s.span);
    if (!inserted) {
      Diagnostic& d = diags.error(s.span, "state '" + s.name + "' is declared twice");
      d.notes.push_back({it->second, "first declared here"});
      checkable = false;
    }
  }
  if (checkable && !agg.final.present) {
    const ir::Type ret = from_ast(*agg.ret);
    if (agg.state.size() != 1) {
      Diagnostic& d = diags.error(agg.name_span, "aggregate '" + agg.name + "' has " + std::to_string(agg.state.size()) +
                                                     " state fields and no 'final' block to make its result from them");
      d.notes.push_back({agg.ret->span, "add 'final { return ... }' giving a value of this type"});
      checkable = false;
    } else if (!assignable(from_ast(agg.state[0].type), ret)) {
      Diagnostic& d = diags.error(agg.state[0].type.span, "without a 'final' block the result is state '" + agg.state[0].name +
                                                               "', but its type " + quoted(from_ast(agg.state[0].type)) +
                                                               " is not the result type " + quoted(ret));
      d.notes.push_back({agg.ret->span, "the result type is declared here"});
      checkable = false;
    }
  }
  return checkable;
}

}  // namespace keal::check
