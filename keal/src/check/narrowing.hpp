#pragma once
// Null narrowing as flow facts: which locals a condition proves non-null
// when it is true or when it is false (`x != null`, `x == null`, through
// `not`, `and`, `or` and parentheses), and the set of locals narrowed at
// each scope level, which assignments and loops take facts away from.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "syntax/ast.hpp"

namespace keal::check {

// Local slots a condition proves non-null.
struct Facts {
  std::vector<int> when_true;
  std::vector<int> when_false;
};

// Resolves a name to its local slot in the current scope (-1 when none).
using SlotLookup = std::function<int(const std::string&)>;

Facts null_facts(const ast::Expr& condition, const SlotLookup& lookup);

class Narrowing {
 public:
  void push() { levels_.emplace_back(); }
  void pop() { levels_.pop_back(); }

  bool narrowed(int slot) const;
  // Adds facts to the innermost level (they end with its scope).
  void add(const std::vector<int>& slots);
  // An assignment that may store null: the slot is narrowed nowhere.
  void forget(int slot);
  // A loop may run its body again after an assignment in it, so nothing
  // narrowed about a variable assigned anywhere in the body survives into it.
  void forget_assigned_in(const ast::Block& block, const SlotLookup& lookup);

 private:
  void forget_assigned_in(const ast::Stmt& s, const SlotLookup& lookup);

  std::vector<std::set<int>> levels_;
};

}  // namespace keal::check
