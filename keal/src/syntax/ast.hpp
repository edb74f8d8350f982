#pragma once
// The syntax tree, every node with its source span. It says what was written;
// the checker decides what it means.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syntax/source.hpp"

namespace keal::ast {

enum class BaseType : std::uint8_t { Int, Float, Bool, Text, Char, Bytes };

struct TypeRef {
  BaseType base = BaseType::Int;
  bool nullable = false;  // of the value, or of an array's elements (`[int?]`)
  bool array = false;     // `[T]`: an array of `base` (nullable elements when `nullable`)
  Span span;
};

enum class UnaryOp : std::uint8_t { Neg, Not };
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, In, And, Or, Coalesce };

const char* op_text(BinaryOp op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind : std::uint8_t {
    IntLit,
    FloatLit,
    BoolLit,
    TextLit,
    CharLit,
    NullLit,
    Name,
    Unary,
    Binary,
    Call,     // name(args)
    SqlCall,  // sql.name(args) [as T]
    Convert,  // int(x), float(x), text(x), char(x), bytes(x)
    Paren,    // (e): kept so that `-(9223372036854775808)` is not a literal
    Field,    // args[0].name: a field of a query's row
    Query,    // query [one] "sql" (args) as T / as (name: T, ...)
    Exec,     // exec "sql" (args)
    ArrayLit, // [args...]
    Index,    // args[0][args[1]]
  };
  Kind kind = Kind::IntLit;
  Span span;
  int depth = 1;  // height of this subtree, bounded by the parser

  std::uint64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::uint32_t char_value = 0;
  std::string text;  // identifier, callee, decoded string
  Span name_span;    // callee name
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  BaseType convert_to = BaseType::Int;
  std::optional<TypeRef> sql_result;  // `as T` (sql.name calls and query ... as T)
  std::vector<ExprPtr> args;          // operands or call arguments (query/exec: the bound parameters)

  // Query / Exec: the statement text is `text`, written at `name_span`.
  bool query_one = false;             // `query one`
  struct RowField {
    std::string name;
    Span span;
    TypeRef type;
  };
  std::vector<RowField> row;  // `as (name: T, ...)`; empty when `as T`
};

enum class AssignOp : std::uint8_t { Set, Add, Sub, Mul, Div, Mod };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Block {
  std::vector<StmtPtr> stmts;
  Span span;
};

struct Stmt {
  enum class Kind : std::uint8_t { Let, Var, Assign, If, While, ForRange, ForEach, Break, Continue, Return, Raise, Eval, Yield };
  Kind kind = Kind::Eval;
  Span span;

  std::string name;  // declared, assigned or loop variable
  Span name_span;
  std::optional<TypeRef> declared_type;
  AssignOp assign_op = AssignOp::Set;
  ExprPtr expr;   // initializer, value, condition, range start, iterable, return value, raise message
  ExprPtr expr2;  // range end
  bool inclusive = false;
  std::optional<std::string> raise_code;
  Span code_span;

  // if / else if / else: conds.size() == blocks.size(), or one block more for `else`.
  std::vector<ExprPtr> conds;
  std::vector<Block> blocks;
  Block body;  // loops
  std::vector<ExprPtr> values;  // yield (a, b, ...): one per column of the function's rows
};

struct Param {
  std::string name;
  Span span;
  TypeRef type;
};

struct Function {
  bool exported = false;
  std::string name;
  Span name_span;
  Span span;
  std::vector<Param> params;
  std::optional<TypeRef> ret;
  // `-> rows(name: T, ...)`: a set-returning function; its columns (ret is empty).
  bool returns_rows = false;
  Span rows_span;
  std::vector<Param> rows;
  Block body;
  std::string doc;
  // The body had a syntax error the parser recovered from (a statement was
  // dropped): its signature holds, but checking the body would report
  // follow-on errors, so the checker skips it.
  bool syntax_errors = false;
};

// `export agg name(params) -> R { state ...; step { } combine { } inverse { } final { } }`
// (check/aggregates.cpp says what it means).
struct Aggregate {
  std::string name;
  Span name_span;
  Span span;
  std::vector<Param> params;
  std::optional<TypeRef> ret;
  std::string doc;
  struct StateField {
    std::string name;
    Span span;
    TypeRef type;
    ExprPtr init;
  };
  std::vector<StateField> state;
  struct Part {
    bool present = false;
    Span keyword;
    Block body;
  };
  Part step, combine, inverse, final;
  bool syntax_errors = false;
};

struct Module {
  std::vector<Function> functions;
  std::vector<Aggregate> aggregates;
  // Names of functions whose header could not be parsed (so they are not in
  // `functions`): calls to them are not reported as unknown functions.
  std::vector<std::string> unparsed_functions;
};

}  // namespace keal::ast
