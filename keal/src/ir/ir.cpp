#include "ir/ir.hpp"

#include <cstdio>

namespace keal::ir {

std::string to_string(Base base) {
  switch (base) {
    case Base::Void: return "nothing";
    case Base::Int: return "int";
    case Base::Float: return "float";
    case Base::Bool: return "bool";
    case Base::Text: return "text";
    case Base::Char: return "char";
    case Base::Bytes: return "bytes";
    case Base::Null: return "null";
    case Base::Record: return "record";
    case Base::Array: return "array";
  }
  return "?";
}

bool operator==(const Type& a, const Type& b) {
  if (a.base != b.base || a.nullable != b.nullable) return false;
  if (a.base == Base::Array) return a.elem && b.elem && *a.elem == *b.elem;
  if (a.base != Base::Record) return true;
  if (a.record == b.record) return true;
  return a.record && b.record && *a.record == *b.record;
}

int Record::field_index(const std::string& name) const {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

Type record_type(std::vector<Field> fields) {
  Type t{Base::Record, false};
  t.record = std::make_shared<const Record>(Record{std::move(fields)});
  return t;
}

std::string to_string(const Type& type) {
  std::string s;
  if (type.base == Base::Record && type.record) {
    s = "(";
    for (std::size_t i = 0; i < type.record->fields.size(); ++i) {
      const Field& f = type.record->fields[i];
      s += (i ? ", " : "") + f.name + ": " + to_string(f.type);
    }
    s += ")";
  } else if (type.base == Base::Array && type.elem) {
    s = type.elem->base == Base::Null ? std::string("[]") : "[" + to_string(*type.elem) + "]";
  } else {
    s = to_string(type.base);
  }
  if (type.nullable && type.base != Base::Null) s += '?';
  return s;
}

std::string sql_type(const Type& type) {
  switch (type.base) {
    case Base::Int: return "bigint";
    case Base::Float: return "double precision";
    case Base::Bool: return "boolean";
    case Base::Text:
    case Base::Char: return "text";
    case Base::Bytes: return "bytea";
    case Base::Void: return "void";
    case Base::Null: return "unknown";
    case Base::Record: return "record";
    case Base::Array: return type.elem ? sql_type(*type.elem) + "[]" : "unknown";
  }
  return "unknown";
}

const char* op_name(Op op) {
  switch (op) {
    case Op::Add: return "add";
    case Op::Sub: return "sub";
    case Op::Mul: return "mul";
    case Op::Div: return "div";
    case Op::Mod: return "mod";
    case Op::Neg: return "neg";
    case Op::Not: return "not";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Eq: return "eq";
    case Op::Ne: return "ne";
    case Op::Lt: return "lt";
    case Op::Le: return "le";
    case Op::Gt: return "gt";
    case Op::Ge: return "ge";
    case Op::Concat: return "concat";
    case Op::CharInText: return "char_in_text";
    case Op::CharInAsciiSet: return "char_in_ascii_set";
    case Op::TextInText: return "text_in_text";
    case Op::IsNull: return "is_null";
    case Op::IsNotNull: return "is_not_null";
    case Op::Coalesce: return "coalesce";
  }
  return "?";
}

const char* builtin_name(Builtin b) {
  switch (b) {
    case Builtin::LenText: return "len_text";
    case Builtin::LenBytes: return "len_bytes";
    case Builtin::Upper: return "upper";
    case Builtin::Lower: return "lower";
    case Builtin::Substr: return "substr";
    case Builtin::Find: return "find";
    case Builtin::Replace: return "replace";
    case Builtin::Trim: return "trim";
    case Builtin::StartsWith: return "starts_with";
    case Builtin::EndsWith: return "ends_with";
    case Builtin::AbsInt: return "abs_int";
    case Builtin::AbsFloat: return "abs_float";
    case Builtin::MinInt: return "min_int";
    case Builtin::MaxInt: return "max_int";
    case Builtin::MinFloat: return "min_float";
    case Builtin::MaxFloat: return "max_float";
    case Builtin::Sqrt: return "sqrt";
    case Builtin::Floor: return "floor";
    case Builtin::Ceil: return "ceil";
    case Builtin::Print: return "print";
    case Builtin::LenArray: return "len_array";
    case Builtin::Append: return "append";
  }
  return "?";
}

const char* conv_name(Conv c) {
  switch (c) {
    case Conv::IntToFloat: return "int_to_float";
    case Conv::FloatToInt: return "float_to_int";
    case Conv::CharToInt: return "char_to_int";
    case Conv::IntToChar: return "int_to_char";
    case Conv::TextToInt: return "text_to_int";
    case Conv::TextToFloat: return "text_to_float";
    case Conv::IntToText: return "int_to_text";
    case Conv::FloatToText: return "float_to_text";
    case Conv::BoolToText: return "bool_to_text";
    case Conv::CharToText: return "char_to_text";
    case Conv::BytesToText: return "bytes_to_text";
    case Conv::TextToBytes: return "text_to_bytes";
  }
  return "?";
}

void analyze(Module& module) {
  // Volatility is a fixpoint over the call graph. A function that reaches a
  // volatile server function or a write (exec, or a query that may write),
  // directly or through callees, is VOLATILE (`writes`); one that reaches
  // only reads is STABLE; one that reaches neither stays pure (IMMUTABLE).
  // `uses_spi`: embedded SQL reached, so its entry point connects to SPI.
  for (Function& f : module.functions) {
    f.writes = f.calls_volatile_sql || f.writes_database;
    f.uses_spi = f.reads_database || f.writes_database;
    f.pure = !f.writes && !f.uses_spi;
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (Function& f : module.functions) {
      for (int callee : f.callees) {
        const Function& c = module.functions[static_cast<std::size_t>(callee)];
        if (c.writes && !f.writes) f.writes = changed = true;
        if (c.uses_spi && !f.uses_spi) f.uses_spi = changed = true;
        if (!c.pure && f.pure) {
          f.pure = false;
          changed = true;
        }
      }
    }
  }
  // A function is recursive when it can reach itself: such functions check
  // the stack depth (and for interrupts) on entry, as loops do per iteration.
  std::size_t n = module.functions.size();
  for (std::size_t start = 0; start < n; ++start) {
    std::vector<bool> seen(n, false);
    std::vector<int> work(module.functions[start].callees.begin(), module.functions[start].callees.end());
    while (!work.empty()) {
      auto next = static_cast<std::size_t>(work.back());
      work.pop_back();
      if (next == start) {
        module.functions[start].recursive = true;
        break;
      }
      if (seen[next]) continue;
      seen[next] = true;
      for (int c : module.functions[next].callees) work.push_back(c);
    }
  }
  for (Aggregate& a : module.aggregates) {
    a.pure = true;
    for (int part : {a.init, a.step, a.combine, a.inverse, a.final_fn}) {
      if (part >= 0 && !module.functions[static_cast<std::size_t>(part)].pure) a.pure = false;
    }
  }
}

const char* part_name(AggregatePart part) {
  switch (part) {
    case AggregatePart::Init: return "init";
    case AggregatePart::Step: return "step";
    case AggregatePart::Combine: return "combine";
    case AggregatePart::Inverse: return "inverse";
    case AggregatePart::Final: return "final";
  }
  return "?";
}

namespace {

class Dumper {
 public:
  explicit Dumper(const Module& m) : m_(m) {}

  std::string run() {
    for (const Function& f : m_.functions) function(f);
    for (std::size_t i = 0; i < m_.sql_sites.size(); ++i) {
      const SqlSite& s = m_.sql_sites[i];
      out_ += "sql#" + std::to_string(i) + " " + s.signature + " -> " + to_string(s.result) +
              (s.immutable ? " immutable" : "") + "\n";
    }
    for (std::size_t i = 0; i < m_.query_sites.size(); ++i) {
      const QuerySite& q = m_.query_sites[i];
      static const char* const forms[] = {"rows", "one", "exec"};
      out_ += "query#" + std::to_string(i) + " " + forms[static_cast<int>(q.form)] + " line " + std::to_string(q.line) + " \"" +
              q.sql + "\" (";
      for (std::size_t p = 0; p < q.params.size(); ++p) out_ += (p ? ", " : "") + to_string(q.params[p]);
      out_ += ")";
      if (q.form != QuerySite::Form::Exec) {
        out_ += " as ";
        if (q.single_value) {
          out_ += to_string(q.columns[0].type);
        } else {
          out_ += "(";
          for (std::size_t c = 0; c < q.columns.size(); ++c)
            out_ += (c ? ", " : "") + q.columns[c].name + ": " + to_string(q.columns[c].type);
          out_ += ")";
        }
      }
      out_ += q.may_write ? " writes\n" : "\n";
    }
    return out_;
  }

 private:
  void function(const Function& f) {
    fn_ = &f;
    out_ += std::string(f.exported ? "export " : "") + "fn " + f.name + "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const Local& l = f.locals[static_cast<std::size_t>(f.params[i])];
      out_ += (i ? ", " : "") + l.c_name + ": " + to_string(l.type);
    }
    out_ += ") -> " + to_string(f.ret) + (f.pure ? " pure" : "") + (!f.pure && !f.writes ? " stable" : "") +
            (f.recursive ? " recursive" : "") + "\n";
    block(f.body, 1);
  }

  void indent(int depth) { out_.append(static_cast<std::size_t>(depth) * 2, ' '); }

  void block(const Block& b, int depth) {
    for (const auto& s : b) stmt(*s, depth);
  }

  const std::string& local(int slot) const { return fn_->locals[static_cast<std::size_t>(slot)].c_name; }

  void stmt(const Stmt& s, int depth) {
    indent(depth);
    switch (s.kind) {
      case Stmt::Kind::Declare:
        out_ += "declare " + local(s.local) + ": " + to_string(fn_->locals[static_cast<std::size_t>(s.local)].type) + " = " +
                expr(*s.a) + "\n";
        return;
      case Stmt::Kind::Assign: out_ += "assign " + local(s.local) + " = " + expr(*s.a) + "\n"; return;
      case Stmt::Kind::If:
        out_ += "if " + expr(*s.a) + "\n";
        block(s.body, depth + 1);
        if (!s.else_body.empty()) {
          indent(depth);
          out_ += "else\n";
          block(s.else_body, depth + 1);
        }
        return;
      case Stmt::Kind::While:
        out_ += "while " + expr(*s.a) + "\n";
        block(s.body, depth + 1);
        return;
      case Stmt::Kind::ForRange:
        out_ += "for " + local(s.local) + " in " + expr(*s.a) + (s.inclusive ? " ..= " : " .. ") + expr(*s.b) + "\n";
        block(s.body, depth + 1);
        return;
      case Stmt::Kind::ForChars:
        out_ += "for " + local(s.local) + " in chars " + expr(*s.a) + "\n";
        block(s.body, depth + 1);
        return;
      case Stmt::Kind::ForQuery:
        out_ += "for " + local(s.local) + " in rows " + expr(*s.a) + "\n";
        block(s.body, depth + 1);
        return;
      case Stmt::Kind::ForArray:
        out_ += "for " + local(s.local) + " in elements " + expr(*s.a) + "\n";
        block(s.body, depth + 1);
        return;
      case Stmt::Kind::Break: out_ += "break\n"; return;
      case Stmt::Kind::Continue: out_ += "continue\n"; return;
      case Stmt::Kind::Return: out_ += s.a ? "return " + expr(*s.a) + "\n" : "return\n"; return;
      case Stmt::Kind::Raise: out_ += "raise " + s.code + " " + expr(*s.a) + "\n"; return;
      case Stmt::Kind::Eval: out_ += "eval " + expr(*s.a) + "\n"; return;
      case Stmt::Kind::Yield: {
        out_ += "yield";
        for (std::size_t i = 0; i < s.values.size(); ++i) out_ += (i ? ", " : " ") + expr(*s.values[i]);
        out_ += "\n";
        return;
      }
    }
  }

  std::string args(const Expr& e) const {
    std::string s;
    for (std::size_t i = 0; i < e.args.size(); ++i) s += (i ? " " : "") + expr(*e.args[i]);
    return s;
  }

  std::string expr(const Expr& e) const {
    std::string t = ":" + to_string(e.type);
    switch (e.kind) {
      case Expr::Kind::Int: return std::to_string(e.int_value);
      case Expr::Kind::Float: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", e.float_value);
        return buf;
      }
      case Expr::Kind::Bool: return e.bool_value ? "true" : "false";
      case Expr::Kind::Text: return "\"" + e.text_value + "\"";
      case Expr::Kind::Char: return "'U+" + std::to_string(e.char_value) + "'";
      case Expr::Kind::Null: return "null" + t;
      case Expr::Kind::Local: return local(e.local);
      case Expr::Kind::Unwrap: return "(unwrap " + args(e) + ")";
      case Expr::Kind::Wrap: return "(wrap " + args(e) + ")";
      case Expr::Kind::Unary:
      case Expr::Kind::Binary: return std::string("(") + op_name(e.op) + t + " " + args(e) + ")";
      case Expr::Kind::Call:
        return "(call " + m_.functions[static_cast<std::size_t>(e.func)].name + t + (e.args.empty() ? "" : " ") + args(e) + ")";
      case Expr::Kind::Builtin: return std::string("(") + builtin_name(e.builtin) + t + (e.args.empty() ? "" : " ") + args(e) + ")";
      case Expr::Kind::Sql: return "(sql#" + std::to_string(e.sql_site) + t + " " + args(e) + ")";
      case Expr::Kind::Convert: return std::string("(") + conv_name(e.conv) + " " + args(e) + ")";
      case Expr::Kind::Query: return "(query#" + std::to_string(e.query) + t + (e.args.empty() ? "" : " ") + args(e) + ")";
      case Expr::Kind::Exec: return "(exec#" + std::to_string(e.query) + (e.args.empty() ? "" : " ") + args(e) + ")";
      case Expr::Kind::Field: {
        const std::string& name = e.args[0]->type.record->fields[static_cast<std::size_t>(e.field)].name;
        return "(field " + name + t + " " + args(e) + ")";
      }
      case Expr::Kind::ArrayLit: return "(array" + t + (e.args.empty() ? "" : " ") + args(e) + ")";
      case Expr::Kind::Index: return "(index" + t + " " + args(e) + ")";
    }
    return "?";
  }

  const Module& m_;
  const Function* fn_ = nullptr;
  std::string out_;
};

}  // namespace

std::string dump(const Module& module) { return Dumper(module).run(); }

}  // namespace keal::ir
