/*
 * keal_float_text.h: text(x) for a float outside PostgreSQL (the native
 * flavour and the runtime's own test). It calls the routine float8out itself
 * uses (extra_float_digits > 0, the default): double_to_shortest_decimal_bufn
 * from PostgreSQL's libpgcommon (common/d2s.c, Ryu), so a native program
 * prints exactly what `x::text` prints. The driver links libpgcommon.a.
 */
#ifndef KEAL_FLOAT_TEXT_H
#define KEAL_FLOAT_TEXT_H

/* common/shortest_dec.h; declared here so no server header is needed. It
 * writes at most 25 bytes plus a NUL and handles NaN, Infinity and -0. */
int double_to_shortest_decimal_bufn(double f, char *result);

static inline keal_text keal_float_to_text(double v) {
  char buf[32];
  int n = double_to_shortest_decimal_bufn(v, buf);
  return keal_text_copy(buf, n);
}

#endif /* KEAL_FLOAT_TEXT_H */
