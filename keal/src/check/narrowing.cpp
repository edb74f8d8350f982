#include "check/narrowing.hpp"

#include <utility>

namespace keal::check {

using ast::BinaryOp;
using ast::Expr;

Facts null_facts(const Expr& e, const SlotLookup& lookup) {
  Facts out;
  switch (e.kind) {
    case Expr::Kind::Paren: return null_facts(*e.args[0], lookup);
    case Expr::Kind::Unary:
      if (e.unary_op == ast::UnaryOp::Not) {
        Facts inner = null_facts(*e.args[0], lookup);
        std::swap(inner.when_true, inner.when_false);
        return inner;
      }
      return out;
    case Expr::Kind::Binary: {
      const Expr& l = *e.args[0];
      const Expr& r = *e.args[1];
      if (e.binary_op == BinaryOp::Ne || e.binary_op == BinaryOp::Eq) {
        const Expr* name = nullptr;
        if (l.kind == Expr::Kind::Name && r.kind == Expr::Kind::NullLit) name = &l;
        if (r.kind == Expr::Kind::Name && l.kind == Expr::Kind::NullLit) name = &r;
        if (name == nullptr) return out;
        int slot = lookup(name->text);
        if (slot < 0) return out;
        (e.binary_op == BinaryOp::Ne ? out.when_true : out.when_false).push_back(slot);
        return out;
      }
      if (e.binary_op == BinaryOp::And) {
        Facts a = null_facts(l, lookup), b = null_facts(r, lookup);
        out.when_true = a.when_true;
        out.when_true.insert(out.when_true.end(), b.when_true.begin(), b.when_true.end());
        return out;
      }
      if (e.binary_op == BinaryOp::Or) {
        Facts a = null_facts(l, lookup), b = null_facts(r, lookup);
        out.when_false = a.when_false;
        out.when_false.insert(out.when_false.end(), b.when_false.begin(), b.when_false.end());
        return out;
      }
      return out;
    }
    default: return out;
  }
}

bool Narrowing::narrowed(int slot) const {
  for (const auto& level : levels_) {
    if (level.count(slot) != 0) return true;
  }
  return false;
}

void Narrowing::add(const std::vector<int>& slots) {
  for (int s : slots) levels_.back().insert(s);
}

void Narrowing::forget(int slot) {
  for (auto& level : levels_) level.erase(slot);
}

void Narrowing::forget_assigned_in(const ast::Block& block, const SlotLookup& lookup) {
  for (const auto& s : block.stmts) forget_assigned_in(*s, lookup);
}

void Narrowing::forget_assigned_in(const ast::Stmt& s, const SlotLookup& lookup) {
  if (s.kind == ast::Stmt::Kind::Assign) {
    int slot = lookup(s.name);
    if (slot >= 0) forget(slot);
  }
  for (const auto& b : s.blocks) forget_assigned_in(b, lookup);
  forget_assigned_in(s.body, lookup);
}

}  // namespace keal::check
