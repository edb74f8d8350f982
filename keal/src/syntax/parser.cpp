#include "syntax/parser.hpp"

#include <algorithm>

#include "syntax/lexer.hpp"

namespace keal {

namespace ast {
const char* op_text(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::In: return "in";
    case BinaryOp::And: return "and";
    case BinaryOp::Or: return "or";
    case BinaryOp::Coalesce: return "??";
  }
  return "?";
}
}  // namespace ast

namespace {

using namespace ast;

// Thrown after a diagnostic has been reported; caught where parsing resumes.
struct ParseAbort {};

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, Diagnostics& diags) : toks_(tokens), diags_(diags) {}

  // Recovers per function: a function with a syntax error in its body is
  // kept (marked) so that the checker still sees its signature and checks
  // the other functions; one whose header failed is dropped, its name kept.
  Module run() {
    Module module;
    while (!at(Tok::Eof)) {
      const std::size_t start = pos_;
      const std::size_t errors_before = diags_.error_count();
      function_name_.clear();
      try {
        if (at(Tok::KwExport) && ahead(1).kind == Tok::Ident && ahead(1).text == "agg") {
          Aggregate agg = aggregate();
          agg.syntax_errors = diags_.error_count() != errors_before || has_error_token(start, pos_);
          module.aggregates.push_back(std::move(agg));
          continue;
        }
        Function fn = function();
        fn.syntax_errors = diags_.error_count() != errors_before || has_error_token(start, pos_);
        module.functions.push_back(std::move(fn));
      } catch (const ParseAbort&) {
        if (!function_name_.empty()) module.unparsed_functions.push_back(function_name_);
        skip_to_item();
      }
    }
    return module;
  }

 private:
  const Token& cur() const { return toks_[pos_]; }
  const Token& ahead(std::size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool at(Tok kind) const { return cur().kind == kind; }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok kind) {
    if (!at(kind)) return false;
    advance();
    return true;
  }
  [[noreturn]] void fail(Span span, std::string message) {
    // The lexer has already reported a bad token; a second message about the
    // same place would be noise.
    if (!(at(Tok::Error) && span.begin == cur().span.begin)) diags_.error(span, std::move(message));
    throw ParseAbort{};
  }
  [[noreturn]] void fail_expected(const char* what) {
    fail(cur().span, std::string("expected ") + what + ", found " + describe(cur()));
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::Ident) return "identifier '" + t.text + "'";
    return tok_name(t.kind);
  }
  const Token& expect(Tok kind, const char* what) {
    if (!at(kind)) fail_expected(what);
    return advance();
  }
  // The lexer reports bad tokens itself (a bad literal, an unknown
  // character); the parser then stops at them without a second message.
  bool has_error_token(std::size_t begin, std::size_t end) const {
    return std::any_of(toks_.begin() + static_cast<std::ptrdiff_t>(begin), toks_.begin() + static_cast<std::ptrdiff_t>(end),
                       [](const Token& t) { return t.kind == Tok::Error; });
  }
  Span prev_span() const { return toks_[pos_ == 0 ? 0 : pos_ - 1].span; }
  static Span join(Span a, Span b) { return {a.begin, std::max(a.end, b.end)}; }

  // Error recovery --------------------------------------------------------

  void skip_to_item() {
    while (!at(Tok::Eof)) {
      if (cur().line_start && (at(Tok::KwFn) || at(Tok::KwExport))) return;
      advance();
    }
  }

  // Skips the rest of a broken statement: up to a line start (outside nested
  // braces) or the '}' that closes the current block.
  void skip_statement(std::size_t start) {
    int depth = 0;
    while (!at(Tok::Eof)) {
      if (depth == 0 && pos_ > start && cur().line_start) return;
      if (at(Tok::LBrace)) ++depth;
      if (at(Tok::RBrace)) {
        if (depth == 0) return;
        --depth;
      }
      if (depth == 0 && at(Tok::Semicolon)) {
        advance();
        return;
      }
      if (depth == 0 && cur().line_start && (at(Tok::KwFn) || at(Tok::KwExport))) return;
      advance();
    }
  }

  // Items -----------------------------------------------------------------

  // `name: T, ...` up to (not including) the closing ')': a function's or
  // an aggregate's parameters, a rows function's columns.
  std::vector<Param> typed_names(const char* name_what, const char* colon_what) {
    std::vector<Param> out;
    while (!at(Tok::RParen)) {
      Param p;
      const Token& name = expect(Tok::Ident, name_what);
      p.name = name.text;
      p.span = name.span;
      expect(Tok::Colon, colon_what);
      p.type = type();
      out.push_back(std::move(p));
      if (!accept(Tok::Comma)) break;
    }
    return out;
  }

  Function function() {
    Function fn;
    const Token& first = cur();
    fn.doc = first.doc;
    if (accept(Tok::KwExport)) fn.exported = true;
    if (!at(Tok::KwFn)) fail_expected(fn.exported ? "'fn' after 'export'" : "'fn' or 'export fn'");
    advance();
    const Token& name = expect(Tok::Ident, "function name");
    function_name_ = name.text;
    fn.name = name.text;
    fn.name_span = name.span;
    expect(Tok::LParen, "'(' after the function name");
    fn.params = typed_names("parameter name", "':' and the parameter type");
    expect(Tok::RParen, "')' after the parameters");
    if (accept(Tok::Arrow)) {
      // `rows(` is a word only after `->`: a set-returning function's columns.
      if (at(Tok::Ident) && cur().text == "rows" && ahead(1).kind == Tok::LParen) {
        fn.returns_rows = true;
        fn.rows_span = advance().span;
        advance();  // (
        fn.rows = typed_names("a column name", "':' and the column type");
        fn.rows_span = join(fn.rows_span, expect(Tok::RParen, "')' after the columns").span);
      } else {
        fn.ret = type();
      }
    }
    if (!at(Tok::LBrace)) fail_expected("'{' to start the function body");
    fn.body = block(0);
    fn.span = join(first.span, fn.body.span);
    return fn;
  }

  // `export agg name(params) -> R { ... }`: `agg` is a word only after
  // `export`, and the words inside (state, step, combine, inverse, final)
  // only at the start of an item of the aggregate's body, so none of them
  // is taken from programs that use them as names.
  Aggregate aggregate() {
    Aggregate agg;
    const Token& first = cur();
    agg.doc = first.doc;
    advance();  // export
    advance();  // agg
    const Token& name = expect(Tok::Ident, "aggregate name");
    function_name_ = name.text;
    agg.name = name.text;
    agg.name_span = name.span;
    expect(Tok::LParen, "'(' after the aggregate name");
    agg.params = typed_names("parameter name", "':' and the parameter type");
    expect(Tok::RParen, "')' after the parameters");
    if (accept(Tok::Arrow)) agg.ret = type();
    if (!at(Tok::LBrace)) fail_expected("'{' to start the aggregate's body");
    Span open = advance().span;
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      if (accept(Tok::Semicolon)) continue;
      const Token& word = cur();
      if (word.kind == Tok::Ident && word.text == "state") {
        advance();
        Aggregate::StateField field;
        const Token& fname = expect(Tok::Ident, "state field name");
        field.name = fname.text;
        field.span = fname.span;
        expect(Tok::Colon, "':' and the state field's type");
        field.type = type();
        expect(Tok::Assign, "'=' and the state field's initial value");
        field.init = expression();
        agg.state.push_back(std::move(field));
        continue;
      }
      Aggregate::Part* part = nullptr;
      if (word.kind == Tok::Ident) {
        if (word.text == "step") part = &agg.step;
        if (word.text == "combine") part = &agg.combine;
        if (word.text == "inverse") part = &agg.inverse;
        if (word.text == "final") part = &agg.final;
      }
      if (part == nullptr) fail_expected("'state', 'step', 'combine', 'inverse' or 'final' in the aggregate's body");
      if (part->present) {
        Diagnostic& d = diags_.error(word.span, "'" + word.text + "' is given twice in aggregate '" + agg.name + "'");
        d.notes.push_back({part->keyword, "first given here"});
      }
      advance();
      part->present = true;
      part->keyword = word.span;
      if (!at(Tok::LBrace)) fail_expected(("'{' to start the '" + word.text + "' block").c_str());
      part->body = block(1);
    }
    Span close = expect(Tok::RBrace, "'}' to end the aggregate's body").span;
    agg.span = join(first.span, join(open, close));
    return agg;
  }

  TypeRef type() {
    if (at(Tok::LBracket)) return array_type();
    TypeRef t;
    const Token& tok = cur();
    switch (tok.kind) {
      case Tok::KwInt: t.base = BaseType::Int; break;
      case Tok::KwFloat: t.base = BaseType::Float; break;
      case Tok::KwBool: t.base = BaseType::Bool; break;
      case Tok::KwText: t.base = BaseType::Text; break;
      case Tok::KwChar: t.base = BaseType::Char; break;
      case Tok::KwBytes: t.base = BaseType::Bytes; break;
      default:
        if (tok.kind == Tok::Ident) fail(tok.span, "unknown type '" + tok.text + "'");
        fail_expected("a type (int, float, bool, text, char, bytes)");
    }
    advance();
    t.span = tok.span;
    if (at(Tok::Question)) {
      t.nullable = true;
      t.span = join(t.span, advance().span);
    }
    return t;
  }

  // `[T]`: T a scalar type, maybe nullable; the array itself never is.
  TypeRef array_type() {
    Span open = advance().span;
    // Checked before descending, so `[[[[...` cannot recurse deeply.
    if (at(Tok::LBracket)) fail(cur().span, "an array's elements are scalars (int, float, bool, text, char, bytes, maybe with '?'); arrays of arrays are not supported");
    TypeRef t = type();
    if (t.array) fail(t.span, "an array's elements are scalars (int, float, bool, text, char, bytes, maybe with '?'); arrays of arrays are not supported");
    Span close = expect(Tok::RBracket, "']' after the array's element type").span;
    t.array = true;
    t.span = join(open, close);
    if (at(Tok::Question)) {
      fail(join(t.span, cur().span), "an array type cannot be nullable; a NULL array passed from SQL gives NULL without a call, and an empty array is []");
    }
    return t;
  }

  // Statements --------------------------------------------------------------

  Block block(int nesting) {
    if (nesting > max_nesting) fail(cur().span, "blocks are nested too deeply");
    Block b;
    Span open = expect(Tok::LBrace, "'{'").span;
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      if (accept(Tok::Semicolon)) continue;
      std::size_t start = pos_;
      try {
        b.stmts.push_back(statement(nesting));
        // A statement ends at a line break, ';' or the closing brace.
        if (!at(Tok::RBrace) && !at(Tok::Eof) && !at(Tok::Semicolon) && !cur().line_start) {
          fail(cur().span, "expected a line break or ';' after the statement, found " + describe(cur()));
        }
      } catch (const ParseAbort&) {
        skip_statement(start);
        if (pos_ == start) advance();
      }
    }
    if (at(Tok::Eof)) {
      diags_.error(open, "unclosed '{': the file ends before its '}'");
      throw ParseAbort{};
    }
    b.span = join(open, advance().span);
    return b;
  }

  StmtPtr statement(int nesting) {
    auto s = std::make_unique<Stmt>();
    const Token& first = cur();
    s->span = first.span;
    switch (first.kind) {
      case Tok::KwLet:
      case Tok::KwVar: {
        s->kind = first.kind == Tok::KwLet ? Stmt::Kind::Let : Stmt::Kind::Var;
        advance();
        const Token& name = expect(Tok::Ident, "a variable name");
        s->name = name.text;
        s->name_span = name.span;
        if (accept(Tok::Colon)) s->declared_type = type();
        expect(Tok::Assign, "'=' and an initial value");
        s->expr = expression();
        break;
      }
      case Tok::KwIf: {
        s->kind = Stmt::Kind::If;
        advance();
        s->conds.push_back(expression());
        s->blocks.push_back(block(nesting + 1));
        while (at(Tok::KwElse)) {
          advance();
          if (accept(Tok::KwIf)) {
            s->conds.push_back(expression());
            s->blocks.push_back(block(nesting + 1));
          } else {
            s->blocks.push_back(block(nesting + 1));
            break;
          }
        }
        break;
      }
      case Tok::KwWhile:
        s->kind = Stmt::Kind::While;
        advance();
        s->expr = expression();
        s->body = block(nesting + 1);
        break;
      case Tok::KwFor: {
        advance();
        const Token& name = expect(Tok::Ident, "a loop variable name");
        s->name = name.text;
        s->name_span = name.span;
        expect(Tok::KwIn, "'in'");
        s->expr = expression();
        if (at(Tok::DotDot) || at(Tok::DotDotEq)) {
          s->kind = Stmt::Kind::ForRange;
          s->inclusive = advance().kind == Tok::DotDotEq;
          s->expr2 = expression();
        } else {
          s->kind = Stmt::Kind::ForEach;
        }
        s->body = block(nesting + 1);
        break;
      }
      case Tok::KwBreak:
        s->kind = Stmt::Kind::Break;
        advance();
        break;
      case Tok::KwContinue:
        s->kind = Stmt::Kind::Continue;
        advance();
        break;
      case Tok::KwReturn:
        s->kind = Stmt::Kind::Return;
        advance();
        // The value must start on the same line as `return`.
        if (!cur().line_start && !at(Tok::RBrace) && !at(Tok::Semicolon) && !at(Tok::Eof)) s->expr = expression();
        break;
      case Tok::KwRaise:
        s->kind = Stmt::Kind::Raise;
        advance();
        s->expr = expression();
        if (at(Tok::Ident) && cur().text == "code" && !cur().line_start) {
          advance();
          const Token& code = expect(Tok::String, "a SQLSTATE string after 'code', like \"22023\"");
          s->raise_code = code.text;
          s->code_span = code.span;
        }
        break;
      case Tok::Ident:
        // `yield (a, b)`: `yield` is a word only at the start of a statement
        // with `(` after it on the same line.
        if (first.text == "yield" && ahead(1).kind == Tok::LParen && !ahead(1).line_start) {
          s->kind = Stmt::Kind::Yield;
          advance();
          advance();  // (
          while (!at(Tok::RParen)) {
            s->values.push_back(expression());
            if (!accept(Tok::Comma)) break;
          }
          expect(Tok::RParen, "')' after the yielded values");
          break;
        }
        [[fallthrough]];
      default: {
        ExprPtr target = expression();
        AssignOp op = AssignOp::Set;
        bool assign = true;
        switch (cur().kind) {
          case Tok::Assign: op = AssignOp::Set; break;
          case Tok::PlusAssign: op = AssignOp::Add; break;
          case Tok::MinusAssign: op = AssignOp::Sub; break;
          case Tok::StarAssign: op = AssignOp::Mul; break;
          case Tok::SlashAssign: op = AssignOp::Div; break;
          case Tok::PercentAssign: op = AssignOp::Mod; break;
          default: assign = false; break;
        }
        if (!assign) {
          s->kind = Stmt::Kind::Eval;
          s->expr = std::move(target);
          break;
        }
        if (target->kind != Expr::Kind::Name) fail(target->span, "the left side of an assignment must be a variable");
        advance();
        s->kind = Stmt::Kind::Assign;
        s->assign_op = op;
        s->name = target->text;
        s->name_span = target->span;
        s->expr = expression();
        break;
      }
    }
    s->span = join(s->span, prev_span());
    return s;
  }

  // Expressions -------------------------------------------------------------
  // Lowest to highest: or, and, not, comparison/in, ??, + -, * / %, unary -,
  // postfix (call).

  ExprPtr make_binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::Binary;
    e->binary_op = op;
    e->span = join(lhs->span, rhs->span);
    e->depth = std::max(lhs->depth, rhs->depth) + 1;
    if (e->depth > max_nesting) fail(e->span, "expression is nested too deeply");
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    return e;
  }

  // Bounds the recursion of the descent itself (parentheses, calls, prefix
  // operators); unwinding on errors restores the count.
  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, Span at) : p(parser) {
      if (++p.recursion_ > max_nesting) {
        --p.recursion_;
        p.fail(at, "expression is nested too deeply");
      }
    }
    ~DepthGuard() { --p.recursion_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  ExprPtr expression() {
    DepthGuard guard(*this, cur().span);
    return or_expr();
  }

  ExprPtr or_expr() {
    ExprPtr lhs = and_expr();
    while (accept(Tok::KwOr)) lhs = make_binary(BinaryOp::Or, std::move(lhs), and_expr());
    return lhs;
  }

  ExprPtr and_expr() {
    ExprPtr lhs = not_expr();
    while (accept(Tok::KwAnd)) lhs = make_binary(BinaryOp::And, std::move(lhs), not_expr());
    return lhs;
  }

  ExprPtr not_expr() {
    if (at(Tok::KwNot)) {
      Span op = advance().span;
      DepthGuard guard(*this, op);
      return make_unary(UnaryOp::Not, op, not_expr());
    }
    return comparison();
  }

  ExprPtr make_unary(UnaryOp op, Span op_span, ExprPtr operand) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::Unary;
    e->unary_op = op;
    e->span = join(op_span, operand->span);
    e->depth = operand->depth + 1;
    if (e->depth > max_nesting) fail(e->span, "expression is nested too deeply");
    e->args.push_back(std::move(operand));
    return e;
  }

  static bool comparison_op(Tok kind, BinaryOp& op) {
    switch (kind) {
      case Tok::EqEq: op = BinaryOp::Eq; return true;
      case Tok::NotEq: op = BinaryOp::Ne; return true;
      case Tok::Lt: op = BinaryOp::Lt; return true;
      case Tok::LtEq: op = BinaryOp::Le; return true;
      case Tok::Gt: op = BinaryOp::Gt; return true;
      case Tok::GtEq: op = BinaryOp::Ge; return true;
      case Tok::KwIn: op = BinaryOp::In; return true;
      default: return false;
    }
  }

  ExprPtr comparison() {
    ExprPtr lhs = coalesce();
    BinaryOp op{};
    if (comparison_op(cur().kind, op)) {
      advance();
      lhs = make_binary(op, std::move(lhs), coalesce());
      BinaryOp again{};
      if (comparison_op(cur().kind, again)) {
        fail(cur().span, "comparisons cannot be chained; combine them with 'and'");
      }
    }
    return lhs;
  }

  ExprPtr coalesce() {
    ExprPtr lhs = additive();
    if (accept(Tok::QuestionQuestion)) {
      // Right-associative: a ?? b ?? c is a ?? (b ?? c).
      return make_binary(BinaryOp::Coalesce, std::move(lhs), coalesce_rhs());
    }
    return lhs;
  }
  ExprPtr coalesce_rhs() {
    DepthGuard guard(*this, cur().span);
    return coalesce();
  }

  ExprPtr additive() {
    ExprPtr lhs = multiplicative();
    while (true) {
      if (accept(Tok::Plus)) {
        lhs = make_binary(BinaryOp::Add, std::move(lhs), multiplicative());
      } else if (accept(Tok::Minus)) {
        lhs = make_binary(BinaryOp::Sub, std::move(lhs), multiplicative());
      } else {
        return lhs;
      }
    }
  }

  ExprPtr multiplicative() {
    ExprPtr lhs = unary();
    while (true) {
      BinaryOp op{};
      if (at(Tok::Star)) op = BinaryOp::Mul;
      else if (at(Tok::Slash)) op = BinaryOp::Div;
      else if (at(Tok::Percent)) op = BinaryOp::Mod;
      else return lhs;
      advance();
      lhs = make_binary(op, std::move(lhs), unary());
    }
  }

  ExprPtr unary() {
    if (at(Tok::Minus)) {
      Span op = advance().span;
      DepthGuard guard(*this, op);
      ExprPtr operand = unary();
      return make_unary(UnaryOp::Neg, op, std::move(operand));
    }
    return postfix();
  }

  ExprPtr postfix() {
    ExprPtr e = primary();
    // `name(` and `sql.name(`: the '(' must be on the same line.
    if (e->kind == Expr::Kind::Name && at(Tok::Dot) && e->text == "sql") {
      advance();
      const Token& name = expect(Tok::Ident, "a SQL function name after 'sql.'");
      auto call = std::make_unique<Expr>();
      call->kind = Expr::Kind::SqlCall;
      call->text = name.text;
      call->name_span = name.span;
      if (!at(Tok::LParen) || cur().line_start) fail_expected("'(' and the arguments of the SQL function");
      call_args(*call);
      call->span = join(e->span, prev_span());
      if (at(Tok::Ident) && cur().text == "as" && !cur().line_start) {
        advance();
        call->sql_result = type();
        call->span = join(call->span, prev_span());
      }
      return call;
    }
    if (e->kind == Expr::Kind::Name && at(Tok::LParen) && !cur().line_start) {
      auto call = std::make_unique<Expr>();
      call->kind = Expr::Kind::Call;
      call->text = e->text;
      call->name_span = e->span;
      call_args(*call);
      call->span = join(e->span, prev_span());
      e = std::move(call);
    }
    // Field reads: row.name (a query's row); indexing: xs[i] (its '[' on the same line).
    while (at(Tok::Dot) || (at(Tok::LBracket) && !cur().line_start)) {
      if (at(Tok::LBracket)) {
        e = index(std::move(e));
        continue;
      }
      advance();
      const Token& name = expect(Tok::Ident, "a field name after '.'");
      auto field = std::make_unique<Expr>();
      field->kind = Expr::Kind::Field;
      field->text = name.text;
      field->name_span = name.span;
      field->depth = e->depth + 1;
      field->span = join(e->span, name.span);
      if (field->depth > max_nesting) fail(name.span, "expression is nested too deeply");
      field->args.push_back(std::move(e));
      e = std::move(field);
    }
    return e;
  }

  ExprPtr index(ExprPtr array) {
    advance();
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::Index;
    ExprPtr at_index = expression();
    expect(Tok::RBracket, "']' after the index");
    e->depth = std::max(array->depth, at_index->depth) + 1;
    e->span = join(array->span, prev_span());
    e->name_span = e->span;
    if (e->depth > max_nesting) fail(e->span, "expression is nested too deeply");
    e->args.push_back(std::move(array));
    e->args.push_back(std::move(at_index));
    return e;
  }

  // [a, b, ...] (a trailing comma is allowed; may span lines)
  ExprPtr array_literal() {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::ArrayLit;
    Span open = advance().span;
    int depth = 0;
    while (!at(Tok::RBracket)) {
      ExprPtr element = expression();
      depth = std::max(depth, element->depth);
      e->args.push_back(std::move(element));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RBracket, "']' after the array's elements");
    e->depth = depth + 1;
    e->span = join(open, prev_span());
    e->name_span = e->span;
    if (e->depth > max_nesting) fail(e->span, "expression is nested too deeply");
    return e;
  }

  // query [one] "sql" [(args)] as T | as (name: T, ...)   and   exec "sql" [(args)]
  ExprPtr embedded_sql() {
    auto e = std::make_unique<Expr>();
    const Token& keyword = advance();
    e->kind = keyword.text == "exec" ? Expr::Kind::Exec : Expr::Kind::Query;
    e->span = keyword.span;
    if (e->kind == Expr::Kind::Query && at(Tok::Ident) && cur().text == "one") {
      advance();
      e->query_one = true;
    }
    const Token& sql = expect(Tok::String, "the SQL statement as a string literal");
    e->text = sql.text;
    e->name_span = sql.span;
    e->depth = 1;
    if (at(Tok::LParen) && !cur().line_start) call_args(*e);
    if (e->kind == Expr::Kind::Query) {
      if (!(at(Tok::Ident) && cur().text == "as")) {
        fail_expected("'as' and the row type of the query: as int, or as (name: type, ...)");
      }
      advance();
      if (at(Tok::LParen)) {
        advance();
        while (!at(Tok::RParen)) {
          const Token& name = expect(Tok::Ident, "a column name");
          Expr::RowField field{name.text, name.span, {}};
          expect(Tok::Colon, "':' and the column's type");
          field.type = type();
          e->row.push_back(std::move(field));
          if (!accept(Tok::Comma)) break;
        }
        expect(Tok::RParen, "')' after the columns");
        if (e->row.empty()) fail(prev_span(), "a row type needs at least one column");
      } else {
        e->sql_result = type();
      }
    }
    e->span = join(keyword.span, prev_span());
    return e;
  }

  void call_args(Expr& call) {
    expect(Tok::LParen, "'('");
    int depth = 0;
    while (!at(Tok::RParen)) {
      ExprPtr arg = expression();
      depth = std::max(depth, arg->depth);
      call.args.push_back(std::move(arg));
      if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RParen, "')' after the arguments");
    call.depth = depth + 1;
    if (call.depth > max_nesting) fail(call.name_span, "expression is nested too deeply");
  }

  ExprPtr primary() {
    const Token& t = cur();
    auto e = std::make_unique<Expr>();
    e->span = t.span;
    switch (t.kind) {
      case Tok::Int:
        e->kind = Expr::Kind::IntLit;
        e->int_value = t.int_value;
        advance();
        return e;
      case Tok::Float:
        e->kind = Expr::Kind::FloatLit;
        e->float_value = t.float_value;
        advance();
        return e;
      case Tok::String:
        e->kind = Expr::Kind::TextLit;
        e->text = t.text;
        advance();
        return e;
      case Tok::Char:
        e->kind = Expr::Kind::CharLit;
        e->char_value = t.char_value;
        advance();
        return e;
      case Tok::KwTrue:
      case Tok::KwFalse:
        e->kind = Expr::Kind::BoolLit;
        e->bool_value = t.kind == Tok::KwTrue;
        advance();
        return e;
      case Tok::KwNull:
        e->kind = Expr::Kind::NullLit;
        advance();
        return e;
      case Tok::Ident:
        if ((t.text == "query" || t.text == "exec") && !ahead(1).line_start &&
            (ahead(1).kind == Tok::String || (t.text == "query" && ahead(1).kind == Tok::Ident && ahead(1).text == "one"))) {
          return embedded_sql();
        }
        e->kind = Expr::Kind::Name;
        e->text = t.text;
        advance();
        return e;
      case Tok::LBracket: return array_literal();
      case Tok::LParen: {
        advance();
        ExprPtr inner = expression();
        expect(Tok::RParen, "')'");
        e->kind = Expr::Kind::Paren;
        e->depth = inner->depth + 1;
        e->span = join(t.span, prev_span());
        e->args.push_back(std::move(inner));
        return e;
      }
      case Tok::KwInt:
      case Tok::KwFloat:
      case Tok::KwText:
      case Tok::KwChar:
      case Tok::KwBytes:
      case Tok::KwBool: {
        if (t.kind == Tok::KwBool) fail(t.span, "there is no bool(..) conversion; compare instead (x != 0)");
        e->kind = Expr::Kind::Convert;
        e->convert_to = t.kind == Tok::KwInt     ? BaseType::Int
                        : t.kind == Tok::KwFloat ? BaseType::Float
                        : t.kind == Tok::KwText  ? BaseType::Text
                        : t.kind == Tok::KwChar  ? BaseType::Char
                                                 : BaseType::Bytes;
        std::string quoted_name = tok_name(t.kind);
        e->text = quoted_name.substr(1, quoted_name.size() - 2);
        e->name_span = t.span;
        advance();
        if (!at(Tok::LParen)) fail(t.span, "a type name is not a value; did you mean " + e->text + "(x)?");
        call_args(*e);
        e->span = join(t.span, prev_span());
        return e;
      }
      default:
        fail_expected("an expression");
    }
  }

  const std::vector<Token>& toks_;
  Diagnostics& diags_;
  std::size_t pos_ = 0;
  int recursion_ = 0;
  std::string function_name_;  // of the function being parsed, once its name is read
};

}  // namespace

ast::Module parse(const std::vector<Token>& tokens, Diagnostics& diags) { return Parser(tokens, diags).run(); }

ast::Module parse_source(const SourceFile& source, Diagnostics& diags) {
  std::vector<Token> tokens = lex(source, diags);
  return parse(tokens, diags);
}

}  // namespace keal
