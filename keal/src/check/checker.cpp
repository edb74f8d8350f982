#include "check/checker.hpp"

#include "check/aggregates.hpp"
#include "check/array_rules.hpp"
#include "check/builtin_rules.hpp"
#include "check/embedded_sql.hpp"
#include "check/narrowing.hpp"
#include "check/sql_rules.hpp"
#include "check/types.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

namespace keal::check {

namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::Stmt;
using ir::Base;
using ir::Type;

struct Checked {
  ir::ExprPtr e;
  bool bad = false;
  Type type() const { return e ? e->type : kVoid; }
};

struct LocalInfo {
  Span decl;
  enum class Role : std::uint8_t { Param, Let, Var, LoopVar } role = Role::Let;
};

class Checker {
 public:
  Checker(const SourceFile& source, Diagnostics& diags, Options options)
      : source_(source), diags_(diags), options_(options) {}

  ir::Module run(const ast::Module& module) {
    ir::Module out;
    out.source_name = source_.name();
    declare_functions(module, out);
    functions_ir_ = &out.functions;
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      if (fn_index_valid_[i] && !module.functions[i].syntax_errors) {
        check_function(module.functions[i], out, static_cast<int>(i));
      }
    }
    for (const ast::Aggregate& agg : module.aggregates) check_aggregate(agg, out);
    out.sql_sites = std::move(sql_sites_);
    out.query_sites = std::move(query_sites_);
    if (options_.target == Target::Native) require_main(module);
    if (installs_functions() && !diags_.has_errors()) {
      bool any_export = std::any_of(module.functions.begin(), module.functions.end(),
                                    [](const ast::Function& f) { return f.exported; }) ||
                        !module.aggregates.empty();
      if (!any_export) {
        diags_.error({0, 0}, std::string("nothing to install: mark at least one function 'export fn' for --target ") +
                                 target_name());
      }
    }
    if (!diags_.has_errors()) {
      ir::analyze(out);
      refuse_embedded_sql_in_aggregates(module, out);
    }
    return out;
  }

 private:
  // Targets whose exported functions are installed into a database.
  bool installs_functions() const {
    return options_.target == Target::Pg || options_.target == Target::Sqlite || options_.target == Target::Mariadb;
  }
  // SQLite and MariaDB: no server functions, no embedded SQL.
  bool foreign_host() const { return options_.target == Target::Sqlite || options_.target == Target::Mariadb; }
  const char* target_name() const {
    switch (options_.target) {
      case Target::Pg: return "pg";
      case Target::Native: return "native";
      case Target::Sqlite: return "sqlite";
      case Target::Mariadb: return "mariadb";
      case Target::Any: break;
    }
    return "any";
  }

  // Module level ---------------------------------------------------------

  void declare_functions(const ast::Module& module, ir::Module& out) {
    fn_index_valid_.assign(module.functions.size(), true);
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      const ast::Function& f = module.functions[i];
      ir::Function fn;
      fn.name = f.name;
      fn.exported = f.exported;
      fn.line = line(f.name_span);
      fn.doc = f.doc;
      fn.ret = f.ret ? from_ast(*f.ret) : kVoid;
      if (f.returns_rows) declare_rows(f, fn);
      out.functions.push_back(std::move(fn));
      if (is_builtin_name(f.name)) {
        diags_.error(f.name_span, "'" + f.name + "' is a built-in function; choose another name");
        continue;
      }
      if (f.name == "sql") {
        diags_.error(f.name_span, "'sql' is reserved for calling server functions (sql.name(...))");
        continue;
      }
      auto [it, inserted] = functions_.emplace(f.name, static_cast<int>(i));
      if (!inserted) {
        Diagnostic& d = diags_.error(f.name_span, "function '" + f.name + "' is defined twice");
        d.notes.push_back({module.functions[static_cast<std::size_t>(it->second)].name_span, "first defined here"});
      }
      if (f.params.size() > 100) {
        diags_.error(f.name_span, "a function takes at most 100 parameters (PostgreSQL's limit)");
      }
    }
    ast_ = &module;
  }

  // `-> rows(a: int, b: text?)`: the columns of a set-returning function,
  // and where it can run (docs/keal.md, "Set-returning functions").
  void declare_rows(const ast::Function& f, ir::Function& fn) {
    fn.returns_rows = true;
    if (f.rows.empty()) diags_.error(f.rows_span, "a rows function needs at least one column: 'rows(name: type, ...)'");
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
      const ast::Param& c = f.rows[i];
      for (std::size_t j = 0; j < i; ++j) {
        if (f.rows[j].name == c.name) diags_.error(c.span, "column '" + c.name + "' is declared twice");
      }
      if (c.type.array) diags_.error(c.type.span, "a rows function's columns are scalars in this version; column '" + c.name + "' is an array");
      fn.columns.push_back({c.name, from_ast(c.type)});
      // PostgreSQL's RETURNS TABLE columns are OUT parameters, and SQLite's
      // table-valued function takes its arguments as hidden columns: both
      // need the names apart.
      for (const ast::Param& p : f.params) {
        if (p.name == c.name)
          diags_.error(c.span, "column '" + c.name + "' has the name of a parameter; a rows function's columns and parameters "
                               "need different names");
      }
    }
    for (const ast::Param& p : f.params) {
      if (p.type.array) diags_.error(p.type.span, "a rows function's parameters are scalars in this version; '" + p.name + "' is an array");
    }
    if (!f.exported) {
      diags_.error(f.name_span, "rows function '" + f.name + "' is called from SQL (SELECT * FROM " + f.name +
                                    "(...)); mark it 'export fn'");
    }
    switch (options_.target) {
      case Target::Mariadb:
        diags_.error(f.rows_span, "function '" + f.name + "' returns rows; MariaDB UDFs cannot return sets, so --target mariadb "
                                  "has no rows functions (use --target pg or --target sqlite)");
        break;
      case Target::Native:
        diags_.error(f.rows_span, "function '" + f.name + "' returns rows; it is installed into PostgreSQL, and a native program "
                                  "(--target native) cannot call it");
        break;
      default: break;
    }
  }

  void require_main(const ast::Module& module) {
    // A `main` whose header did not parse has been reported already.
    if (std::count(module.unparsed_functions.begin(), module.unparsed_functions.end(), "main") != 0) return;
    for (const ast::Function& f : module.functions) {
      if (f.name != "main") continue;
      if (!f.exported) diags_.error(f.name_span, "a native program's entry point must be exported: 'export fn main()'");
      if (!f.params.empty()) diags_.error(f.name_span, "'main' takes no parameters");
      if (f.ret) diags_.error(f.ret->span, "'main' returns nothing");
      return;
    }
    diags_.error({0, 0}, "a native program needs an entry point: 'export fn main() { ... }'");
  }

  void check_function(const ast::Function& f, ir::Module& out, int index) {
    fn_ = &out.functions[static_cast<std::size_t>(index)];
    c_names_.clear();
    scopes_.clear();
    narrowing_ = Narrowing();
    infos_.clear();
    loop_depth_ = 0;
    push_scope();
    for (const ast::Param& p : f.params) {
      if (p.name == "sql") diags_.error(p.span, "'sql' is reserved for calling server functions (sql.name(...))");
      if (scopes_.back().count(p.name) != 0) {
        diags_.error(p.span, "parameter '" + p.name + "' is declared twice");
        continue;
      }
      int slot = declare(p.name, from_ast(p.type), p.span, LocalInfo::Role::Param);
      fn_->locals[static_cast<std::size_t>(slot)].is_param = true;
      fn_->params.push_back(slot);
    }
    bool falls_through = true;
    fn_->body = check_block_stmts(f.body, falls_through);
    if (falls_through && fn_->ret.base != Base::Void) {
      Span closing{f.body.span.end == 0 ? 0 : f.body.span.end - 1, f.body.span.end};
      diags_.error(closing, "function '" + f.name + "' must return a value of type " + quoted(fn_->ret) +
                                " on every path; this end is reachable");
    }
    pop_scope();
  }

  // Aggregates (check/aggregates.cpp has the rules of their shape) -----------

  // Each block becomes a function of the module over the state: init (the
  // initial values), step and inverse (the state mutable, the arguments as
  // parameters), combine (the state mutable, `other` the second state,
  // read-only) and final (the state read-only, returns the result).
  void check_aggregate(const ast::Aggregate& agg, ir::Module& out) {
    if (options_.target == Target::Native) {
      diags_.error(agg.name_span, "aggregate '" + agg.name +
                                      "' is installed into a database; a native program (--target native) cannot call it");
      return;
    }
    if (is_builtin_name(agg.name)) {
      diags_.error(agg.name_span, "'" + agg.name + "' is a built-in function; choose another name");
      return;
    }
    auto fn = functions_.find(agg.name);
    if (fn != functions_.end()) {
      Diagnostic& d = diags_.error(agg.name_span, "'" + agg.name + "' is defined twice");
      d.notes.push_back({ast_->functions[static_cast<std::size_t>(fn->second)].name_span, "first defined here (a function)"});
      return;
    }
    auto [first, inserted] = aggregate_names_.emplace(agg.name, agg.name_span);
    if (!inserted) {
      Diagnostic& d = diags_.error(agg.name_span, "aggregate '" + agg.name + "' is defined twice");
      d.notes.push_back({first->second, "first defined here"});
      return;
    }
    if (!check_aggregate_shape(agg, diags_) || agg.syntax_errors) return;
    ir::Aggregate a;
    a.name = agg.name;
    a.line = line(agg.name_span);
    a.doc = agg.doc;
    a.ret = from_ast(*agg.ret);
    a.state = aggregate_state_type(agg);
    for (const ast::Param& p : agg.params) a.params.push_back({p.name, from_ast(p.type)});
    const int index = static_cast<int>(out.aggregates.size());
    a.init = aggregate_init(agg, out, index);
    a.step = aggregate_part(agg, agg.step, ir::AggregatePart::Step, out, index);
    if (agg.combine.present) a.combine = aggregate_part(agg, agg.combine, ir::AggregatePart::Combine, out, index);
    if (agg.inverse.present) a.inverse = aggregate_part(agg, agg.inverse, ir::AggregatePart::Inverse, out, index);
    if (agg.final.present) a.final_fn = aggregate_part(agg, agg.final, ir::AggregatePart::Final, out, index);
    out.aggregates.push_back(std::move(a));
  }

  int begin_aggregate_function(const ast::Aggregate& agg, ir::AggregatePart part, Span at, Type ret, ir::Module& out,
                               int index) {
    ir::Function f;
    f.name = agg.name + "." + ir::part_name(part);
    f.line = line(at);
    f.ret = ret;
    f.aggregate = index;
    f.part = part;
    out.functions.push_back(std::move(f));
    fn_ = &out.functions.back();
    c_names_.clear();
    scopes_.clear();
    narrowing_ = Narrowing();
    infos_.clear();
    loop_depth_ = 0;
    push_scope();
    return static_cast<int>(out.functions.size() - 1);
  }

  // The state fields as locals of the current part, named st->f<i>.
  void declare_state(const ast::Aggregate& agg, bool is_mutable) {
    const ir::Type state = aggregate_state_type(agg);
    const ir::Record& record = *state.record;
    for (std::size_t i = 0; i < record.fields.size(); ++i) {
      const auto& decl = agg.state[i];
      int slot = declare(record.fields[i].name, record.fields[i].type, decl.span,
                         is_mutable ? LocalInfo::Role::Var : LocalInfo::Role::Let);
      ir::Local& l = fn_->locals[static_cast<std::size_t>(slot)];
      l.is_state = true;
      l.c_name = "st->f" + std::to_string(i);
    }
  }

  int aggregate_init(const ast::Aggregate& agg, ir::Module& out, int index) {
    int f = begin_aggregate_function(agg, ir::AggregatePart::Init, agg.name_span, kVoid, out, index);
    declare_state(agg, true);
    // The initial values see no state and no argument: hide the fields.
    std::vector<int> slots;
    for (const auto& s : agg.state) slots.push_back(lookup(s.name));
    scopes_.back().clear();
    for (std::size_t i = 0; i < agg.state.size(); ++i) {
      const auto& s = agg.state[i];
      Checked init = check_expr(*s.init, true);
      const Type type = fn_->locals[static_cast<std::size_t>(slots[i])].type;
      if (init.bad) continue;
      if (init.type().base == Base::Void) {
        diags_.error(s.init->span, "this call returns no value");
        continue;
      }
      if (!assignable(init.type(), type)) {
        diags_.error(s.init->span, "cannot initialize state '" + s.name + "' of type " + quoted(type) +
                                       " with a value of type " + quoted(init.type()) + conversion_hint(init.type(), type));
        continue;
      }
      auto st = make_stmt(ir::Stmt::Kind::Assign, s.init->span);
      st->local = slots[i];
      st->a = coerce(std::move(init), type);
      fn_->body.push_back(std::move(st));
    }
    pop_scope();
    return f;
  }

  int aggregate_part(const ast::Aggregate& agg, const ast::Aggregate::Part& part, ir::AggregatePart kind, ir::Module& out,
                     int index) {
    const bool is_final = kind == ir::AggregatePart::Final;
    const Type ret = is_final ? from_ast(*agg.ret) : kVoid;
    int f = begin_aggregate_function(agg, kind, part.keyword, ret, out, index);
    declare_state(agg, !is_final);
    if (kind == ir::AggregatePart::Step || kind == ir::AggregatePart::Inverse) {
      for (const ast::Param& p : agg.params) {
        if (p.name == "sql") diags_.error(p.span, "'sql' is reserved for calling server functions (sql.name(...))");
        int slot = declare(p.name, from_ast(p.type), p.span, LocalInfo::Role::Param);
        fn_->locals[static_cast<std::size_t>(slot)].is_param = true;
        fn_->params.push_back(slot);
      }
    }
    if (kind == ir::AggregatePart::Combine) {
      int slot = declare("other", aggregate_state_type(agg), part.keyword, LocalInfo::Role::Let);
      fn_->locals[static_cast<std::size_t>(slot)].is_state = true;
      fn_->locals[static_cast<std::size_t>(slot)].c_name = "(*other)";
    }
    bool falls_through = true;
    fn_->body = check_block_stmts(part.body, falls_through);
    if (falls_through && is_final) {
      Span closing{part.body.span.end == 0 ? 0 : part.body.span.end - 1, part.body.span.end};
      diags_.error(closing, "the 'final' block of aggregate '" + agg.name + "' must return a value of type " + quoted(ret) +
                                " on every path; this end is reachable");
    }
    pop_scope();
    return f;
  }

  // Embedded SQL needs an SPI connection per call, which an aggregate's
  // parts (called per row by the executor, in parallel workers too) do
  // not open: refused, reached directly or through a called function.
  void refuse_embedded_sql_in_aggregates(const ast::Module& module, const ir::Module& out) {
    for (std::size_t i = 0; i < out.aggregates.size(); ++i) {
      const ir::Aggregate& a = out.aggregates[i];
      for (int part : {a.init, a.step, a.combine, a.inverse, a.final_fn}) {
        if (part < 0) continue;
        const ir::Function& f = out.functions[static_cast<std::size_t>(part)];
        if (!f.uses_spi) continue;
        Span at = module.aggregates[0].name_span;
        for (const ast::Aggregate& agg : module.aggregates) {
          if (agg.name == a.name) at = agg.name_span;
        }
        diags_.error(at, "aggregate '" + a.name + "' runs embedded SQL (query or exec) in its '" + ir::part_name(f.part) +
                             "' block; an aggregate's blocks cannot (call sql.name(...) functions instead)");
        break;
      }
    }
  }

  // Scopes and narrowing -----------------------------------------------------

  void push_scope() {
    scopes_.emplace_back();
    narrowing_.push();
  }
  void pop_scope() {
    scopes_.pop_back();
    narrowing_.pop();
  }

  int declare(const std::string& name, Type type, Span span, LocalInfo::Role role) {
    ir::Local local;
    local.name = name;
    local.type = type;
    local.is_mutable = role == LocalInfo::Role::Var;
    // Unique C names: a second `x` becomes k_x_1 (or k_x_2 if a Keal `x_1`
    // already took k_x_1).
    std::string c_name = "k_" + name;
    for (int n = 1; c_names_.count(c_name) != 0; ++n) c_name = "k_" + name + "_" + std::to_string(n);
    c_names_.insert(c_name);
    local.c_name = c_name;
    fn_->locals.push_back(std::move(local));
    infos_.push_back({span, role});
    int slot = static_cast<int>(fn_->locals.size() - 1);
    scopes_.back()[name] = slot;
    return slot;
  }

  int lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    return -1;
  }

  bool narrowed(int slot) const { return narrowing_.narrowed(slot); }
  void add_facts(const std::vector<int>& slots) { narrowing_.add(slots); }
  void forget(int slot) { narrowing_.forget(slot); }
  void forget_assigned_in(const ast::Block& block) { narrowing_.forget_assigned_in(block, lookup_fn()); }
  Facts facts(const Expr& e) const { return null_facts(e, lookup_fn()); }
  SlotLookup lookup_fn() const {
    return [this](const std::string& name) { return lookup(name); };
  }

  // Statements --------------------------------------------------------------

  std::uint32_t line(Span span) const { return source_.line_col(span.begin).line; }

  // Checks the statements of a block in a new scope. `falls_through` tells
  // whether control can reach the block's end.
  ir::Block check_block(const ast::Block& block, bool& falls_through, const std::vector<int>& facts_in = {}) {
    push_scope();
    add_facts(facts_in);
    ir::Block out = check_block_stmts(block, falls_through);
    pop_scope();
    return out;
  }

  ir::Block check_block_stmts(const ast::Block& block, bool& falls_through) {
    ir::Block out;
    falls_through = true;
    bool reported_unreachable = false;
    for (const auto& s : block.stmts) {
      if (!falls_through && !reported_unreachable) {
        diags_.error(s->span, "unreachable code: the statement before it always leaves the block");
        reported_unreachable = true;
      }
      bool next = true;
      ir::StmtPtr checked = check_stmt(*s, next);
      if (checked) out.push_back(std::move(checked));
      if (!next) falls_through = false;
    }
    return out;
  }

  ir::StmtPtr make_stmt(ir::Stmt::Kind kind, Span span) {
    auto s = std::make_unique<ir::Stmt>();
    s->kind = kind;
    s->line = line(span);
    return s;
  }

  ir::StmtPtr check_stmt(const Stmt& s, bool& falls_through) {
    falls_through = true;
    switch (s.kind) {
      case Stmt::Kind::Let:
      case Stmt::Kind::Var: return check_declaration(s);
      case Stmt::Kind::Assign: return check_assign(s);
      case Stmt::Kind::If: return check_if(s, falls_through);
      case Stmt::Kind::While: return check_while(s, falls_through);
      case Stmt::Kind::ForRange:
      case Stmt::Kind::ForEach: return check_for(s);
      case Stmt::Kind::Break:
      case Stmt::Kind::Continue: {
        falls_through = false;
        bool is_break = s.kind == Stmt::Kind::Break;
        if (loop_depth_ == 0) {
          diags_.error(s.span, std::string("'") + (is_break ? "break" : "continue") + "' outside of a loop");
          return nullptr;
        }
        if (is_break) loop_has_break_.back() = true;
        return make_stmt(is_break ? ir::Stmt::Kind::Break : ir::Stmt::Kind::Continue, s.span);
      }
      case Stmt::Kind::Return: return check_return(s, falls_through);
      case Stmt::Kind::Raise: return check_raise(s, falls_through);
      case Stmt::Kind::Eval: return check_eval(s);
      case Stmt::Kind::Yield: return check_yield(s);
    }
    return nullptr;
  }

  // `yield (a, b)`: one row of a rows function, one value per column.
  ir::StmtPtr check_yield(const Stmt& s) {
    std::vector<Checked> values;
    bool ok = true;
    for (const auto& v : s.values) {
      values.push_back(check_expr(*v, true));
      ok = ok && !values.back().bad;
    }
    if (!fn_->returns_rows) {
      diags_.error(s.span, "'yield' outside a rows function; declare '" + fn_->name + "' with '-> rows(name: type, ...)'");
      return nullptr;
    }
    if (query_loop_depth_ > 0) {
      diags_.error(s.span, "'yield' inside a query loop is not supported in this version: the loop's cursor would have to outlive "
                           "the call's SPI connection; collect the rows first or yield after the loop");
      return nullptr;
    }
    const std::vector<ir::Field>& columns = fn_->columns;
    if (values.size() != columns.size()) {
      std::string list;
      for (std::size_t i = 0; i < columns.size(); ++i) list += (i ? ", " : "") + columns[i].name + ": " + ir::to_string(columns[i].type);
      diags_.error(s.span, "'yield' gives " + std::to_string(values.size()) + " value" + (values.size() == 1 ? "" : "s") +
                               ", but function '" + fn_->name + "' returns rows of " + std::to_string(columns.size()) + " column" +
                               (columns.size() == 1 ? "" : "s") + " (" + list + ")");
      return nullptr;
    }
    if (!ok) return nullptr;
    auto out = make_stmt(ir::Stmt::Kind::Yield, s.span);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const Type& want = columns[i].type;
      if (values[i].type().base == Base::Void) {
        diags_.error(s.values[i]->span, "this call returns no value");
        return nullptr;
      }
      if (!assignable(values[i].type(), want)) {
        diags_.error(s.values[i]->span, "cannot yield a value of type " + quoted(values[i].type()) + " as column '" +
                                            columns[i].name + "' of type " + quoted(want) + conversion_hint(values[i].type(), want));
        return nullptr;
      }
      out->values.push_back(coerce(std::move(values[i]), want));
    }
    return out;
  }

  ir::StmtPtr check_declaration(const Stmt& s) {
    bool is_let = s.kind == Stmt::Kind::Let;
    Checked init = check_expr(*s.expr, true);
    if (s.name == "sql") diags_.error(s.name_span, "'sql' is reserved for calling server functions (sql.name(...))");
    Type type = init.type();
    if (s.declared_type) {
      type = from_ast(*s.declared_type);
      if (!init.bad) {
        if (init.type().base == Base::Void) {
          diags_.error(s.expr->span, "this call returns no value");
        } else if (!assignable(init.type(), type)) {
          diags_.error(s.expr->span, "cannot initialize '" + s.name + "' of type " + quoted(type) + " with a value of type " +
                                         quoted(init.type()) + conversion_hint(init.type(), type));
        }
      }
    } else if (!init.bad) {
      if (init.type().base == Base::Null) {
        diags_.error(s.expr->span, "cannot infer a type from 'null'; write the type, e.g. '" +
                                       std::string(is_let ? "let " : "var ") + s.name + ": int? = null'");
        type = kInt;
      } else if (init.type().base == Base::Void) {
        diags_.error(s.expr->span, "this call returns no value");
        type = kInt;
      } else if (is_empty_literal_type(init.type())) {
        diags_.error(s.expr->span, "cannot infer an element type from '[]'; write the type, e.g. '" +
                                       std::string(is_let ? "let " : "var ") + s.name + ": [int] = []'");
        type = ir::array_type(kInt);
      }
    }
    if (init.bad && !s.declared_type) type = kInt;
    auto found = scopes_.back().find(s.name);
    if (found != scopes_.back().end()) {
      Diagnostic& d = diags_.error(s.name_span, "'" + s.name + "' is already declared in this block");
      d.notes.push_back({infos_[static_cast<std::size_t>(found->second)].decl, "previous declaration is here"});
    }
    int slot = declare(s.name, type, s.name_span, is_let ? LocalInfo::Role::Let : LocalInfo::Role::Var);
    auto out = make_stmt(ir::Stmt::Kind::Declare, s.span);
    out->local = slot;
    bool init_nullable = init.bad || init.type().nullable;
    out->a = coerce(std::move(init), type);
    if (type.nullable && !init_nullable) add_facts({slot});
    return out;
  }

  std::string conversion_hint(Type from, Type to) const {
    if (from.nullable && !to.nullable && from.base == to.base) return "; it may be null: check it first or use '?? default'";
    if (from.nullable || to.nullable) return "";
    switch (to.base) {
      case Base::Int:
        if (from.base == Base::Float || from.base == Base::Text || from.base == Base::Char) return "; convert with int(..)";
        break;
      case Base::Float:
        if (from.base == Base::Int || from.base == Base::Text) return "; convert with float(..)";
        break;
      case Base::Text:
        if (from.base != Base::Void && from.base != Base::Null) return "; convert with text(..)";
        break;
      default: break;
    }
    return "";
  }

  // Wraps a T into T? where needed; the caller has checked assignability.
  ir::ExprPtr coerce(Checked c, Type to) {
    if (!c.e) return nullptr;
    if (!c.bad && is_empty_literal_type(c.type()) && to.base == Base::Array) {
      c.e->type = to;  // `[]` takes the element type it is given
      return std::move(c.e);
    }
    if (c.bad || c.type() == to || !to.nullable) return std::move(c.e);
    if (c.type().base == Base::Null) {
      c.e->type = to;
      return std::move(c.e);
    }
    auto w = std::make_unique<ir::Expr>();
    w->kind = ir::Expr::Kind::Wrap;
    w->type = to;
    w->line = c.e->line;
    w->args.push_back(std::move(c.e));
    return w;
  }

  ir::StmtPtr check_assign(const Stmt& s) {
    int slot = lookup(s.name);
    Checked value = check_expr(*s.expr);
    if (slot < 0) {
      diags_.error(s.name_span, unknown_name_message(s.name));
      return nullptr;
    }
    const LocalInfo& info = infos_[static_cast<std::size_t>(slot)];
    const ir::Local& local = fn_->locals[static_cast<std::size_t>(slot)];
    if (info.role != LocalInfo::Role::Var) {
      std::string message;
      switch (info.role) {
        case LocalInfo::Role::Param:
          message = "cannot assign to parameter '" + s.name + "'; copy it into a variable first: 'var x = " + s.name + "'";
          break;
        case LocalInfo::Role::Let:
          if (local.is_state) {
            message = "cannot assign to state '" + s.name + "' in '" + ir::part_name(fn_->part) +
                      "': the final block (and 'other' in combine) only reads the state";
            break;
          }
          message = "cannot assign to '" + s.name + "': it is declared with 'let'; use 'var' for a variable that changes";
          break;
        default: message = "cannot assign to loop variable '" + s.name + "'"; break;
      }
      Diagnostic& d = diags_.error(s.name_span, message);
      d.notes.push_back({info.decl, "'" + s.name + "' is declared here"});
      return nullptr;
    }
    if (value.bad) return nullptr;
    Type target = local.type;
    ir::ExprPtr result;
    if (s.assign_op == ast::AssignOp::Set) {
      if (!assignable(value.type(), target)) {
        diags_.error(s.expr->span, "cannot assign a value of type " + quoted(value.type()) + " to '" + s.name + "' of type " +
                                       quoted(target) + conversion_hint(value.type(), target));
        return nullptr;
      }
      bool may_be_null = value.type().nullable;
      result = coerce(std::move(value), target);
      if (target.nullable) {
        if (may_be_null) forget(slot);
        else add_facts({slot});
      }
    } else {
      static constexpr BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Mod};
      BinaryOp op = ops[static_cast<int>(s.assign_op)];
      Checked current = read_local(slot, s.name_span);
      if (!require_value(current, s.name_span, s.name)) return nullptr;
      if (!require_value(value, s.expr->span, describe_expr(*s.expr))) return nullptr;
      Checked combined = arithmetic(op, std::move(current), std::move(value), s.span, s.name_span, s.expr->span);
      if (combined.bad) return nullptr;
      if (!assignable(combined.type(), target)) {
        diags_.error(s.span, "the result of type " + quoted(combined.type()) + " does not fit '" + s.name + "' of type " +
                                 quoted(target));
        return nullptr;
      }
      result = coerce(std::move(combined), target);
    }
    auto out = make_stmt(ir::Stmt::Kind::Assign, s.span);
    out->local = slot;
    out->a = std::move(result);
    return out;
  }

  ir::ExprPtr condition(const Expr& e) {
    Checked c = check_expr(e);
    if (c.bad) return std::move(c.e);
    if (!require_value(c, e.span, describe_expr(e))) return std::move(c.e);
    if (c.type() != kBool) {
      diags_.error(e.span, "condition must be bool, not " + quoted(c.type()));
    }
    return std::move(c.e);
  }

  ir::StmtPtr check_if(const Stmt& s, bool& falls_through) {
    // Built as a chain: if c1 {b1} else { if c2 {b2} else {...} }.
    ir::StmtPtr head;
    ir::Block* slot = nullptr;
    std::vector<int> acc_false;
    bool any_falls = false;
    int pushed = 0;
    for (std::size_t i = 0; i < s.blocks.size(); ++i) {
      push_scope();
      ++pushed;
      add_facts(acc_false);
      bool through = true;
      if (i < s.conds.size()) {
        ir::ExprPtr cond = condition(*s.conds[i]);
        Facts f = facts(*s.conds[i]);
        auto node = make_stmt(ir::Stmt::Kind::If, s.conds[i]->span);
        node->a = std::move(cond);
        node->body = check_block(s.blocks[i], through, f.when_true);
        acc_false.insert(acc_false.end(), f.when_false.begin(), f.when_false.end());
        ir::Stmt* raw = node.get();
        if (slot == nullptr) head = std::move(node);
        else slot->push_back(std::move(node));
        slot = &raw->else_body;
      } else {
        *slot = check_block(s.blocks[i], through);
      }
      any_falls = any_falls || through;
    }
    for (int i = 0; i < pushed; ++i) pop_scope();
    bool has_else = s.blocks.size() > s.conds.size();
    falls_through = any_falls || !has_else;
    // `if x == null { return .. }` narrows x for the rest of the block.
    if (!any_falls && !has_else) add_facts(acc_false);
    return head;
  }

  ir::StmtPtr check_while(const Stmt& s, bool& falls_through) {
    forget_assigned_in(s.body);
    auto out = make_stmt(ir::Stmt::Kind::While, s.span);
    out->a = condition(*s.expr);
    Facts f = facts(*s.expr);
    ++loop_depth_;
    loop_has_break_.push_back(false);
    bool through = true;
    out->body = check_block(s.body, through, f.when_true);
    bool has_break = loop_has_break_.back();
    loop_has_break_.pop_back();
    --loop_depth_;
    const Expr* cond = s.expr.get();
    while (cond->kind == Expr::Kind::Paren) cond = cond->args[0].get();
    bool forever = cond->kind == Expr::Kind::BoolLit && cond->bool_value;
    falls_through = !forever || has_break;
    return out;
  }

  ir::StmtPtr check_for(const Stmt& s) {
    forget_assigned_in(s.body);
    bool range = s.kind == Stmt::Kind::ForRange;
    auto out = make_stmt(range ? ir::Stmt::Kind::ForRange : ir::Stmt::Kind::ForChars, s.span);
    Type var_type = kInt;
    if (range) {
      for (const Expr* bound : {s.expr.get(), s.expr2.get()}) {
        Checked c = check_expr(*bound);
        if (!c.bad && require_value(c, bound->span, describe_expr(*bound)) && c.type() != kInt) {
          diags_.error(bound->span, "range bounds must be int, not " + quoted(c.type()));
        }
        (bound == s.expr.get() ? out->a : out->b) = std::move(c.e);
      }
      out->inclusive = s.inclusive;
    } else if (s.expr->kind == Expr::Kind::Query && !s.expr->query_one) {
      out->kind = ir::Stmt::Kind::ForQuery;
      Type declared = kVoid;
      Checked c = check_embedded_sql(*s.expr, &declared);
      var_type = declared;
      out->a = std::move(c.e);
    } else {
      Checked c = check_expr(*s.expr);
      var_type = kChar;
      if (!c.bad && c.type().base == Base::Array) {
        out->kind = ir::Stmt::Kind::ForArray;
        if (is_empty_literal_type(c.type())) diags_.error(s.expr->span, "'[]' has no elements to iterate over");
        else var_type = ir::elem_type(c.type());
      } else if (!c.bad && require_value(c, s.expr->span, describe_expr(*s.expr)) && c.type() != kText) {
        diags_.error(s.expr->span, "'for " + s.name + " in ...' iterates over text (its chars), an array (its elements) or a range a..b; this is " +
                                       quoted(c.type()));
      }
      out->a = std::move(c.e);
    }
    push_scope();
    if (out->kind == ir::Stmt::Kind::ForQuery && var_type == kVoid) var_type = kInt;  // no row type: keep checking the body
    out->local = declare(s.name, var_type, s.name_span, LocalInfo::Role::LoopVar);
    ++loop_depth_;
    const bool query_loop = out->kind == ir::Stmt::Kind::ForQuery;
    query_loop_depth_ += query_loop;
    loop_has_break_.push_back(false);
    bool through = true;
    out->body = check_block(s.body, through);
    loop_has_break_.pop_back();
    query_loop_depth_ -= query_loop;
    --loop_depth_;
    pop_scope();
    return out;
  }

  ir::StmtPtr check_return(const Stmt& s, bool& falls_through) {
    falls_through = false;
    auto out = make_stmt(ir::Stmt::Kind::Return, s.span);
    Type ret = fn_->ret;
    if (!s.expr) {
      if (ret.base != Base::Void) diags_.error(s.span, "'return' needs a value of type " + quoted(ret));
      return out;
    }
    Checked value = check_expr(*s.expr, true);
    if (value.bad) return out;
    if (fn_->returns_rows) {
      diags_.error(s.expr->span, "rows function '" + fn_->name + "' gives its rows with 'yield'; its 'return' takes no value "
                                 "and ends the rows");
      return out;
    }
    if (ret.base == Base::Void && fn_->aggregate >= 0) {
      diags_.error(s.expr->span, std::string("the '") + ir::part_name(fn_->part) +
                                     "' block returns no value; 'return' alone ends it for this row");
      return out;
    }
    if (ret.base == Base::Void) {
      diags_.error(s.expr->span, "function '" + fn_->name + "' declares no result type; add '-> " +
                                     ir::to_string(value.type().base == Base::Null ? kInt : value.type()) + "' or return nothing");
      return out;
    }
    if (!assignable(value.type(), ret)) {
      diags_.error(s.expr->span, "cannot return a value of type " + quoted(value.type()) + " from a function returning " +
                                     quoted(ret) + conversion_hint(value.type(), ret));
      return out;
    }
    out->a = coerce(std::move(value), ret);
    return out;
  }

  ir::StmtPtr check_raise(const Stmt& s, bool& falls_through) {
    falls_through = false;
    auto out = make_stmt(ir::Stmt::Kind::Raise, s.span);
    Checked msg = check_expr(*s.expr);
    if (!msg.bad && require_value(msg, s.expr->span, describe_expr(*s.expr)) && msg.type() != kText) {
      diags_.error(s.expr->span, "'raise' takes a text message, not " + quoted(msg.type()) +
                                     conversion_hint(msg.type(), kText));
    }
    out->a = std::move(msg.e);
    out->code = "P0001";
    if (s.raise_code) {
      const std::string& code = *s.raise_code;
      bool ok = code.size() == 5 && std::all_of(code.begin(), code.end(), [](char c) {
                  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
                });
      if (!ok) {
        diags_.error(s.code_span, "a SQLSTATE is five characters 0-9 or A-Z, like \"22023\"");
      } else if (code.compare(0, 2, "00") == 0 || code.compare(0, 2, "01") == 0 || code.compare(0, 2, "02") == 0) {
        diags_.error(s.code_span, "SQLSTATE class " + code.substr(0, 2) +
                                      " is success, warning or no-data; 'raise' needs an error class");
      } else {
        out->code = code;
      }
    }
    return out;
  }

  ir::StmtPtr check_eval(const Stmt& s) {
    const Expr& e = *s.expr;
    if (e.kind != Expr::Kind::Call && e.kind != Expr::Kind::SqlCall && e.kind != Expr::Kind::Exec) {
      diags_.error(e.span, "this expression's value is unused; only calls can stand alone as statements");
      return nullptr;
    }
    Checked c = check_expr(e, true);
    if (c.bad) return nullptr;
    auto out = make_stmt(ir::Stmt::Kind::Eval, s.span);
    out->a = std::move(c.e);
    return out;
  }

  // Expressions -------------------------------------------------------------

  static std::string describe_expr(const Expr& e) {
    if (e.kind == Expr::Kind::Name) return e.text;
    if (e.kind == Expr::Kind::Field && e.args[0]->kind == Expr::Kind::Name) return e.args[0]->text + "." + e.text;
    return "this value";
  }

  std::string unknown_name_message(const std::string& name) const {
    if (functions_.count(name) != 0 || is_builtin_name(name)) {
      return "'" + name + "' is a function; call it with " + name + "(...)";
    }
    return "unknown name '" + name + "'";
  }

  // A nullable value used where a value is needed.
  bool require_value(const Checked& c, Span span, const std::string& what) {
    if (c.bad) return false;
    Type t = c.type();
    if (t.base == Base::Void) {
      diags_.error(span, "this call returns no value");
      return false;
    }
    if (t.base == Base::Null) {
      diags_.error(span, "'null' cannot be used here");
      return false;
    }
    if (t.nullable) {
      diags_.error(span, "'" + what + "' may be null (type " + quoted(t) + "); check it with 'if " + what +
                             " != null' or give a default with '" + what + " ?? ...'");
      return false;
    }
    return true;
  }

  ir::ExprPtr node(ir::Expr::Kind kind, Type type, Span span) {
    auto e = std::make_unique<ir::Expr>();
    e->kind = kind;
    e->type = type;
    e->line = line(span);
    return e;
  }

  Checked bad() {
    Checked c;
    c.e = std::make_unique<ir::Expr>();
    c.bad = true;
    return c;
  }

  Checked ok(ir::ExprPtr e) {
    Checked c;
    c.e = std::move(e);
    return c;
  }

  Checked read_local(int slot, Span span) {
    const ir::Local& local = fn_->locals[static_cast<std::size_t>(slot)];
    auto e = node(ir::Expr::Kind::Local, local.type, span);
    e->local = slot;
    if (local.type.nullable && narrowed(slot)) {
      auto u = node(ir::Expr::Kind::Unwrap, {local.type.base, false}, span);
      u->args.push_back(std::move(e));
      return ok(std::move(u));
    }
    return ok(std::move(e));
  }

  Checked check_expr(const Expr& e, bool allow_void = false) {
    switch (e.kind) {
      case Expr::Kind::IntLit: {
        if (e.int_value > static_cast<std::uint64_t>(INT64_MAX)) {
          diags_.error(e.span, "integer literal is too large for int (64-bit)");
          return bad();
        }
        auto n = node(ir::Expr::Kind::Int, kInt, e.span);
        n->int_value = static_cast<std::int64_t>(e.int_value);
        return ok(std::move(n));
      }
      case Expr::Kind::FloatLit: {
        auto n = node(ir::Expr::Kind::Float, kFloat, e.span);
        n->float_value = e.float_value;
        return ok(std::move(n));
      }
      case Expr::Kind::BoolLit: {
        auto n = node(ir::Expr::Kind::Bool, kBool, e.span);
        n->bool_value = e.bool_value;
        return ok(std::move(n));
      }
      case Expr::Kind::TextLit: {
        auto n = node(ir::Expr::Kind::Text, kText, e.span);
        n->text_value = e.text;
        return ok(std::move(n));
      }
      case Expr::Kind::CharLit: {
        auto n = node(ir::Expr::Kind::Char, kChar, e.span);
        n->char_value = e.char_value;
        return ok(std::move(n));
      }
      case Expr::Kind::NullLit: return ok(node(ir::Expr::Kind::Null, kNull, e.span));
      case Expr::Kind::Paren: return check_expr(*e.args[0], allow_void);
      case Expr::Kind::Name: {
        int slot = lookup(e.text);
        if (slot < 0) {
          diags_.error(e.span, e.text == "sql" ? "'sql' is only used to call server functions: sql.name(...)"
                                               : unknown_name_message(e.text));
          return bad();
        }
        if (fn_->locals[static_cast<std::size_t>(slot)].type.base == Base::Record && !reading_field_) {
          diags_.error(e.span, "'" + e.text + "' is a row of type " + quoted(fn_->locals[static_cast<std::size_t>(slot)].type) +
                                   "; use its fields (" + e.text + "." +
                                   fn_->locals[static_cast<std::size_t>(slot)].type.record->fields[0].name + ")");
          return bad();
        }
        return read_local(slot, e.span);
      }
      case Expr::Kind::Field: return check_field(e);
      case Expr::Kind::Query:
        if (!e.query_one) {
          diags_.error(e.span, "a query's rows are read with a loop: for r in query \"...\" (...) as (...) { }; "
                               "use 'query one' for exactly one row");
          for (const auto& a : e.args) check_expr(*a);
          return bad();
        }
        return check_embedded_sql(e);
      case Expr::Kind::Exec: {
        Checked c = check_embedded_sql(e);
        if (!c.bad && !allow_void) {
          diags_.error(e.span, "exec returns no value; it stands alone as a statement");
          return bad();
        }
        return c;
      }
      case Expr::Kind::Unary: return check_unary(e);
      case Expr::Kind::Binary: return check_binary(e);
      case Expr::Kind::Call: {
        Checked c = check_call(e);
        if (!c.bad && !allow_void && c.type().base == Base::Void) {
          diags_.error(e.span, "'" + e.text + "' returns no value");
          return bad();
        }
        return c;
      }
      case Expr::Kind::SqlCall: return check_sql_call(e);
      case Expr::Kind::Convert: return check_convert(e);
      case Expr::Kind::ArrayLit: return check_array_literal(e);
      case Expr::Kind::Index: return check_index(e);
    }
    return bad();
  }

  Checked check_unary(const Expr& e) {
    const Expr& operand = *e.args[0];
    if (e.unary_op == ast::UnaryOp::Neg && operand.kind == Expr::Kind::IntLit &&
        operand.int_value == (std::uint64_t{1} << 63)) {
      auto n = node(ir::Expr::Kind::Int, kInt, e.span);
      n->int_value = INT64_MIN;
      return ok(std::move(n));
    }
    Checked c = check_expr(operand);
    if (c.bad || !require_value(c, operand.span, describe_expr(operand))) return bad();
    if (e.unary_op == ast::UnaryOp::Not) {
      if (c.type() != kBool) {
        diags_.error(e.span, "'not' needs a bool operand, not " + quoted(c.type()));
        return bad();
      }
      auto n = node(ir::Expr::Kind::Unary, kBool, e.span);
      n->op = ir::Op::Not;
      n->args.push_back(std::move(c.e));
      return ok(std::move(n));
    }
    if (c.type() != kInt && c.type() != kFloat) {
      diags_.error(e.span, "unary '-' needs an int or float operand, not " + quoted(c.type()));
      return bad();
    }
    auto n = node(ir::Expr::Kind::Unary, c.type(), e.span);
    n->op = ir::Op::Neg;
    n->args.push_back(std::move(c.e));
    return ok(std::move(n));
  }

  Checked binary_node(ir::Op op, Type type, Span span, Checked l, Checked r) {
    auto n = node(ir::Expr::Kind::Binary, type, span);
    n->op = op;
    n->args.push_back(std::move(l.e));
    n->args.push_back(std::move(r.e));
    return ok(std::move(n));
  }

  Checked arithmetic(BinaryOp op, Checked l, Checked r, Span span, Span lspan, Span rspan) {
    (void)lspan;
    (void)rspan;
    Type lt = l.type(), rt = r.type();
    const char* text = ast::op_text(op);
    if (op == BinaryOp::Add && lt == kText && rt == kText) return binary_node(ir::Op::Concat, kText, span, std::move(l), std::move(r));
    if (lt != rt || (lt != kInt && lt != kFloat)) {
      std::string message = std::string("cannot apply '") + text + "' to " + quoted(lt) + " and " + quoted(rt);
      if ((lt == kInt && rt == kFloat) || (lt == kFloat && rt == kInt)) message += "; convert one side with float(..) or int(..)";
      else if (op == BinaryOp::Add && (lt == kText || rt == kText)) message += "; convert the other side with text(..)";
      diags_.error(span, message);
      return bad();
    }
    if (op == BinaryOp::Mod && lt == kFloat) {
      diags_.error(span, "'%' is defined on int only");
      return bad();
    }
    static constexpr ir::Op map[] = {ir::Op::Add, ir::Op::Sub, ir::Op::Mul, ir::Op::Div, ir::Op::Mod};
    return binary_node(map[static_cast<int>(op)], lt, span, std::move(l), std::move(r));
  }

  Checked check_binary(const Expr& e) {
    BinaryOp op = e.binary_op;
    const Expr& le = *e.args[0];
    const Expr& re = *e.args[1];
    if (op == BinaryOp::And || op == BinaryOp::Or) {
      ir::ExprPtr l = condition_operand(le, op);
      Facts f = facts(le);
      push_scope();
      add_facts(op == BinaryOp::And ? f.when_true : f.when_false);
      ir::ExprPtr r = condition_operand(re, op);
      pop_scope();
      if (!l || !r) return bad();
      auto n = node(ir::Expr::Kind::Binary, kBool, e.span);
      n->op = op == BinaryOp::And ? ir::Op::And : ir::Op::Or;
      n->args.push_back(std::move(l));
      n->args.push_back(std::move(r));
      return ok(std::move(n));
    }
    if ((op == BinaryOp::Eq || op == BinaryOp::Ne) &&
        (le.kind == Expr::Kind::NullLit || re.kind == Expr::Kind::NullLit)) {
      const Expr& other = le.kind == Expr::Kind::NullLit ? re : le;
      if (other.kind == Expr::Kind::NullLit) {
        diags_.error(e.span, "comparing null with null");
        return bad();
      }
      // The raw local, not its narrowed read: the test is on the slot.
      Checked c;
      if (other.kind == Expr::Kind::Name && lookup(other.text) >= 0) {
        int slot = lookup(other.text);
        auto n = node(ir::Expr::Kind::Local, fn_->locals[static_cast<std::size_t>(slot)].type, other.span);
        n->local = slot;
        c = ok(std::move(n));
      } else {
        c = check_expr(other);
      }
      if (c.bad) return bad();
      if (!c.type().nullable) {
        diags_.error(e.span, "'" + describe_expr(other) + "' has type " + quoted(c.type()) +
                                 ", which is never null; this comparison is always " + (op == BinaryOp::Eq ? "false" : "true"));
        return bad();
      }
      auto n = node(ir::Expr::Kind::Unary, kBool, e.span);
      n->op = op == BinaryOp::Eq ? ir::Op::IsNull : ir::Op::IsNotNull;
      n->args.push_back(std::move(c.e));
      return ok(std::move(n));
    }
    if (op == BinaryOp::Coalesce) {
      // A variable declared T? keeps its declared type here even where it is
      // known to be non-null: `x ?? d` is then merely redundant, not wrong.
      Checked l;
      if (le.kind == Expr::Kind::Name && lookup(le.text) >= 0 &&
          fn_->locals[static_cast<std::size_t>(lookup(le.text))].type.nullable) {
        int slot = lookup(le.text);
        auto n = node(ir::Expr::Kind::Local, fn_->locals[static_cast<std::size_t>(slot)].type, le.span);
        n->local = slot;
        l = ok(std::move(n));
      } else {
        l = check_expr(le);
      }
      Checked r = check_expr(re);
      if (l.bad || r.bad) return bad();
      if (l.type().base == Base::Null) {
        diags_.error(le.span, "the left side of '?\?' is always null");
        return bad();
      }
      if (!l.type().nullable) {
        diags_.error(e.span, "the left side of '?\?' has type " + quoted(l.type()) + ", which is never null");
        return bad();
      }
      Type base{l.type().base, false};
      if (r.type().base == Base::Void) {
        diags_.error(re.span, "this call returns no value");
        return bad();
      }
      if (!assignable(r.type(), l.type())) {
        diags_.error(re.span, "the default after '?\?' must be " + quoted(base) + ", not " + quoted(r.type()));
        return bad();
      }
      Type result = r.type().nullable ? l.type() : base;
      ir::ExprPtr rhs = r.type().base == Base::Null ? coerce(std::move(r), l.type()) : std::move(r.e);
      auto n = node(ir::Expr::Kind::Binary, result, e.span);
      n->op = ir::Op::Coalesce;
      n->args.push_back(std::move(l.e));
      n->args.push_back(std::move(rhs));
      return ok(std::move(n));
    }
    Checked l = check_expr(le);
    Checked r = check_expr(re);
    if (l.bad || r.bad) return bad();
    bool l_ok = require_value(l, le.span, describe_expr(le));
    bool r_ok = require_value(r, re.span, describe_expr(re));
    if (!l_ok || !r_ok) return bad();
    Type lt = l.type(), rt = r.type();
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::Div:
      case BinaryOp::Mod: return arithmetic(op, std::move(l), std::move(r), e.span, le.span, re.span);
      case BinaryOp::Eq:
      case BinaryOp::Ne:
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge: {
        if (lt.base == Base::Array || rt.base == Base::Array) {
          diags_.error(e.span, std::string("arrays cannot be compared with '") + ast::op_text(op) +
                                   "'; compare their lengths and elements in a loop");
          return bad();
        }
        if (lt != rt) {
          diags_.error(e.span, std::string("cannot compare ") + quoted(lt) + " with " + quoted(rt) +
                                   ((lt.base == Base::Char && rt.base == Base::Text) || (lt.base == Base::Text && rt.base == Base::Char)
                                        ? "; a char literal is written 'a', text is written \"a\""
                                        : ""));
          return bad();
        }
        bool ordered = op != BinaryOp::Eq && op != BinaryOp::Ne;
        if (ordered && lt == kBool) {
          diags_.error(e.span, std::string("'") + ast::op_text(op) + "' does not order bool values");
          return bad();
        }
        static constexpr ir::Op map[] = {ir::Op::Eq, ir::Op::Ne, ir::Op::Lt, ir::Op::Le, ir::Op::Gt, ir::Op::Ge};
        return binary_node(map[static_cast<int>(op) - static_cast<int>(BinaryOp::Eq)], kBool, e.span, std::move(l), std::move(r));
      }
      case BinaryOp::In: {
        if (rt != kText || (lt != kChar && lt != kText)) {
          diags_.error(e.span, "'in' tests a char or text within text; here it is " + quoted(lt) + " in " + quoted(rt));
          return bad();
        }
        if (lt == kText) return binary_node(ir::Op::TextInText, kBool, e.span, std::move(l), std::move(r));
        const ir::Expr& set = *r.e;
        bool ascii_literal = set.kind == ir::Expr::Kind::Text && !set.text_value.empty() &&
                             std::all_of(set.text_value.begin(), set.text_value.end(),
                                         [](char c) { return static_cast<unsigned char>(c) < 0x80; });
        if (!ascii_literal) return binary_node(ir::Op::CharInText, kBool, e.span, std::move(l), std::move(r));
        auto n = node(ir::Expr::Kind::Binary, kBool, e.span);
        n->op = ir::Op::CharInAsciiSet;
        for (char ch : set.text_value) {
          auto c = static_cast<unsigned>(static_cast<unsigned char>(ch));
          if (c < 64) n->ascii_lo |= std::uint64_t{1} << c;
          else n->ascii_hi |= std::uint64_t{1} << (c - 64);
        }
        n->args.push_back(std::move(l.e));
        n->args.push_back(std::move(r.e));
        return ok(std::move(n));
      }
      default: break;
    }
    return bad();
  }

  ir::ExprPtr condition_operand(const Expr& e, BinaryOp op) {
    Checked c = check_expr(e);
    if (c.bad || !require_value(c, e.span, describe_expr(e))) return nullptr;
    if (c.type() != kBool) {
      diags_.error(e.span, std::string("'") + ast::op_text(op) + "' needs bool operands, not " + quoted(c.type()));
      return nullptr;
    }
    return std::move(c.e);
  }

  // Checks arguments as values (not null, not void); false if any failed.
  bool check_args(const Expr& e, std::vector<Checked>& out, bool allow_nullable = false) {
    bool all_ok = true;
    for (const auto& a : e.args) {
      Checked c = check_expr(*a);
      if (c.bad) {
        all_ok = false;
      } else if (allow_nullable && c.type().base != Base::Void && c.type().base != Base::Null) {
        // ok
      } else if (!require_value(c, a->span, describe_expr(*a))) {
        all_ok = false;
      }
      out.push_back(std::move(c));
    }
    return all_ok;
  }

  Checked check_call(const Expr& e) {
    auto found = functions_.find(e.text);
    if (found == functions_.end()) {
      if (is_builtin_name(e.text)) return check_builtin(e);
      const std::vector<std::string>& unparsed = ast_->unparsed_functions;
      if (std::find(unparsed.begin(), unparsed.end(), e.text) != unparsed.end()) {
        // Its header had a syntax error, reported already.
        for (const auto& a : e.args) check_expr(*a);
        return bad();
      }
      int slot = lookup(e.text);
      diags_.error(e.name_span, slot >= 0 ? "'" + e.text + "' is a variable, not a function"
                                          : "unknown function '" + e.text + "'");
      for (const auto& a : e.args) check_expr(*a);
      return bad();
    }
    int index = found->second;
    const ast::Function& callee = ast_->functions[static_cast<std::size_t>(index)];
    const ir::Function& callee_ir = fn_ir(index);
    std::vector<Checked> args;
    bool all_ok = true;
    for (const auto& a : e.args) {
      Checked c = check_expr(*a);
      all_ok = all_ok && !c.bad;
      args.push_back(std::move(c));
    }
    if (args.size() != callee.params.size()) {
      Diagnostic& d = diags_.error(e.span, "'" + e.text + "' takes " + std::to_string(callee.params.size()) + " argument" +
                                               (callee.params.size() == 1 ? "" : "s") + ", but " +
                                               std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") + " given");
      d.notes.push_back({callee.name_span, "'" + e.text + "' is defined here"});
      return bad();
    }
    if (!all_ok) return bad();
    if (callee_ir.returns_rows) {
      diags_.error(e.span, "'" + e.text + "' returns rows; call it from SQL (SELECT * FROM " + e.text + "(...)), not from Keal");
      return bad();
    }
    auto n = node(ir::Expr::Kind::Call, callee_ir.ret, e.span);
    n->func = index;
    for (std::size_t i = 0; i < args.size(); ++i) {
      Type want = from_ast(callee.params[i].type);
      if (args[i].type().base == Base::Void) {
        diags_.error(e.args[i]->span, "this call returns no value");
        return bad();
      }
      if (!assignable(args[i].type(), want)) {
        std::string what = describe_expr(*e.args[i]);
        diags_.error(e.args[i]->span, "argument " + std::to_string(i + 1) + " of '" + e.text + "' ('" + callee.params[i].name +
                                          "') must be " + quoted(want) + ", not " + quoted(args[i].type()) +
                                          conversion_hint(args[i].type(), want));
        return bad();
      }
      n->args.push_back(coerce(std::move(args[i]), want));
    }
    if (std::find(fn_->callees.begin(), fn_->callees.end(), index) == fn_->callees.end()) fn_->callees.push_back(index);
    return ok(std::move(n));
  }

  const ir::Function& fn_ir(int index) const { return (*functions_ir_)[static_cast<std::size_t>(index)]; }

  Checked builtin_node(ir::Builtin b, Type type, Span span, std::vector<Checked>& args) {
    auto n = node(ir::Expr::Kind::Builtin, type, span);
    n->builtin = b;
    for (auto& a : args) n->args.push_back(std::move(a.e));
    return ok(std::move(n));
  }

  Checked check_builtin(const Expr& e) {
    const std::string& name = e.text;
    std::vector<Checked> args;
    if (name == "append") {
      // Its value may be null (for an array of T?): checked against the element type.
      for (const auto& a : e.args) {
        Checked c = check_expr(*a);
        if (c.bad) return bad();
        if (c.type().base == Base::Void) {
          diags_.error(a->span, "this call returns no value");
          return bad();
        }
        args.push_back(std::move(c));
      }
      return std::move(*check_array_builtin(e, args));
    }
    bool is_print = name == "print";
    if (!check_args(e, args, is_print)) return bad();
    std::vector<Type> types;
    for (const auto& a : args) types.push_back(a.type());
    auto mismatch = [&](const std::string& expected) {
      std::string got;
      for (std::size_t i = 0; i < types.size(); ++i) got += (i ? ", " : "") + ir::to_string(types[i]);
      diags_.error(e.span, "no form of '" + name + "' takes (" + got + "); it takes " + expected);
      return bad();
    };
    if (std::optional<Checked> c = check_array_builtin(e, args)) return std::move(*c);
    if (is_print) {
      for (std::size_t i = 0; i < types.size(); ++i) {
        if (types[i].base == Base::Array) {
          diags_.error(e.args[i]->span, "print takes scalar values, not " + quoted(types[i]) + "; print the elements in a loop");
          return bad();
        }
      }
      if (installs_functions()) {
        diags_.error(e.name_span, std::string("print is only available in native programs (--target native); use raise to report from ") +
                                      (options_.target == Target::Pg ? "PostgreSQL" : options_.target == Target::Sqlite ? "SQLite" : "MariaDB"));
        return bad();
      }
      return builtin_node(ir::Builtin::Print, kVoid, e.span, args);
    }
    std::string expected;
    std::optional<BuiltinForm> form = resolve_builtin(name, types, expected);
    if (!form) return mismatch(expected);
    return builtin_node(form->op, form->result, e.span, args);
  }

  Checked check_sql_call(const Expr& e) {
    std::vector<Checked> args;
    bool args_ok = check_args(e, args);
    if (options_.target == Target::Native) {
      diags_.error(e.span, "sql." + e.text + "(...) calls a PostgreSQL function; it is only available with --target pg");
      return bad();
    }
    if (foreign_host()) {
      diags_.error(e.span, "sql." + e.text + "(...) calls a PostgreSQL function; --target " + target_name() +
                               " has no server functions to call (only --target pg does)");
      return bad();
    }
    if (!args_ok) return bad();
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i].type().base == Base::Array) {
        diags_.error(e.args[i]->span, "a server function takes scalar arguments, not " + quoted(args[i].type()));
        return bad();
      }
    }
    if (e.sql_result && e.sql_result->array) {
      diags_.error(e.sql_result->span, "a server function's result is a scalar type here, not an array");
      return bad();
    }
    if (args.size() > kMaxSqlArgs) {
      diags_.error(e.span, "a server function call takes at most " + std::to_string(kMaxSqlArgs) + " arguments");
      return bad();
    }
    const KnownSqlFunction* known = known_sql_function(e.text);
    Type result;
    if (e.sql_result) {
      result = from_ast(*e.sql_result);
    } else if (known != nullptr) {
      result = known->result;
    } else {
      diags_.error(e.name_span, "the result type of server function '" + e.text + "' is not known; write it: sql." + e.text +
                                    "(...) as text");
      return bad();
    }
    ir::SqlSite site;
    site.name = e.text;
    site.result = result;
    site.immutable = known != nullptr && known->immutable && !e.sql_result;
    for (const Checked& a : args) site.arg_types.push_back(a.type());
    site.signature = sql_signature(e.text, site.arg_types);
    if (!site.immutable) fn_->calls_volatile_sql = true;
    int index = intern_sql_site(sql_sites_, std::move(site));
    auto n = node(ir::Expr::Kind::Sql, result, e.span);
    n->sql_site = index;
    for (auto& a : args) n->args.push_back(std::move(a.e));
    return ok(std::move(n));
  }

  // row.name
  Checked check_field(const Expr& e) {
    reading_field_ = true;
    Checked row = check_expr(*e.args[0]);
    reading_field_ = false;
    if (row.bad) return bad();
    if (row.type().base != Base::Record) {
      diags_.error(e.name_span, "only a query's row has fields ('." + e.text + "' on a value of type " + quoted(row.type()) + ")" +
                                    (is_builtin_name(e.text) ? "; did you mean " + e.text + "(" + describe_expr(*e.args[0]) + ")?" : ""));
      return bad();
    }
    const ir::Record& record = *row.type().record;
    int index = record.field_index(e.text);
    if (index < 0) {
      std::string names;
      for (const ir::Field& f : record.fields) names += (names.empty() ? "" : ", ") + f.name;
      if (row.e->kind == ir::Expr::Kind::Local && fn_->locals[static_cast<std::size_t>(row.e->local)].is_state) {
        diags_.error(e.name_span, "the state has no field '" + e.text + "'; its fields are " + names);
        return bad();
      }
      diags_.error(e.name_span, "the row has no column '" + e.text + "'; its columns are " + names);
      return bad();
    }
    auto n = node(ir::Expr::Kind::Field, record.fields[static_cast<std::size_t>(index)].type, e.span);
    n->field = index;
    n->args.push_back(std::move(row.e));
    return ok(std::move(n));
  }

  // query [one] "sql" (args) as ... / exec "sql" (args): parameters bound,
  // their number matching the placeholders; the declared row type.
  // `declared` (when given) receives the declared row type even when the
  // statement has errors, so that a loop body is checked against it.
  Checked check_embedded_sql(const Expr& e, Type* declared = nullptr) {
    const bool is_exec = e.kind == Expr::Kind::Exec;
    std::vector<Checked> args;
    bool all_ok = true;
    for (const auto& a : e.args) {
      Checked c = check_expr(*a);
      if (c.bad) {
        all_ok = false;
      } else if (c.type().base == Base::Void) {
        diags_.error(a->span, "this call returns no value");
        all_ok = false;
      } else if (c.type().base == Base::Null) {
        diags_.error(a->span, "a bare null has no type; bind a typed value (a 'T?' variable) instead");
        all_ok = false;
      } else if (c.type().base == Base::Array) {
        diags_.error(a->span, "embedded SQL binds scalar values, not " + quoted(c.type()));
        all_ok = false;
      }
      args.push_back(std::move(c));
    }
    Type value = kVoid;
    std::vector<ir::Field> columns;
    bool columns_ok = true;
    if (!is_exec) {
      for (const auto& f : e.row) {
        if (f.type.array) {
          diags_.error(f.type.span, "a query's columns are scalar types, not arrays");
          columns_ok = false;
        }
      }
      if (e.row.empty() && e.sql_result->array) {
        diags_.error(e.sql_result->span, "a query's columns are scalar types, not arrays");
        columns_ok = false;
      }
      if (e.row.empty()) {
        columns.push_back({"", from_ast(*e.sql_result)});
        value = columns[0].type;
      } else {
        for (const auto& f : e.row) {
          bool twice = false;
          for (const ir::Field& earlier : columns) twice = twice || earlier.name == f.name;
          if (twice) {
            diags_.error(f.span, "column '" + f.name + "' is declared twice");
            columns_ok = false;
            continue;
          }
          columns.push_back({f.name, from_ast(f.type)});
        }
        value = ir::record_type(columns);
      }
    }
    if (declared != nullptr) *declared = value;
    if (!columns_ok) return bad();
    if (foreign_host()) {
      const std::string what = is_exec ? "exec" : e.query_one ? "query one" : "query";
      diags_.error(e.span, what +
                               " is embedded SQL, which runs in PostgreSQL functions (--target pg) and PostgreSQL "
                               "clients (--target native) only; --target " +
                               target_name() + " compiles the rest of the language (no queries)");
      return bad();
    }
    const SqlTextFacts facts = scan_sql_text(e.text);
    if (!facts.error.empty()) {
      diags_.error(e.name_span, facts.error);
      return bad();
    }
    if (static_cast<std::size_t>(facts.highest_placeholder) != args.size()) {
      std::string uses = facts.highest_placeholder == 0 ? std::string("has no placeholders")
                         : facts.highest_placeholder == 1 ? std::string("uses $1")
                                                          : "uses $1.." + std::string("$") + std::to_string(facts.highest_placeholder);
      diags_.error(e.name_span, "the statement " + uses + " but " + std::to_string(args.size()) +
                                    (args.size() == 1 ? " argument was" : " arguments were") + " given");
      return bad();
    }
    ir::QuerySite site;
    site.form = is_exec ? ir::QuerySite::Form::Exec : e.query_one ? ir::QuerySite::Form::One : ir::QuerySite::Form::Rows;
    site.sql = e.text;
    site.line = line(e.span);
    site.sql_begin = e.name_span.begin;
    site.sql_end = e.name_span.end;
    site.may_write = is_exec || facts.may_write;
    site.single_value = !is_exec && e.row.empty();
    site.columns = std::move(columns);
    if (!all_ok) return bad();
    for (const Checked& a : args) site.params.push_back(a.type());
    if (site.may_write) fn_->writes_database = true;
    else fn_->reads_database = true;
    query_sites_.push_back(std::move(site));
    auto n = node(is_exec ? ir::Expr::Kind::Exec : ir::Expr::Kind::Query, value, e.span);
    n->query = static_cast<int>(query_sites_.size() - 1);
    for (auto& a : args) n->args.push_back(std::move(a.e));
    return ok(std::move(n));
  }

  Checked check_convert(const Expr& e) {
    std::vector<Checked> args;
    if (!check_args(e, args)) return bad();
    if (args.size() != 1) {
      diags_.error(e.span, e.text + "(..) takes exactly one argument");
      return bad();
    }
    Type from = args[0].type();
    Type to = from_ast({e.convert_to, false, false, {}});
    if (from == to) return std::move(args[0]);
    if (std::optional<ir::Conv> conv = resolve_conversion(from.base, to.base)) {
      auto n = node(ir::Expr::Kind::Convert, to, e.span);
      n->conv = *conv;
      n->args.push_back(std::move(args[0].e));
      return ok(std::move(n));
    }
    diags_.error(e.span, "there is no conversion from " + quoted(from) + " to " + quoted(to));
    return bad();
  }

  // Arrays (the rules in check/array_rules.*) ------------------------------

  // [e1, e2, ...]: elements of one scalar type; `[]` gets its element type
  // from where it goes (coerce).
  Checked check_array_literal(const Expr& e) {
    std::vector<Checked> elements;
    bool all_ok = true;
    for (const auto& a : e.args) {
      Checked c = check_expr(*a);
      if (c.bad) {
        all_ok = false;
      } else if (c.type().base == Base::Void) {
        diags_.error(a->span, "this call returns no value");
        all_ok = false;
      }
      elements.push_back(std::move(c));
    }
    if (!all_ok) return bad();
    std::vector<Type> types;
    for (const Checked& c : elements) types.push_back(c.type());
    LiteralElements rule = literal_elements(types);
    if (!rule.error.empty()) {
      diags_.error(e.args[rule.at]->span, rule.error);
      // Still an array (of the first element's type, as far as known), so
      // that its uses are not reported again; nothing is emitted after an error.
      Type first = rule.elem.base == Base::Null || rule.elem.base == Base::Array ? kInt : rule.elem;
      return ok(node(ir::Expr::Kind::ArrayLit, ir::array_type(first), e.span));
    }
    auto n = node(ir::Expr::Kind::ArrayLit, ir::array_type(rule.elem), e.span);
    for (Checked& c : elements) n->args.push_back(coerce(std::move(c), rule.elem));
    return ok(std::move(n));
  }

  // xs[i]: 0-based, checked at run time (2202E).
  Checked check_index(const Expr& e) {
    Checked array = check_expr(*e.args[0]);
    Checked at = check_expr(*e.args[1]);
    if (array.bad || at.bad) return bad();
    if (!require_value(array, e.args[0]->span, describe_expr(*e.args[0]))) return bad();
    if (array.type().base != Base::Array) {
      diags_.error(e.args[0]->span, "only arrays can be indexed; '" + describe_expr(*e.args[0]) + "' has type " +
                                        quoted(array.type()) +
                                        (array.type() == kText ? " (substr(s, i, 1) takes a character of a text)" : ""));
      return bad();
    }
    if (is_empty_literal_type(array.type())) {
      diags_.error(e.args[0]->span, "'[]' has no elements to index");
      return bad();
    }
    if (!require_value(at, e.args[1]->span, describe_expr(*e.args[1]))) return bad();
    if (at.type() != kInt) {
      diags_.error(e.args[1]->span, "an array index must be int, not " + quoted(at.type()) + conversion_hint(at.type(), kInt));
      return bad();
    }
    auto n = node(ir::Expr::Kind::Index, ir::elem_type(array.type()), e.span);
    n->args.push_back(std::move(array.e));
    n->args.push_back(std::move(at.e));
    return ok(std::move(n));
  }

  // len(xs) and append(xs, v); nullopt when `e` is another built-in's call.
  std::optional<Checked> check_array_builtin(const Expr& e, std::vector<Checked>& args) {
    if (e.text == "len" && args.size() == 1 && args[0].type().base == Base::Array) {
      return builtin_node(ir::Builtin::LenArray, kInt, e.span, args);
    }
    if (e.text != "append") return std::nullopt;
    if (args.size() != 2 || args[0].type().base != Base::Array) {
      std::string got;
      for (std::size_t i = 0; i < args.size(); ++i) got += (i ? ", " : "") + ir::to_string(args[i].type());
      diags_.error(e.span, "no form of 'append' takes (" + got + "); it takes ([T], T): an array and a value for its end");
      return bad();
    }
    Type elem = ir::elem_type(args[0].type());
    if (elem.base == Base::Null) {
      // append([], v): the array's element type is v's.
      if (args[1].type().base == Base::Null || args[1].type().base == Base::Array) {
        diags_.error(e.args[1]->span, "cannot infer an element type from '[]' and this value; give the array a type");
        return bad();
      }
      elem = args[1].type();
    }
    if (args[1].type().base == Base::Array) {
      diags_.error(e.args[1]->span, "arrays of arrays are not supported; append takes an element, not " + quoted(args[1].type()));
      return bad();
    }
    if (!assignable(args[1].type(), elem)) {
      diags_.error(e.args[1]->span, "cannot append a value of type " + quoted(args[1].type()) + " to an array of " +
                                        quoted(elem) + conversion_hint(args[1].type(), elem));
      return bad();
    }
    Type result = ir::array_type(elem);
    auto n = node(ir::Expr::Kind::Builtin, result, e.span);
    n->builtin = ir::Builtin::Append;
    n->args.push_back(coerce(std::move(args[0]), result));
    n->args.push_back(coerce(std::move(args[1]), elem));
    return Checked(ok(std::move(n)));
  }

 public:
  void set_function_irs(const std::vector<ir::Function>* fns) { functions_ir_ = fns; }

 private:
  const SourceFile& source_;
  Diagnostics& diags_;
  Options options_;
  const ast::Module* ast_ = nullptr;
  const std::vector<ir::Function>* functions_ir_ = nullptr;
  std::map<std::string, int> functions_;
  std::vector<bool> fn_index_valid_;
  std::vector<ir::SqlSite> sql_sites_;
  std::vector<ir::QuerySite> query_sites_;

  ir::Function* fn_ = nullptr;
  std::set<std::string> c_names_;
  std::vector<std::map<std::string, int>> scopes_;
  Narrowing narrowing_;
  std::vector<LocalInfo> infos_;
  int loop_depth_ = 0;
  int query_loop_depth_ = 0;  // query loops around the statement being checked (yield may not be inside one)
  std::map<std::string, Span> aggregate_names_;
  bool reading_field_ = false;  // a row may be read only as the operand of a field read
  std::vector<bool> loop_has_break_;
};

}  // namespace

ir::Module check(const ast::Module& module, const SourceFile& source, Diagnostics& diags, Options options) {
  Checker checker(source, diags, options);
  return checker.run(module);
}

}  // namespace keal::check
