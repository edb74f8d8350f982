/*
 * keal_sqlite_rows.h: Keal rows functions (`export fn f(...) -> rows(...)`)
 * as SQLite table-valued functions, included only by an extension that has
 * one (emit/sqlite_rows.cpp). Each is an eponymous-only virtual table (a
 * module without xCreate, so `CREATE VIRTUAL TABLE` cannot make one and
 * `SELECT ... FROM f(1, 10)` needs none) whose columns are the rows'
 * columns followed by the function's parameters as HIDDEN columns: SQLite
 * turns `f(1, 10)` into the constraints `p1 = 1 AND p2 = 10`, which
 * xBestIndex requires, as SQLite's own generate_series (ext/misc/series.c)
 * does with its start, stop and step.
 *
 * The body is the generator the C emitter writes for PostgreSQL too:
 * `bool kf_f(kr_f *fr)` runs from where it stopped to its next yield (true,
 * the row in fr->out) or to its end (false). xFilter binds the arguments
 * into a fresh frame and runs it to the first row, xNext to the next one,
 * so SQLite asks for exactly the rows it uses: a LIMIT stops the body, and
 * a raise after the last row asked for never runs.
 *
 * - Memory: the cursor owns one keal_call from xFilter to the next xFilter
 *   or xClose, so the texts a body keeps in its locals across a yield stay
 *   valid (its arena, as PostgreSQL's multi_call_memory_ctx: all of it goes
 *   when the rows end). The arguments are copied (sqlite3_value_dup): the
 *   frame reads their texts in place, and xColumn gives them back for the
 *   hidden columns.
 * - Errors: keal_error longjmps back into xFilter or xNext, which sets the
 *   table's zErrMsg to the Keal message "file.keal:line: message" (what a
 *   scalar function reports) and returns SQLITE_ERROR, or SQLITE_INTERRUPT
 *   for a stopped loop. A bad argument is reported as a scalar function's.
 * - NULL: a NULL for a non-nullable parameter gives no rows (as STRICT does
 *   on PostgreSQL); a nullable parameter gets null.
 */
#ifndef KEAL_SQLITE_ROWS_H
#define KEAL_SQLITE_ROWS_H

#include "keal_sqlite.h"

/* What the emitter writes per rows function; the module below is shared. */
typedef struct keal_sqlite_rows_info {
  const char *name;
  const char *schema;       /* CREATE TABLE x(<columns>, <parameters> HIDDEN) */
  const char *call_form;    /* "f(n, tag)": how a missing argument's message shows the call */
  int columns;              /* the rows' columns: 0 .. columns-1 */
  int params;               /* then the parameters: columns .. columns+params-1 */
  const char *const *param_names;
  size_t frame_size;
  /* Reads the arguments (one per parameter, in order) into a zeroed frame:
   * 1 to run it, 0 for no rows (a NULL for a non-nullable parameter), -1
   * after reporting a bad argument. */
  int (*bind)(void *frame, sqlite3_value **argv);
  bool (*next)(void *frame);
  /* Column i (< columns) of the frame's current row. */
  void (*column)(const void *frame, sqlite3_context *ctx, int i);
} keal_sqlite_rows_info;

typedef struct {
  sqlite3_vtab base;
  sqlite3 *db;
  const keal_sqlite_rows_info *info;
} keal_sqlite_rows_vtab;

typedef struct {
  sqlite3_vtab_cursor base;
  keal_call call;           /* open while `frame` is */
  void *frame;
  sqlite3_value **args;
  sqlite3_int64 rowid;
  bool eof;
} keal_sqlite_rows_cursor;

static int keal_sqlite_rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                                    char **error) {
  (void)argc;
  (void)argv;
  const keal_sqlite_rows_info *info = (const keal_sqlite_rows_info *)aux;
  int rc = sqlite3_declare_vtab(db, info->schema);
  if (rc != SQLITE_OK) {
    *error = sqlite3_mprintf("%s: declaring %s(): %s", KEAL_SOURCE_FILE, info->name, sqlite3_errmsg(db));
    return rc;
  }
  /* Every function on this target is pure (no embedded SQL, no sql.*):
   * harmless in views and triggers, as its scalar functions are. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  keal_sqlite_rows_vtab *tab = (keal_sqlite_rows_vtab *)sqlite3_malloc(sizeof *tab);
  if (tab == NULL) return SQLITE_NOMEM;
  memset(tab, 0, sizeof *tab);
  tab->db = db;
  tab->info = info;
  *out = &tab->base;
  return SQLITE_OK;
}

static int keal_sqlite_rows_disconnect(sqlite3_vtab *base) {
  sqlite3_free(base);
  return SQLITE_OK;
}

/* Every parameter needs a usable `=` on its hidden column: its argument.
 * One that is there but not usable in this plan (its value comes from a
 * table joined later) makes the plan impossible (SQLITE_CONSTRAINT), so the
 * planner puts that table first; one that is not there at all is a call
 * with too few arguments. */
static int keal_sqlite_rows_best_index(sqlite3_vtab *base, sqlite3_index_info *index) {
  keal_sqlite_rows_vtab *tab = (keal_sqlite_rows_vtab *)base;
  const keal_sqlite_rows_info *info = tab->info;
  bool unusable = false;
  for (int p = 0; p < info->params; ++p) {
    int found = -1;
    bool seen = false;
    for (int c = 0; c < index->nConstraint; ++c) {
      const struct sqlite3_index_constraint *k = &index->aConstraint[c];
      if (k->iColumn != info->columns + p || k->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      seen = true;
      if (k->usable) {
        found = c;
        break;
      }
    }
    if (found >= 0) {
      index->aConstraintUsage[found].argvIndex = p + 1;
      index->aConstraintUsage[found].omit = 1;
    } else if (seen) {
      unusable = true;
    } else {
      sqlite3_free(base->zErrMsg);
      base->zErrMsg = sqlite3_mprintf("%s: %s(): argument %d (%s) is missing: call it as %s", KEAL_SOURCE_FILE, info->name,
                                      p + 1, info->param_names[p], info->call_form);
      return SQLITE_ERROR;
    }
  }
  if (unusable) return SQLITE_CONSTRAINT;
  /* The row count is unknown; any fixed guess keeps joins' order stable. */
  index->estimatedCost = 1000.0;
  index->estimatedRows = 1000;
  return SQLITE_OK;
}

static int keal_sqlite_rows_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  keal_sqlite_rows_cursor *cur = (keal_sqlite_rows_cursor *)sqlite3_malloc(sizeof *cur);
  if (cur == NULL) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  cur->eof = true;
  *out = &cur->base;
  return SQLITE_OK;
}

/* Ends the rows: the call's arena (every text the body made), its poll
 * statement, the frame and the copied arguments. */
static void keal_sqlite_rows_reset(keal_sqlite_rows_cursor *cur, int params) {
  if (cur->frame != NULL) {
    if (cur->call.poll_state != NULL) sqlite3_finalize((sqlite3_stmt *)cur->call.poll_state);
    cur->call.poll_state = NULL;
    keal_call_end(&cur->call);
    sqlite3_free(cur->frame);
    cur->frame = NULL;
  }
  if (cur->args != NULL) {
    for (int i = 0; i < params; ++i) sqlite3_value_free(cur->args[i]);
    sqlite3_free(cur->args);
    cur->args = NULL;
  }
  cur->eof = true;
}

static int keal_sqlite_rows_close(sqlite3_vtab_cursor *base) {
  keal_sqlite_rows_cursor *cur = (keal_sqlite_rows_cursor *)base;
  keal_sqlite_rows_reset(cur, ((keal_sqlite_rows_vtab *)base->pVtab)->info->params);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Runs the generator to its next row or its end; noinline, and the only
 * function that calls it, so the setjmp costs one frame per row and the
 * generator's locals stay in registers (entry_points.hpp's reason). */
static __attribute__((noinline)) int keal_sqlite_rows_advance(keal_sqlite_rows_cursor *cur) {
  keal_sqlite_rows_vtab *tab = (keal_sqlite_rows_vtab *)cur->base.pVtab;
  int rc = SQLITE_OK;
  keal_current = &cur->call;
  if (KEAL_SETJMP(&cur->call) == 0) {
    cur->eof = !tab->info->next(cur->frame);
  } else {
    cur->eof = true;
    sqlite3_free(tab->base.zErrMsg);
    if (cur->call.message == NULL) {
      tab->base.zErrMsg = NULL;
      rc = SQLITE_NOMEM;
    } else {
      tab->base.zErrMsg = sqlite3_mprintf("%.*s", (int)cur->call.message_len, cur->call.message);
      rc = strcmp(cur->call.sqlstate, "57014") == 0 ? SQLITE_INTERRUPT : SQLITE_ERROR;
      free(cur->call.message);
      cur->call.message = NULL;
    }
  }
  keal_current = NULL;
  return rc;
}

static int keal_sqlite_rows_filter(sqlite3_vtab_cursor *base, int plan, const char *plan_text, int argc, sqlite3_value **argv) {
  (void)plan;
  (void)plan_text;
  keal_sqlite_rows_cursor *cur = (keal_sqlite_rows_cursor *)base;
  keal_sqlite_rows_vtab *tab = (keal_sqlite_rows_vtab *)base->pVtab;
  const keal_sqlite_rows_info *info = tab->info;
  keal_sqlite_rows_reset(cur, info->params);
  cur->rowid = 1;
  if (argc != info->params) return SQLITE_ERROR; /* xBestIndex asked for every parameter */
  if (info->params > 0) {
    cur->args = (sqlite3_value **)sqlite3_malloc((int)sizeof(sqlite3_value *) * info->params);
    if (cur->args == NULL) return SQLITE_NOMEM;
    memset(cur->args, 0, sizeof(sqlite3_value *) * (size_t)info->params);
    for (int i = 0; i < info->params; ++i) {
      cur->args[i] = sqlite3_value_dup(argv[i]);
      if (cur->args[i] == NULL) return SQLITE_NOMEM;
    }
  }
  cur->frame = sqlite3_malloc64(info->frame_size);
  if (cur->frame == NULL) return SQLITE_NOMEM;
  memset(cur->frame, 0, info->frame_size);
  keal_call_begin(&cur->call, tab->db);
  keal_current = NULL;
  keal_sqlite_arg_vtab = &tab->base;
  int bound = info->bind(cur->frame, cur->args);
  keal_sqlite_arg_vtab = NULL;
  if (bound < 0) return SQLITE_ERROR;
  if (bound == 0) return SQLITE_OK; /* eof: no rows */
  return keal_sqlite_rows_advance(cur);
}

static int keal_sqlite_rows_next(sqlite3_vtab_cursor *base) {
  keal_sqlite_rows_cursor *cur = (keal_sqlite_rows_cursor *)base;
  cur->rowid++;
  return keal_sqlite_rows_advance(cur);
}

static int keal_sqlite_rows_eof(sqlite3_vtab_cursor *base) { return ((keal_sqlite_rows_cursor *)base)->eof; }

static int keal_sqlite_rows_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int i) {
  keal_sqlite_rows_cursor *cur = (keal_sqlite_rows_cursor *)base;
  const keal_sqlite_rows_info *info = ((keal_sqlite_rows_vtab *)base->pVtab)->info;
  if (i < info->columns) info->column(cur->frame, ctx, i);
  else sqlite3_result_value(ctx, cur->args[i - info->columns]);
  return SQLITE_OK;
}

static int keal_sqlite_rows_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *out) {
  *out = ((keal_sqlite_rows_cursor *)base)->rowid;
  return SQLITE_OK;
}

static const sqlite3_module keal_sqlite_rows_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous-only: no CREATE VIRTUAL TABLE */
    .xConnect = keal_sqlite_rows_connect,
    .xBestIndex = keal_sqlite_rows_best_index,
    .xDisconnect = keal_sqlite_rows_disconnect,
    .xDestroy = NULL,
    .xOpen = keal_sqlite_rows_open,
    .xClose = keal_sqlite_rows_close,
    .xFilter = keal_sqlite_rows_filter,
    .xNext = keal_sqlite_rows_next,
    .xEof = keal_sqlite_rows_eof,
    .xColumn = keal_sqlite_rows_column,
    .xRowid = keal_sqlite_rows_rowid,
};

#endif /* KEAL_SQLITE_ROWS_H */
