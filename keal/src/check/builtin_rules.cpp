#include "check/builtin_rules.hpp"

#include <algorithm>

#include "check/types.hpp"

namespace keal::check {

namespace {

constexpr std::string_view builtin_names[] = {"len",  "upper", "lower", "substr", "find", "replace", "trim",
                                              "starts_with", "ends_with", "abs", "min", "max", "sqrt",
                                              "floor", "ceil", "print", "append"};

struct Form {
  std::string_view name;
  std::vector<ir::Type> params;
  ir::Builtin op;
  ir::Type result;
};

// Every form of every built-in but print; a name's forms are adjacent, and
// `signatures` is what a mismatch message lists for it.
const std::vector<Form>& forms() {
  static const std::vector<Form> all = {
      {"len", {kText}, ir::Builtin::LenText, kInt},
      {"len", {kBytes}, ir::Builtin::LenBytes, kInt},
      {"upper", {kText}, ir::Builtin::Upper, kText},
      {"lower", {kText}, ir::Builtin::Lower, kText},
      {"trim", {kText}, ir::Builtin::Trim, kText},
      {"substr", {kText, kInt, kInt}, ir::Builtin::Substr, kText},
      {"find", {kText, kText}, ir::Builtin::Find, kInt},
      {"replace", {kText, kText, kText}, ir::Builtin::Replace, kText},
      {"starts_with", {kText, kText}, ir::Builtin::StartsWith, kBool},
      {"ends_with", {kText, kText}, ir::Builtin::EndsWith, kBool},
      {"abs", {kInt}, ir::Builtin::AbsInt, kInt},
      {"abs", {kFloat}, ir::Builtin::AbsFloat, kFloat},
      {"min", {kInt, kInt}, ir::Builtin::MinInt, kInt},
      {"min", {kFloat, kFloat}, ir::Builtin::MinFloat, kFloat},
      {"max", {kInt, kInt}, ir::Builtin::MaxInt, kInt},
      {"max", {kFloat, kFloat}, ir::Builtin::MaxFloat, kFloat},
      {"sqrt", {kFloat}, ir::Builtin::Sqrt, kFloat},
      {"floor", {kFloat}, ir::Builtin::Floor, kFloat},
      {"ceil", {kFloat}, ir::Builtin::Ceil, kFloat},
  };
  return all;
}

// How a mismatch message spells the accepted forms (with parameter names
// where the types alone would not say which argument is which).
std::string signatures(const std::string& name) {
  if (name == "len") return "(text), (bytes) or ([T])";
  if (name == "substr") return "(text, start: int, count: int)";
  if (name == "find") return "(text, needle: text)";
  if (name == "replace") return "(text, from: text, to: text)";
  if (name == "starts_with" || name == "ends_with") return "(text, text)";
  if (name == "abs") return "(int) or (float)";
  if (name == "min" || name == "max") return "(int, int) or (float, float)";
  if (name == "sqrt" || name == "floor" || name == "ceil") return "(float)";
  return "(text)";
}

}  // namespace

bool is_builtin_name(std::string_view name) {
  return std::find(std::begin(builtin_names), std::end(builtin_names), name) != std::end(builtin_names);
}

std::optional<BuiltinForm> resolve_builtin(const std::string& name, const std::vector<ir::Type>& args,
                                           std::string& expected) {
  for (const Form& f : forms()) {
    if (f.name == name && f.params == args) return BuiltinForm{f.op, f.result};
  }
  expected = signatures(name);
  return std::nullopt;
}

std::optional<ir::Conv> resolve_conversion(ir::Base from, ir::Base to) {
  using ir::Base;
  struct Rule {
    Base from, to;
    ir::Conv conv;
  };
  static constexpr Rule rules[] = {
      {Base::Float, Base::Int, ir::Conv::FloatToInt},  {Base::Char, Base::Int, ir::Conv::CharToInt},
      {Base::Text, Base::Int, ir::Conv::TextToInt},    {Base::Int, Base::Float, ir::Conv::IntToFloat},
      {Base::Text, Base::Float, ir::Conv::TextToFloat}, {Base::Int, Base::Text, ir::Conv::IntToText},
      {Base::Float, Base::Text, ir::Conv::FloatToText}, {Base::Bool, Base::Text, ir::Conv::BoolToText},
      {Base::Char, Base::Text, ir::Conv::CharToText},  {Base::Bytes, Base::Text, ir::Conv::BytesToText},
      {Base::Int, Base::Char, ir::Conv::IntToChar},    {Base::Text, Base::Bytes, ir::Conv::TextToBytes},
  };
  for (const Rule& r : rules) {
    if (r.from == from && r.to == to) return r.conv;
  }
  return std::nullopt;
}

}  // namespace keal::check
