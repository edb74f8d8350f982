#include "program_generator.hpp"

#include <random>
#include <vector>

namespace keal::fuzz {

namespace {

enum class T : std::uint8_t { Int, Float, Bool, Text, Char };

const char* type_name(T t) {
  switch (t) {
    case T::Int: return "int";
    case T::Float: return "float";
    case T::Bool: return "bool";
    case T::Text: return "text";
    case T::Char: return "char";
  }
  return "int";
}

struct Var {
  std::string name;
  T type;
  bool mutable_;
  bool nullable;
};

struct Helper {
  std::string name;
  std::vector<T> params;
  T ret;
};

class Generator {
 public:
  Generator(std::uint64_t seed, Flavour flavour) : rng_(seed), flavour_(flavour) {}

  std::string run() {
    std::string out = "// generated program\n";
    int helpers = pick(0, 2);
    for (int i = 0; i < helpers; ++i) out += helper(i);
    if (flavour_ == Flavour::Native) {
      out += "export fn main() {\n";
      scope_ = {};
      out += block_body(1, 6);
      out += "}\n";
    } else {
      int exports = pick(1, 3);
      for (int i = 0; i < exports; ++i) out += exported(i);
    }
    return out;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  T any_type() { return static_cast<T>(pick(0, 4)); }

  std::string fresh() { return "v" + std::to_string(next_++); }

  std::string helper(int index) {
    Helper h{"h" + std::to_string(index), {}, any_type()};
    int n = pick(0, 3);
    scope_ = {};
    std::string params;
    for (int i = 0; i < n; ++i) {
      T t = any_type();
      h.params.push_back(t);
      std::string name = "p" + std::to_string(i);
      params += (i ? ", " : "") + name + ": " + type_name(t);
      scope_.push_back({name, t, false, false});
    }
    ret_ = h.ret;
    std::string out = "fn " + h.name + "(" + params + ") -> " + type_name(h.ret) + " {\n";
    out += block_body(1, 4);
    out += "    return " + expr(h.ret, 3) + "\n}\n\n";
    helpers_.push_back(h);
    return out;
  }

  std::string exported(int index) {
    T ret = any_type();
    scope_ = {};
    std::string params;
    int n = pick(0, 3);
    for (int i = 0; i < n; ++i) {
      T t = any_type();
      bool nullable = chance(25);
      std::string name = "a" + std::to_string(i);
      params += (i ? ", " : "") + name + ": " + type_name(t) + (nullable ? "?" : "");
      scope_.push_back({name, t, false, nullable});
    }
    std::string out = "/// generated export " + std::to_string(index) + "\nexport fn e" + std::to_string(index) + "(" + params +
                      ") -> " + type_name(ret) + " {\n";
    out += block_body(1, 5);
    out += "    return " + expr(ret, 3) + "\n}\n\n";
    return out;
  }

  std::string indent(int depth) { return std::string(static_cast<std::size_t>(depth) * 4, ' '); }

  std::string block_body(int depth, int max_statements) {
    std::size_t mark = scope_.size();
    std::string out;
    int n = pick(1, max_statements);
    for (int i = 0; i < n; ++i) out += statement(depth);
    scope_.resize(mark);
    return out;
  }

  const Var* find_var(T type, bool want_mutable) {
    std::vector<const Var*> options;
    for (const Var& v : scope_) {
      if (v.type == type && (!want_mutable || v.mutable_) && (!v.nullable || want_mutable)) options.push_back(&v);
    }
    if (options.empty()) return nullptr;
    return options[static_cast<std::size_t>(pick(0, static_cast<int>(options.size()) - 1))];
  }

  std::string statement(int depth) {
    std::string in = indent(depth);
    int kind = pick(0, depth > 3 ? 3 : 9);
    switch (kind) {
      case 0:
      case 1: {
        T t = any_type();
        bool is_var = chance(60);
        std::string name = fresh();
        std::string s = in + (is_var ? "var " : "let ") + name + " = " + expr(t, 3) + "\n";
        scope_.push_back({name, t, is_var, false});
        return s;
      }
      case 2: {
        T t = chance(50) ? T::Int : any_type();
        const Var* v = find_var(t, true);
        if (v == nullptr) return in + "let " + fresh() + " = " + expr(T::Int, 2) + "\n";
        if (t == T::Int && chance(50)) {
          static const char* ops[] = {"+=", "-=", "*=", "/=", "%="};
          return in + v->name + " " + ops[pick(0, 4)] + " " + expr(T::Int, 2) + "\n";
        }
        if (t == T::Text && chance(50)) return in + v->name + " += " + expr(T::Text, 2) + "\n";
        return in + v->name + " = " + expr(t, 3) + "\n";
      }
      case 3:
        if (flavour_ == Flavour::Native) {
          std::string args;
          int n = pick(1, 3);
          for (int i = 0; i < n; ++i) args += (i ? ", " : "") + expr(any_type(), 2);
          return in + "print(" + args + ")\n";
        }
        return in + "let " + fresh() + " = " + expr(T::Bool, 3) + "\n";
      case 4: {
        std::string s = in + "if " + expr(T::Bool, 3) + " {\n" + block_body(depth + 1, 3);
        if (chance(40)) s += in + "} else if " + expr(T::Bool, 2) + " {\n" + block_body(depth + 1, 2);
        if (chance(50)) s += in + "} else {\n" + block_body(depth + 1, 2);
        return s + in + "}\n";
      }
      case 5: {
        std::string i = fresh();
        std::string s = in + "for " + i + " in " + std::to_string(pick(-2, 2)) + (chance(50) ? ".." : "..=") +
                        std::to_string(pick(0, 4)) + " {\n";
        scope_.push_back({i, T::Int, false, false});
        ++loops_;
        s += loop_body(depth + 1);
        --loops_;
        scope_.pop_back();
        return s + in + "}\n";
      }
      case 6: {
        std::string c = fresh();
        std::string s = in + "for " + c + " in " + expr(T::Text, 2) + " {\n";
        scope_.push_back({c, T::Char, false, false});
        ++loops_;
        s += loop_body(depth + 1);
        --loops_;
        scope_.pop_back();
        return s + in + "}\n";
      }
      case 7: {
        std::string w = fresh();
        std::string s = in + "var " + w + " = 0\n" + in + "while " + w + " < " + std::to_string(pick(0, 3)) + " {\n";
        s += indent(depth + 1) + w + " += 1\n";
        ++loops_;
        s += loop_body(depth + 1);
        --loops_;
        return s + in + "}\n";
      }
      case 8: {
        T t = any_type();
        std::string name = fresh();
        std::string s = in + "var " + name + ": " + type_name(t) + "? = " + (chance(50) ? "null" : expr(t, 2)) + "\n";
        s += in + "if " + name + " != null {\n" + indent(depth + 1) + "let " + fresh() + " = " + name + "\n" + in + "}\n";
        s += in + "let " + fresh() + " = " + name + " ?? (" + expr(t, 2) + ")\n";
        return s;
      }
      default: {
        if (chance(30)) return in + "if " + expr(T::Bool, 2) + " { raise \"generated \" + " + expr(T::Text, 1) + " code \"22023\" }\n";
        return in + "let " + fresh() + " = " + expr(any_type(), 4) + "\n";
      }
    }
  }

  std::string loop_body(int depth) {
    std::string s = block_body(depth, 3);
    if (loops_ > 0 && chance(30)) s += indent(depth) + "if " + expr(T::Bool, 2) + " { " + (chance(50) ? "break" : "continue") + " }\n";
    return s;
  }

  std::string text_literal() {
    static const char* samples[] = {"\"\"", "\"a\"", "\"hello\"", "\"AEIOU xyz\"", "\"héllo wörld\"", "\"€uro\"",
                                    "\"tab\\there\"", "\"q\\\"uote\"", "\"\\u{1F600}\"", "\"?\?-\"", "\"  pad  \""};
    return samples[pick(0, 10)];
  }

  std::string expr(T t, int depth) {
    if (depth <= 0 || chance(25)) return leaf(t);
    switch (t) {
      case T::Int: {
        switch (pick(0, 11)) {
          case 0: return "(" + expr(T::Int, depth - 1) + " + " + expr(T::Int, depth - 1) + ")";
          case 1: return "(" + expr(T::Int, depth - 1) + " - " + expr(T::Int, depth - 1) + ")";
          case 2: return expr(T::Int, depth - 1) + " * " + expr(T::Int, depth - 1);
          case 3: return expr(T::Int, depth - 1) + (chance(50) ? " / " : " % ") + expr(T::Int, depth - 1);
          case 4: return "-" + expr(T::Int, depth - 1);
          case 5: return "len(" + expr(T::Text, depth - 1) + ")";
          case 6: return std::string(chance(50) ? "min(" : "max(") + expr(T::Int, depth - 1) + ", " + expr(T::Int, depth - 1) + ")";
          case 7: return chance(50) ? "abs(" + expr(T::Int, depth - 1) + ")" : "find(" + expr(T::Text, depth - 1) + ", " + expr(T::Text, depth - 1) + ")";
          case 8: return chance(50) ? "int(" + expr(T::Char, depth - 1) + ")" : "int(floor(" + expr(T::Float, depth - 1) + "))";
          // Arrays: an index that may be out of range (a Keal runtime error), and append.
          case 9: return "[" + expr(T::Int, depth - 1) + ", " + expr(T::Int, depth - 1) + "][" + std::to_string(pick(-1, 2)) + "]";
          case 10: return "len(append([" + expr(T::Text, depth - 1) + "], " + expr(T::Text, depth - 1) + "))";
          default: return call(T::Int, depth);
        }
      }
      case T::Float: {
        switch (pick(0, 5)) {
          case 0: return "(" + expr(T::Float, depth - 1) + " + " + expr(T::Float, depth - 1) + ")";
          case 1: return expr(T::Float, depth - 1) + " * " + expr(T::Float, depth - 1);
          case 2: return expr(T::Float, depth - 1) + " / " + expr(T::Float, depth - 1);
          case 3: return "float(" + expr(T::Int, depth - 1) + ")";
          case 4: return "sqrt(abs(" + expr(T::Float, depth - 1) + "))";
          default: return call(T::Float, depth);
        }
      }
      case T::Bool: {
        switch (pick(0, 7)) {
          case 0: return expr(T::Int, depth - 1) + " < " + expr(T::Int, depth - 1);
          case 1: return expr(T::Text, depth - 1) + " == " + expr(T::Text, depth - 1);
          case 2: return "(" + expr(T::Bool, depth - 1) + (chance(50) ? " and " : " or ") + expr(T::Bool, depth - 1) + ")";
          case 3: return "not " + expr(T::Bool, depth - 1);
          case 4: return expr(T::Char, depth - 1) + " in " + (chance(60) ? "\"aeiou\"" : expr(T::Text, depth - 1));
          case 5: return expr(T::Text, depth - 1) + " in " + expr(T::Text, depth - 1);
          case 6: return std::string(chance(50) ? "starts_with(" : "ends_with(") + expr(T::Text, depth - 1) + ", " + expr(T::Text, depth - 1) + ")";
          default: return expr(T::Float, depth - 1) + " >= " + expr(T::Float, depth - 1);
        }
      }
      case T::Text: {
        switch (pick(0, 8)) {
          case 0: return expr(T::Text, depth - 1) + " + " + expr(T::Text, depth - 1);
          case 1: return std::string(chance(50) ? "upper(" : "lower(") + expr(T::Text, depth - 1) + ")";
          case 2: return "substr(" + expr(T::Text, depth - 1) + ", " + expr(T::Int, depth - 1) + ", abs(" + expr(T::Int, depth - 1) + " % 10))";
          case 3: return "replace(" + expr(T::Text, depth - 1) + ", " + expr(T::Text, depth - 1) + ", " + expr(T::Text, depth - 1) + ")";
          case 4: return "trim(" + expr(T::Text, depth - 1) + ")";
          case 5: return "text(" + expr(static_cast<T>(pick(0, 4)), depth - 1) + ")";
          case 6: return flavour_ == Flavour::Pg && chance(50) ? "sql.md5(" + expr(T::Text, depth - 1) + ")" : expr(T::Text, depth - 1);
          case 7: return "text(bytes(" + expr(T::Text, depth - 1) + "))";
          default: return call(T::Text, depth);
        }
      }
      case T::Char:
        return chance(50) ? "char(65 + abs(" + expr(T::Int, depth - 1) + " % 26))" : leaf(T::Char);
    }
    return leaf(t);
  }

  std::string call(T t, int depth) {
    std::vector<const Helper*> options;
    for (const Helper& h : helpers_) {
      if (h.ret == t) options.push_back(&h);
    }
    if (options.empty()) return leaf(t);
    const Helper& h = *options[static_cast<std::size_t>(pick(0, static_cast<int>(options.size()) - 1))];
    std::string s = h.name + "(";
    for (std::size_t i = 0; i < h.params.size(); ++i) s += (i ? ", " : "") + expr(h.params[i], depth - 1);
    return s + ")";
  }

  std::string leaf(T t) {
    if (chance(50)) {
      const Var* v = find_var(t, false);
      if (v != nullptr) return v->name;
    }
    switch (t) {
      case T::Int: {
        static const char* samples[] = {"0", "1", "2", "3", "7", "-1", "100", "9223372036854775807", "-9223372036854775808", "0x7f"};
        return samples[pick(0, 9)];
      }
      case T::Float: {
        static const char* samples[] = {"0.0", "1.5", "-2.25", "1e10", "3.0e-3", "0.1"};
        return samples[pick(0, 5)];
      }
      case T::Bool: return chance(50) ? "true" : "false";
      case T::Text: return text_literal();
      case T::Char: {
        static const char* samples[] = {"'a'", "'Z'", "'é'", "'\\n'", "'€'", "'\\u{1F600}'", "'\\''"};
        return samples[pick(0, 6)];
      }
    }
    return "0";
  }

  std::mt19937_64 rng_;
  Flavour flavour_;
  std::vector<Var> scope_;
  std::vector<Helper> helpers_;
  T ret_ = T::Int;
  int next_ = 0;
  int loops_ = 0;
};

}  // namespace

std::string generate_program(std::uint64_t seed, Flavour flavour) { return Generator(seed, flavour).run(); }

}  // namespace keal::fuzz
