/*
 * keal_pg_query_loop.h: `for r in query ...` in PostgreSQL functions
 * (included by keal_pg_sql.h).
 *
 * A query loop opens an SPI cursor on its saved plan and fetches the rows in
 * batches of KEAL_SPI_BATCH straight into an array of the loop's Keal row
 * type: the executor hands each row (a slot) to the loop's DestReceiver, a
 * keal_spi_batch, whose receive function (generated per statement) reads the
 * declared columns from the slot's Datums. No tuple is copied:
 * SPI_cursor_fetch would form a heap tuple per row into an SPITupleTable,
 * which cost more than the scan that produced the row.
 *
 * - The portal is run with PortalRunFetch, as SPI_cursor_fetch does inside,
 *   under the statement's error context (the Keal line). The executor checks
 *   for interrupts per row, and so does the loop (KEAL_LOOP_CHECK), so
 *   statement_timeout and cancel stop it.
 * - Memory stays bounded for any result: one batch at a time. A batch's rows
 *   live until the next fetch. Texts are copied out of the slot (its data is
 *   the buffer page's, valid only while the executor holds the row) into
 *   memory that the next fetch resets, or, when something made in an
 *   iteration may outlive it (the emitter decides), into the memory the loop
 *   started in.
 * - Errors keep their row-at-a-time timing: a row with a column that cannot
 *   become its declared type (NULL for a non-nullable type, 22004; a char
 *   column that is not one character, 22023) is only marked in the batch and
 *   raised when the loop reaches that row, so a loop that breaks or returns
 *   earlier never sees it. The result's column types are checked (42804) on
 *   the first row received, before any value is read from it; a query that
 *   returns no row is not checked, as before.
 * - The body may run other statements between rows: the batch is the loop's
 *   own, not SPI_tuptable, and the cursor is its own portal.
 * - Leaving the loop (its end, break, return) closes the cursor and deletes
 *   the loop's memory (keal_spi_batch_end); an error leaves both to the
 *   transaction's abort and the function's memory context.
 */
#ifndef KEAL_PG_QUERY_LOOP_H
#define KEAL_PG_QUERY_LOOP_H

#include "tcop/dest.h"
#include "tcop/pquery.h"

/* Rows fetched per run of the executor in a query loop. */
#define KEAL_SPI_BATCH 1000

typedef struct keal_spi_batch {
  DestReceiver pub;       /* first: the executor calls pub.receiveSlot */
  void *rows;             /* KEAL_SPI_BATCH rows of the statement's Keal row type */
  int32 *bad;             /* per row: 0, or which column cannot be read (the statement's keal_q_bad_N) */
  uint32 n;               /* rows in the current batch */
  bool checked;           /* the result's columns were checked against the declared row */
  bool reset_texts;       /* texts live one batch: `texts` is reset before each fetch */
  MemoryContext texts;    /* where the receive function copies texts */
  MemoryContext loop;     /* the loop's memory: rows, bad, a batch's texts, the rows' own contexts */
} keal_spi_batch;

static void keal_spi_batch_startup(DestReceiver *self, int operation, TupleDesc typeinfo) {
  (void)operation;
  (void)typeinfo;
  ((keal_spi_batch *)self)->n = 0;
}

static void keal_spi_batch_nothing(DestReceiver *self) { (void)self; }

/* Before the loop's first fetch, in the memory the loop runs in. `reads_texts`:
 * some column is text, bytes or char. `keep_texts`: something made in an
 * iteration may outlive it, so texts are copied into the current memory
 * context and never reset. */
static __attribute__((unused)) void keal_spi_batch_begin(keal_spi_batch *b, bool (*receive)(TupleTableSlot *, DestReceiver *),
                                                         size_t row_size, bool can_be_bad, bool reads_texts, bool keep_texts) {
  b->pub.receiveSlot = receive;
  b->pub.rStartup = keal_spi_batch_startup;
  b->pub.rShutdown = keal_spi_batch_nothing;
  b->pub.rDestroy = keal_spi_batch_nothing;
  b->pub.mydest = DestNone;
  b->n = 0;
  b->checked = false;
  b->loop = AllocSetContextCreate(CurrentMemoryContext, "keal query loop", ALLOCSET_DEFAULT_SIZES);
  b->rows = MemoryContextAlloc(b->loop, row_size * KEAL_SPI_BATCH);
  b->bad = can_be_bad ? (int32 *)MemoryContextAlloc(b->loop, sizeof(int32) * KEAL_SPI_BATCH) : NULL;
  b->reset_texts = reads_texts && !keep_texts;
  b->texts = !b->reset_texts ? CurrentMemoryContext
                             : AllocSetContextCreate(b->loop, "keal query loop texts", ALLOCSET_DEFAULT_SIZES);
}

/* The next batch: how many rows it holds (fewer than KEAL_SPI_BATCH only
 * at the end of the result). */
static inline uint32 keal_spi_batch_fetch(Portal portal, keal_spi_batch *b, int line) {
  if (b->reset_texts) MemoryContextReset(b->texts);
  KEAL_SPI_CONTEXT(line);
  b->n = 0;
  PortalRunFetch(portal, FETCH_FORWARD, KEAL_SPI_BATCH, &b->pub);
  KEAL_SPI_CONTEXT_END();
  return b->n;
}

/* Leaving the loop: its cursor and its memory. */
static inline void keal_spi_batch_end(Portal portal, keal_spi_batch *b) {
  SPI_cursor_close(portal);
  MemoryContextDelete(b->loop);
}

/* A row's own memory (what the body makes), reset after each row; a reset
 * context (the body made nothing) costs nothing to reset. */
static inline void keal_spi_row_reset(MemoryContext row) {
  if (!row->isReset || row->firstchild != NULL) MemoryContextReset(row);
}

/* A char column's value, or false when it is not one character (22023 when
 * the loop reaches the row). */
static inline bool keal_spi_char_ok(Datum d, Oid type, keal_char *out) {
  const char *p;
  int64_t len;
  if (type == NAMEOID) {
    p = NameStr(*DatumGetName(d));
    len = (int64_t)strlen(p);
  } else {
    text *t = DatumGetTextPP(d);
    p = VARDATA_ANY(t);
    len = (int64_t)VARSIZE_ANY_EXHDR(t);
  }
  *out = 0;
  return len > 0 && keal_next_char(p, len, 0, out) == len;
}

static __attribute__((cold, noinline, noreturn, unused)) void keal_spi_bad_char(int line) {
  keal_fail(line, "22023", "a char column must hold text of exactly one character");
}

#endif /* KEAL_PG_QUERY_LOOP_H */
