/* The other C libpq control of keal_client_bench: the query text sent with
 * every execution (PQexecParams: parsed and planned by the server each
 * time), a text parameter and text results. Same checksum as the others.
 *
 *   client_text N   (connection from $DATABASE_URL, else the PG* variables)
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

static void fail(PGconn *c, const char *what) {
  fprintf(stderr, "client_text: %s: %s", what, PQerrorMessage(c));
  exit(1);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  const char *url = getenv("DATABASE_URL");
  PGconn *c = PQconnectdb(url != NULL ? url : "");
  if (PQstatus(c) != CONNECTION_OK) fail(c, "connect");
  double total = 0;
  long long chars = 0;
  for (long i = 0; i < n; i++) {
    char id[24];
    snprintf(id, sizeof id, "%ld", i % 1000 + 1);
    const char *values[1] = {id};
    PGresult *r = PQexecParams(c, "select name, score from bench_users where id = $1::int8", 1, NULL, values, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) fail(c, "execute");
    chars += PQgetlength(r, 0, 0);
    total += strtod(PQgetvalue(r, 0, 1), NULL);
    PQclear(r);
  }
  printf("%.17g %lld\n", total, chars);
  PQfinish(c);
  return 0;
}
