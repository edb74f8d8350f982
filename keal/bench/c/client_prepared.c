/* The C libpq control of keal_client_bench: the query prepared once
 * (PQprepare), then executed N times with a binary int8 parameter and binary
 * results, as a careful C client does. Prints the checksum the other
 * contenders print: the sum of the scores and the total length of the names.
 *
 *   client_prepared N   (connection from $DATABASE_URL, else the PG* variables)
 */
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(PGconn *c, const char *what) {
  fprintf(stderr, "client_prepared: %s: %s", what, PQerrorMessage(c));
  exit(1);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  const char *url = getenv("DATABASE_URL");
  PGconn *c = PQconnectdb(url != NULL ? url : "");
  if (PQstatus(c) != CONNECTION_OK) fail(c, "connect");
  Oid types[1] = {20}; /* int8 */
  PGresult *p = PQprepare(c, "q", "select name, score from bench_users where id = $1", 1, types);
  if (PQresultStatus(p) != PGRES_COMMAND_OK) fail(c, "prepare");
  PQclear(p);
  double total = 0;
  long long chars = 0;
  for (long i = 0; i < n; i++) {
    uint64_t id = __builtin_bswap64((uint64_t)(i % 1000 + 1));
    const char *values[1] = {(const char *)&id};
    int lengths[1] = {8};
    int formats[1] = {1};
    PGresult *r = PQexecPrepared(c, "q", 1, values, lengths, formats, 1);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) fail(c, "execute");
    chars += PQgetlength(r, 0, 0);
    uint64_t bits;
    memcpy(&bits, PQgetvalue(r, 0, 1), 8);
    bits = __builtin_bswap64(bits);
    double score;
    memcpy(&score, &bits, 8);
    total += score;
    PQclear(r);
  }
  printf("%.17g %lld\n", total, chars);
  PQfinish(c);
  return 0;
}
