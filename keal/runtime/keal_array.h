/*
 * keal_array.h: Keal arrays `[T]`, included by keal_rt.h (every target).
 *
 * An array value is a view (data, len) of elements of one C type, plus the
 * buffer it was built in, if any. Values are immutable: append(xs, v)
 * returns a new value. It writes in place when xs ends where its buffer's
 * used part ends and there is room (so `xs = append(xs, v)` in a loop is
 * amortised O(1) per element: the capacity doubles), and copies otherwise
 * (so an older value that shares the buffer never sees the write: a second
 * append to it finds `used` past its end and copies). A view of memory that
 * is not ours (a PostgreSQL array argument read in place) has no buffer.
 * Memory comes from keal_alloc: it lives for the call.
 */
#ifndef KEAL_ARRAY_H
#define KEAL_ARRAY_H

typedef struct keal_array_buf {
  int64_t used; /* elements written; a view may append in place iff its len == used */
  int64_t cap;
} keal_array_buf;

typedef struct keal_array {
  char *data;
  int64_t len;
  keal_array_buf *buf; /* NULL: not appendable in place */
} keal_array;

/* An element type at the edges (entry points): the Keal scalar it holds. */
enum keal_elem_kind { KEAL_ELEM_INT, KEAL_ELEM_FLOAT, KEAL_ELEM_BOOL, KEAL_ELEM_TEXT, KEAL_ELEM_CHAR, KEAL_ELEM_BYTES };

/* Element storage starts after the header, aligned for any element type. */
#define KEAL_ARRAY_HEADER ((sizeof(keal_array_buf) + 15u) & ~(size_t)15u)

static inline keal_array keal_array_empty(void) {
  keal_array a = {NULL, 0, NULL};
  return a;
}

/* A new array of n elements (to be filled in) with room for cap. */
static inline char *keal_array_alloc(keal_array *out, int64_t n, int64_t cap, size_t size) {
  char *base = (char *)keal_alloc(KEAL_ARRAY_HEADER + (size_t)cap * size);
  keal_array_buf *buf = (keal_array_buf *)base;
  buf->used = n;
  buf->cap = cap;
  out->data = base + KEAL_ARRAY_HEADER;
  out->len = n;
  out->buf = buf;
  return out->data;
}

static inline char *keal_array_new(keal_array *out, int64_t n, size_t size) { return keal_array_alloc(out, n, n, size); }

/* A copy of a with room for at least one more element. */
static __attribute__((noinline, unused)) keal_array keal_array_grow(keal_array a, size_t size) {
  int64_t cap = a.len < 4 ? 8 : a.len * 2;
  if (KEAL_UNLIKELY((uint64_t)cap > (uint64_t)(INT64_MAX / 2) / size)) keal_fail(0, "54000", "array too large");
  keal_array out;
  char *d = keal_array_alloc(&out, a.len, cap, size);
  if (a.len > 0) memcpy(d, a.data, (size_t)a.len * size);
  return out;
}

static inline keal_array keal_array_push(keal_array a, const void *v, size_t size) {
  if (KEAL_UNLIKELY(a.buf == NULL || a.buf->used != a.len || a.len == a.buf->cap)) a = keal_array_grow(a, size);
  memcpy(a.data + (size_t)a.len * size, v, size);
  a.len++;
  a.buf->used = a.len;
  return a;
}

static KEAL_COLD void keal_fail_index(int line, int64_t i, int64_t len) {
  char msg[96];
  int n = snprintf(msg, sizeof msg, "array index %lld is out of range (length %lld)", (long long)i, (long long)len);
  keal_error(line, "2202E", msg, n);
}

/* i, when 0 <= i < a.len; else the runtime error 2202E (array_subscript_error). */
static inline int64_t keal_array_at(keal_array a, int64_t i, int line) {
  if (KEAL_UNLIKELY((uint64_t)i >= (uint64_t)a.len)) keal_fail_index(line, i, a.len);
  return i;
}

#endif /* KEAL_ARRAY_H */
