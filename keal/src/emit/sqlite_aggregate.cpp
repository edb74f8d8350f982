// SQLite aggregates through sqlite3_create_window_function: xStep folds a
// row into the state in sqlite3_aggregate_context (a box with a `ready`
// flag: SQLite zero-fills it, and the Keal initial values are run at the
// first row), xFinal and xValue give the result (the final block only
// reads the state, so the same function serves both), xInverse runs the
// `inverse` block. Without `inverse` the aggregate is registered as a plain
// one (xValue and xInverse NULL): SQLite then refuses it with OVER (...).
// Errors longjmp back as in a scalar function (sqlite_entry.cpp).
#include <string>

#include "emit/aggregates.hpp"
#include "emit/c_names.hpp"
#include "emit/entry_points.hpp"

namespace keal::emit {

namespace {

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }
std::string box(const ir::Aggregate& agg) { return "keal_agg_box_" + agg.name; }

const ir::Function& fn(const ir::Module& module, int index) { return module.functions[static_cast<std::size_t>(index)]; }

// xStep or xInverse: `part` is the step's or the inverse's function.
std::string row_function(const ir::Module& module, const ir::Aggregate& agg, const ir::Function& part, const char* kind) {
  const std::string s = aggregate_state_c_type(agg);
  const std::string name = "keal_sqlite_agg_" + agg.name + "_" + kind;
  // noinline, for the reason entry_wrapper gives.
  std::string params, args = "st";
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    params += ", " + entry_c_type(agg.params[i].type) + " a" + std::to_string(i);
    args += ", a" + std::to_string(i);
  }
  std::string out = "\nstatic __attribute__((noinline)) void " + name + "_call(" + box(agg) + " *b" +
                    params + ") {\n";
  out += "  if (!b->ready) {\n    " + aggregate_part_c_name(module, fn(module, agg.init)) + "(&b->state);\n    b->ready = 1;\n  }\n";
  out += "  " + s + " *st = &b->state;\n";
  out += "  " + aggregate_part_c_name(module, part) + "(" + args + ");\n}\n";
  out += "\nstatic void " + name + "(sqlite3_context *ctx, int argc, sqlite3_value **argv) {\n";
  out += "  (void)argc;\n  (void)argv;\n";
  std::string call = name + "_call(b";
  for (std::size_t i = 0; i < agg.params.size(); ++i) {
    const ir::Field& p = agg.params[i];
    const std::string a = "a" + std::to_string(i);
    const std::string idx = std::to_string(i);
    out += "  " + entry_c_type(p.type) + " " + a + " = {0};\n";
    out += "  int r" + idx + " = keal_sqlite_" + entry_reader(p.type.base) + "(ctx, argv[" + idx + "], &" +
           (p.type.nullable ? a + ".v" : a) + ", " + quoted(agg.name) + ", " + idx + ", " + quoted(p.name) + ");\n";
    out += "  if (r" + idx + " < 0) return;\n";
    if (p.type.nullable) {
      out += "  " + a + ".is_null = r" + idx + " == 0;\n";
    } else {
      out += "  if (r" + idx + " == 0) return; /* SQL's rule: a row with a NULL argument is skipped */\n";
    }
    call += ", " + a;
  }
  call += ")";
  out += "  " + box(agg) + " *b = (" + box(agg) + " *)sqlite3_aggregate_context(ctx, (int)sizeof *b);\n";
  out += "  if (b == NULL) {\n    sqlite3_result_error_nomem(ctx);\n    return;\n  }\n";
  out += "  keal_call call;\n  keal_sqlite_begin(&call, ctx);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) {\n    " + call + ";\n  } else {\n    keal_sqlite_failed(ctx, &call);\n  }\n";
  out += "  keal_sqlite_end(&call);\n}\n";
  return out;
}

}  // namespace

std::string sqlite_aggregate_entry_points(const ir::Module& module, const ir::Aggregate& agg) {
  const std::string s = aggregate_state_c_type(agg);
  std::string out = "\ntypedef struct { int ready; " + s + " state; } " + box(agg) + ";\n";
  out += row_function(module, agg, fn(module, agg.step), "step");
  if (agg.inverse >= 0) out += row_function(module, agg, fn(module, agg.inverse), "inverse");
  const std::string name = "keal_sqlite_agg_" + agg.name + "_final";
  out += "\nstatic __attribute__((noinline)) " + entry_c_type(agg.ret) + " " + name + "_call(const " + box(agg) + " *b) {\n";
  out += "  " + s + " initial;\n  const " + s + " *st = &initial;\n";
  out += "  if (b != NULL && b->ready) {\n    st = &b->state;\n  } else {\n    memset(&initial, 0, sizeof initial);\n    " +
         aggregate_part_c_name(module, fn(module, agg.init)) + "(&initial);\n  }\n";
  out += "  return " + aggregate_result(module, agg, "st") + ";\n}\n";
  out += "\nstatic void " + name + "(sqlite3_context *ctx) {\n";
  out += "  const " + box(agg) + " *b = (const " + box(agg) + " *)sqlite3_aggregate_context(ctx, 0);\n";
  out += "  keal_call call;\n  keal_sqlite_begin(&call, ctx);\n";
  out += "  if (KEAL_SETJMP(&call) == 0) {\n    " + entry_c_type(agg.ret) + " r = " + name + "_call(b);\n";
  if (agg.ret.nullable) {
    out += "    if (r.is_null) sqlite3_result_null(ctx);\n    else " + sqlite_result_call(agg.ret, "r.v") + ";\n";
  } else {
    out += "    " + sqlite_result_call(agg.ret, "r") + ";\n";
  }
  out += "  } else {\n    keal_sqlite_failed(ctx, &call);\n  }\n  keal_sqlite_end(&call);\n}\n";
  return out;
}

std::string sqlite_aggregate_registration(const ir::Aggregate& agg) {
  const std::string prefix = "keal_sqlite_agg_" + agg.name;
  const bool window = agg.inverse >= 0;
  const std::string flags = agg.pure ? "SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS" : "SQLITE_UTF8";
  std::string out = "  rc = sqlite3_create_window_function(db, " + quoted(agg.name) + ", " + std::to_string(agg.params.size()) +
                    ", " + flags + ", NULL, " + prefix + "_step, " + prefix + "_final, " +
                    (window ? prefix + "_final, " + prefix + "_inverse" : std::string("NULL, NULL")) + ", NULL);\n";
  out += "  if (rc != SQLITE_OK) {\n    *error = sqlite3_mprintf(\"%s: registering aggregate " + agg.name +
         "() failed: %s\", KEAL_SOURCE_FILE, sqlite3_errmsg(db));\n    return rc;\n  }\n";
  return out;
}

}  // namespace keal::emit
