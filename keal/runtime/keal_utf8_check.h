/*
 * keal_utf8_check.h: text arriving from a host that does not promise UTF-8
 * (SQLite text, MariaDB strings in whatever character set the argument
 * had) is checked before Keal sees it: Keal text is valid UTF-8 without NUL,
 * as PostgreSQL's text is. Included after keal_rt.h.
 */
#ifndef KEAL_UTF8_CHECK_H
#define KEAL_UTF8_CHECK_H

/* Whether p[0..n) is valid UTF-8 with no NUL byte. */
static inline bool keal_utf8_ok(const char *p, int64_t n) {
  for (int64_t pos = 0; pos < n;) {
    unsigned char c = (unsigned char)p[pos];
    if (c == 0) return false;
    if (c < 0x80) {
      pos++;
      continue;
    }
    keal_char cp;
    int64_t next = keal_next_char_slow(p, n, pos, &cp);
    if (cp == 0xFFFD && next == pos + 1) return false;
    pos = next;
  }
  return true;
}

/* A char argument: text of exactly one character. */
static inline bool keal_one_char(const char *p, int64_t n, keal_char *out) {
  return n > 0 && keal_next_char(p, n, 0, out) == n;
}

#endif /* KEAL_UTF8_CHECK_H */
