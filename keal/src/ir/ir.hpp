#pragma once
// The typed IR: what the checker proved, in the form the emitter needs.
// Names are resolved to local slots and function indices, every expression
// carries its type and source line, nullable reads are explicit (Unwrap and
// Wrap), compound assignments are plain assignments, built-ins are resolved
// to one operation each, and a `char in "ascii literal"` test is already a
// bit set.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace keal::ir {

enum class Base : std::uint8_t { Void, Int, Float, Bool, Text, Char, Bytes, Null, Record, Array };

struct Record;

// A scalar type, or a record (Base::Record, e.g. a query's row type
// `(id: int, score: float?)`) whose fields `record` holds. Records are
// structural: two records with the same field names and types, in the same
// order, are the same type.
struct Type {
  Type() = default;
  Type(Base b, bool is_nullable) : base(b), nullable(is_nullable) {}

  Base base = Base::Void;
  bool nullable = false;
  std::shared_ptr<const Record> record;  // set exactly when base is Record
  // Base::Array: the element type, a scalar, maybe nullable (ir/array_type.hpp).
  // An empty literal `[]` has the element type null until the checker gives it one.
  std::shared_ptr<const Type> elem;
  friend bool operator==(const Type& a, const Type& b);
};

struct Field {
  std::string name;
  Type type;
  friend bool operator==(const Field&, const Field&) = default;
};

struct Record {
  std::vector<Field> fields;
  // The index of the field called `name`, or -1.
  int field_index(const std::string& name) const;
  friend bool operator==(const Record&, const Record&) = default;
};

// The record type with these fields (in this order; names must be distinct).
Type record_type(std::vector<Field> fields);

std::string to_string(const Type& type);
std::string to_string(Base base);

enum class Op : std::uint8_t {
  // int (checked) and float arithmetic
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Neg,
  // logic
  Not,
  And,
  Or,
  // comparisons on one scalar type
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  // text
  Concat,
  CharInText,      // c in t
  CharInAsciiSet,  // c in "literal of ASCII": ascii_lo / ascii_hi bit sets
  TextInText,      // "ab" in t
  // nullable
  IsNull,
  IsNotNull,
  Coalesce,
};

enum class Builtin : std::uint8_t {
  LenText,
  LenBytes,
  Upper,
  Lower,
  Substr,
  Find,
  Replace,
  Trim,
  StartsWith,
  EndsWith,
  AbsInt,
  AbsFloat,
  MinInt,
  MaxInt,
  MinFloat,
  MaxFloat,
  Sqrt,
  Floor,
  Ceil,
  Print,
  LenArray,     // len(xs)
  Append,       // append(xs, v): xs with v after its last element (in place when xs owns its buffer's end)
};

enum class Conv : std::uint8_t {
  IntToFloat,
  FloatToInt,
  CharToInt,
  IntToChar,
  TextToInt,
  TextToFloat,
  IntToText,
  FloatToText,
  BoolToText,
  CharToText,
  BytesToText,
  TextToBytes,
};

const char* op_name(Op op);
const char* builtin_name(Builtin b);
const char* conv_name(Conv c);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind : std::uint8_t {
    Int,
    Float,
    Bool,
    Text,
    Char,
    Null,
    Local,    // read a local slot (of its declared type)
    Unwrap,   // args[0] is T? proven non-null here; the value is T
    Wrap,     // args[0] is T; the value is T?
    Unary,
    Binary,
    Call,     // user function `func`
    Builtin,  // `builtin`
    Sql,      // server function through call site `sql_site`
    Convert,  // `conv`
    Field,    // field number `field` of the record args[0]
    Query,    // query site `query`, parameters in args: `query one` (its value), or the rows of a ForQuery
    Exec,     // exec site `query`, parameters in args (no value)
    ArrayLit, // [args...]: a new array of type `type`
    Index,    // args[0][args[1]]: checked, out of range is 2202E
  };
  Kind kind = Kind::Int;
  Type type;
  std::uint32_t line = 0;

  std::int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string text_value;
  std::uint32_t char_value = 0;
  int local = -1;
  int func = -1;
  int sql_site = -1;
  int field = -1;
  int query = -1;
  Op op = Op::Add;
  Builtin builtin = Builtin::LenText;
  Conv conv = Conv::IntToFloat;
  std::uint64_t ascii_lo = 0;  // CharInAsciiSet: bit c for c < 64
  std::uint64_t ascii_hi = 0;  // bit c-64 for 64 <= c < 128
  std::vector<ExprPtr> args;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
  enum class Kind : std::uint8_t {
    Declare,    // local = a
    Assign,     // local = a
    If,         // if a { body } else { else_body }
    While,      // while a { body }
    ForRange,   // for local in a..b / a..=b { body }
    ForChars,   // for local in a (text) { body }
    ForQuery,   // for local in a (a Query expression: its rows) { body }
    ForArray,   // for local in a (an array: its elements) { body }
    Break,
    Continue,
    Return,     // a may be null (no value)
    Raise,      // a: text message; code: SQLSTATE
    Eval,       // a, value discarded
    Yield,      // values: one row of a rows function (one value per column)
  };
  Kind kind = Kind::Eval;
  std::uint32_t line = 0;
  int local = -1;
  ExprPtr a;
  ExprPtr b;
  bool inclusive = false;
  std::string code;  // Raise: five-character SQLSTATE
  Block body;
  Block else_body;
  std::vector<ExprPtr> values;  // Yield
};

enum class AggregatePart : std::uint8_t { Init, Step, Combine, Inverse, Final };
const char* part_name(AggregatePart part);

struct Local {
  std::string name;
  Type type;
  bool is_param = false;
  bool is_mutable = false;
  std::string c_name;  // unique within the function
  bool is_state = false;  // an aggregate's state field (never declared in C: read through the state pointer)
};

struct Function {
  std::string name;
  bool exported = false;
  std::uint32_t line = 0;
  std::vector<int> params;  // local slots
  Type ret;                 // Void when the function returns nothing
  // A set-returning function (`-> rows(a: int, b: text?)`): its columns, and
  // `yield` gives one row (ret is Void). Its C function is a resumable
  // generator over a frame (emit/rows_functions.cpp).
  bool returns_rows = false;
  std::vector<Field> columns;
  std::vector<Local> locals;
  Block body;
  std::string doc;
  std::vector<int> callees;     // user functions called directly
  bool calls_volatile_sql = false;  // a server function not known to be immutable
  bool reads_database = false;      // runs a query (directly)
  bool writes_database = false;     // runs exec, or a query that may write (directly)
  bool uses_spi = false;            // filled in by analyze(): runs embedded SQL, here or in a callee
  bool pure = true;             // filled in by analyze(): no volatile SQL and no embedded SQL reached
  bool writes = false;          // filled in by analyze(): volatile SQL or a write reached (VOLATILE)
  bool recursive = false;       // filled in by analyze(): can reach itself through calls
  // A part of aggregate `aggregate` (an index into Module::aggregates), or -1.
  // Its state fields are locals with `is_state` whose C names read through
  // the state pointer the part takes first (emit/aggregate_parts.cpp).
  int aggregate = -1;
  AggregatePart part = AggregatePart::Step;
};

// An `export agg`: its parts are functions of the module (Function::aggregate).
struct Aggregate {
  std::string name;
  std::uint32_t line = 0;
  std::string doc;
  std::vector<Field> params;  // the step's arguments, in order
  Type ret;
  Type state;                 // a record of int/float/bool fields (nullable allowed)
  int init = -1;              // function indices; -1 when the part is absent
  int step = -1;
  int combine = -1;
  int inverse = -1;
  int final_fn = -1;          // absent: the result is the one state field
  bool pure = true;           // filled in by analyze(): every part pure
};

// One `sql.name(...)` call site; sites with the same signature share a slot.
struct SqlSite {
  std::string name;
  std::vector<Type> arg_types;
  Type result;
  std::string signature;  // name(text,bigint): what regprocedure resolves
  bool immutable = false;
};

// One embedded SQL statement: each is prepared once per backend and kept.
struct QuerySite {
  enum class Form : std::uint8_t { Rows, One, Exec };
  Form form = Form::Rows;
  std::string sql;
  std::uint32_t line = 0;
  std::uint32_t sql_begin = 0;  // the statement's string literal in the source (byte offsets)
  std::uint32_t sql_end = 0;
  std::vector<Type> params;    // the Keal types bound to $1..$n
  // The declared row: one field per column. `as T` is one column (its
  // name empty) and the query's value is that column, not a record.
  std::vector<Field> columns;
  bool single_value = false;
  bool may_write = false;      // exec, or a statement that is not plainly a read
};

struct Module {
  std::string source_name;  // file name as shown in runtime errors
  std::vector<Function> functions;
  std::vector<SqlSite> sql_sites;
  std::vector<QuerySite> query_sites;
  std::vector<Aggregate> aggregates;
};

// Whole-module facts the checker cannot see one function at a time.
void analyze(Module& module);

// A readable dump of the IR, one statement a line (for tests and debugging).
std::string dump(const Module& module);

// The SQL type a Keal type maps to: int -> bigint, float -> double precision,
// bool -> boolean, text and char -> text, bytes -> bytea, a record -> record.
std::string sql_type(const Type& type);

}  // namespace keal::ir
