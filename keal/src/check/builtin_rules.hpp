#pragma once
// The built-in functions (len, upper, substr, ...) and the conversions
// int(..) / float(..) / text(..) / char(..) / bytes(..): which argument
// types each accepts and what it becomes in the IR. Rules only; the checker
// reports the diagnostics and builds the nodes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"

namespace keal::check {

bool is_builtin_name(std::string_view name);

struct BuiltinForm {
  ir::Builtin op = ir::Builtin::LenText;
  ir::Type result;
};

// The form of built-in `name` (not print) that takes exactly `args`; when
// none does, nullopt and `expected` lists the forms ("(text) or (bytes)").
std::optional<BuiltinForm> resolve_builtin(const std::string& name, const std::vector<ir::Type>& args,
                                           std::string& expected);

// The conversion from `from` to `to` (different types), if there is one.
std::optional<ir::Conv> resolve_conversion(ir::Base from, ir::Base to);

}  // namespace keal::check
