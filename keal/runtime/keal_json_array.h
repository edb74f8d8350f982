/*
 * keal_json_array.h: Keal arrays as JSON array text, for the targets whose
 * servers have no array type (SQLite, MariaDB; included by keal_embedded.h's
 * users after keal_rt.h).
 *
 * Reading: the JSON is parsed by simdjson, in C++ behind a C ABI
 * (json_array.cpp, the archive libkeal_json.a the driver links into
 * SQLite extensions and MariaDB UDF libraries). The parser checks
 * everything (syntax, element types, NULLs, UTF-8) and hands back plain
 * items and one block of strings, malloc'd; the Keal error, if any, is
 * raised here, after the C++ frames are gone (keal_error longjmps).
 * Writing: JSON text as PostgreSQL's array_to_json writes the same array
 * (no spaces, floats as float8out, NaN and Infinity as strings, bytes as
 * "\x.." hex), so a result reads the same on every server.
 */
#ifndef KEAL_JSON_ARRAY_H
#define KEAL_JSON_ARRAY_H

typedef struct keal_json_item {
  int64_t i;
  double f;
  int64_t off; /* text, char, bytes: the decoded bytes at strings + off */
  int64_t len;
  unsigned char is_null;
  unsigned char b;
} keal_json_item;

typedef struct keal_json_parsed {
  keal_json_item *items;
  int64_t count;
  char *strings;
  char sqlstate[6];
  char error[240];
} keal_json_parsed;

/* 0 and the items, or -1 with sqlstate and error set (nothing to free). */
int keal_json_parse_array(const char *json, size_t len, int kind, int nullable, const char *param, keal_json_parsed *out);
void keal_json_parsed_free(keal_json_parsed *parsed);

static inline keal_array keal_json_array_in(keal_text json, int kind, bool nullable, int line, const char *param) {
  keal_json_parsed p;
  if (keal_json_parse_array(json.ptr, (size_t)json.len, kind, nullable, param, &p) != 0) {
    char sqlstate[6];
    char msg[sizeof p.error];
    memcpy(sqlstate, p.sqlstate, sizeof sqlstate);
    memcpy(msg, p.error, sizeof msg);
    keal_error(line, sqlstate, msg, (int64_t)strlen(msg));
  }
  static const size_t sizes[] = {sizeof(int64_t), sizeof(double), sizeof(bool), sizeof(keal_text), sizeof(keal_char), sizeof(keal_bytes)};
  static const size_t opt_sizes[] = {sizeof(keal_opt_int), sizeof(keal_opt_float), sizeof(keal_opt_bool),
                                     sizeof(keal_opt_text), sizeof(keal_opt_char), sizeof(keal_opt_bytes)};
  keal_array out = keal_array_empty();
  if (p.count > 0) {
    char *d = keal_array_new(&out, p.count, nullable ? opt_sizes[kind] : sizes[kind]);
    char *strings = NULL;
    int64_t total = 0;
    for (int64_t k = 0; k < p.count; k++) total += p.items[k].len;
    if (total > 0) {
      strings = (char *)keal_alloc((size_t)total);
      memcpy(strings, p.strings, (size_t)total);
    }
    for (int64_t k = 0; k < p.count; k++) {
      const keal_json_item *it = &p.items[k];
      keal_text s = {strings != NULL ? strings + it->off : "", it->len, 0};
      keal_char c = 0;
      if (kind == KEAL_ELEM_CHAR && !it->is_null) keal_next_char(s.ptr, s.len, 0, &c);
      switch (kind) {
        case KEAL_ELEM_INT:
          if (nullable) ((keal_opt_int *)d)[k] = (keal_opt_int){it->is_null, it->i};
          else ((int64_t *)d)[k] = it->i;
          break;
        case KEAL_ELEM_FLOAT:
          if (nullable) ((keal_opt_float *)d)[k] = (keal_opt_float){it->is_null, it->f};
          else ((double *)d)[k] = it->f;
          break;
        case KEAL_ELEM_BOOL:
          if (nullable) ((keal_opt_bool *)d)[k] = (keal_opt_bool){it->is_null, it->b != 0};
          else ((bool *)d)[k] = it->b != 0;
          break;
        case KEAL_ELEM_CHAR:
          if (nullable) ((keal_opt_char *)d)[k] = (keal_opt_char){it->is_null, c};
          else ((keal_char *)d)[k] = c;
          break;
        default:
          if (nullable) ((keal_opt_text *)d)[k] = (keal_opt_text){it->is_null, s};
          else ((keal_text *)d)[k] = s;
          break;
      }
    }
  }
  keal_json_parsed_free(&p);
  return out;
}

/* ---- writing ---- */

typedef struct keal_json_out {
  char *data;
  int64_t len, cap;
} keal_json_out;

static __attribute__((noinline, unused)) void keal_json_reserve(keal_json_out *o, int64_t more) {
  if (o->len + more <= o->cap) return;
  int64_t cap = o->cap * 2 > o->len + more ? o->cap * 2 : o->len + more + 64;
  char *d = (char *)keal_alloc((size_t)cap);
  if (o->len > 0) memcpy(d, o->data, (size_t)o->len);
  o->data = d;
  o->cap = cap;
}

static inline void keal_json_put(keal_json_out *o, const char *p, int64_t n) {
  keal_json_reserve(o, n);
  memcpy(o->data + o->len, p, (size_t)n);
  o->len += n;
}

/* A JSON string, escaped as PostgreSQL's escape_json does. */
static inline void keal_json_put_string(keal_json_out *o, const char *p, int64_t n) {
  keal_json_put(o, "\"", 1);
  for (int64_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)p[k];
    const char *esc = NULL;
    switch (c) {
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      default: break;
    }
    if (esc != NULL) {
      keal_json_put(o, esc, 2);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      keal_json_put(o, buf, 6);
    } else {
      keal_json_put(o, (const char *)&p[k], 1);
    }
  }
  keal_json_put(o, "\"", 1);
}

static inline keal_text keal_json_array_out(keal_array a, int kind, bool nullable) {
  keal_json_out o = {NULL, 0, 0};
  keal_json_put(&o, "[", 1);
  static const size_t sizes[] = {sizeof(int64_t), sizeof(double), sizeof(bool), sizeof(keal_text), sizeof(keal_char), sizeof(keal_bytes)};
  static const size_t opt_sizes[] = {sizeof(keal_opt_int), sizeof(keal_opt_float), sizeof(keal_opt_bool),
                                     sizeof(keal_opt_text), sizeof(keal_opt_char), sizeof(keal_opt_bytes)};
  size_t size = nullable ? opt_sizes[kind] : sizes[kind];
  for (int64_t k = 0; k < a.len; k++) {
    if (k > 0) keal_json_put(&o, ",", 1);
    const char *e = a.data + (size_t)k * size;
    if (nullable && *(const bool *)e) {
      keal_json_put(&o, "null", 4);
      continue;
    }
    /* A nullable element is {bool is_null; T v}: v sits at T's alignment. */
    char buf[40];
    switch (kind) {
      case KEAL_ELEM_INT: {
        int64_t v = nullable ? ((const keal_opt_int *)e)->v : *(const int64_t *)e;
        keal_json_put(&o, buf, snprintf(buf, sizeof buf, "%lld", (long long)v));
        break;
      }
      case KEAL_ELEM_FLOAT: {
        double v = nullable ? ((const keal_opt_float *)e)->v : *(const double *)e;
        keal_text t = keal_float_to_text(v);
        if (isnan(v) || isinf(v)) keal_json_put_string(&o, t.ptr, t.len);
        else keal_json_put(&o, t.ptr, t.len);
        break;
      }
      case KEAL_ELEM_BOOL: {
        bool v = nullable ? ((const keal_opt_bool *)e)->v : *(const bool *)e;
        keal_json_put(&o, v ? "true" : "false", v ? 4 : 5);
        break;
      }
      case KEAL_ELEM_CHAR: {
        keal_char v = nullable ? ((const keal_opt_char *)e)->v : *(const keal_char *)e;
        keal_json_put_string(&o, buf, keal_encode_utf8(v, buf));
        break;
      }
      case KEAL_ELEM_TEXT: {
        keal_text v = nullable ? ((const keal_opt_text *)e)->v : *(const keal_text *)e;
        keal_json_put_string(&o, v.ptr, v.len);
        break;
      }
      default: {
        keal_bytes v = nullable ? ((const keal_opt_bytes *)e)->v : *(const keal_bytes *)e;
        static const char hex[] = "0123456789abcdef";
        keal_json_put(&o, "\"\\\\x", 4);
        for (int64_t j = 0; j < v.len; j++) {
          unsigned char c = (unsigned char)v.ptr[j];
          char two[2] = {hex[c >> 4], hex[c & 15]};
          keal_json_put(&o, two, 2);
        }
        keal_json_put(&o, "\"", 1);
        break;
      }
    }
  }
  keal_json_put(&o, "]", 1);
  keal_text t = {o.data, o.len, 0};
  return t;
}

#endif /* KEAL_JSON_ARRAY_H */
