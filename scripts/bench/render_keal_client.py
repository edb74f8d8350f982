#!/usr/bin/env python3
"""Renders docs/benchmarks/keal-client.md from keal_client_bench's JSON capture."""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--command", default="scripts/bench/run_keal_client.sh")
    ap.add_argument("--date", default="")
    a = ap.parse_args()
    c = json.load(open(a.capture))
    m = c["machine"]
    med = statistics.median
    clients = {x["name"]: x for x in c["clients"]}
    loops = {x["name"]: x for x in c["loop"]}

    def goal(ok):
        return "met" if ok else "**not met**"

    keal, cprep = clients["Keal client"], clients["C, prepared once"]
    best_ratio = min(keal["wall_ms"]) / min(cprep["wall_ms"])
    median_ratio = med(keal["wall_ms"]) / med(cprep["wall_ms"])
    cpu_ratio = med(keal["cpu_ms"]) / med(cprep["cpu_ms"])
    loop_ratio = med(loops["Keal"]["ms"]) / med(loops["PL/pgSQL"]["ms"])
    loop_best_ratio = min(loops["Keal"]["ms"]) / min(loops["PL/pgSQL"]["ms"])
    has_cpu = all(x["backend_cpu_ms"] for x in c["loop"])
    loop_cpu_ratio = (med(loops["Keal"]["backend_cpu_ms"]) / med(loops["PL/pgSQL"]["backend_cpu_ms"])) if has_cpu else None
    instr = {x["name"]: x.get("instructions") for x in c["clients"]}

    def minstr(name):
        v = instr.get(name)
        return "-" if v is None else f"{v / 1e6:.1f}M"
    loaded = max(m["load_average_at_start"][0], m["load_average_at_end"][0]) > m["cores"]
    load_note = (": the machine was shared with other builds and tests, so the wall-clock times are inflated and noisy;"
                 " the rounds interleave the contenders so the noise falls on all alike"
                 if loaded else "; nothing else of note ran")
    q = c["queries"]
    rows = "\n".join(
        f"| {x['name']} | {min(x['wall_ms']):.1f} | {med(x['wall_ms']):.1f} | {med(x['wall_ms']) * 1000 / q:.1f} "
        f"| {med(x['cpu_ms']):.1f} | {minstr(x['name'])} | {med(x['wall_ms']) / med(cprep['wall_ms']):.3f}x | {x['checksum']} |"
        for x in c["clients"])
    loop_rows = "\n".join(
        f"| {x['name']} | {min(x['ms']):.1f} | {med(x['ms']):.1f} | "
        f"{(str(round(med(x['backend_cpu_ms']), 1)) if x['backend_cpu_ms'] else '-')} | "
        f"{med(x['ms']) / med(loops['PL/pgSQL']['ms']):.3f}x | {x['sum']} |" for x in c["loop"])
    out = f"""# Keal clients against psql and C libpq; a Keal query loop against PL/pgSQL

The first table of the Keal benchmark page. Rendered by
`scripts/bench/render_keal_client.py` from
`docs/benchmarks/keal-client-capture.json`; measured with `{a.command}`{(' on ' + a.date) if a.date else ''}.

Machine: {m['host']}, {m['cpu']}, {m['cores']} cores; load average
{m['load_average_at_start'][0]:.2f} at the start, {m['load_average_at_end'][0]:.2f} at the end{load_note}.
Server: {c['server']} (the private instance of `scripts/servers/start`,
on 127.0.0.1). {c['rounds']} rounds; best and median of the rounds.

## The same query {q:,} times on one connection

`select name, score from bench_users where id = $1` (1,000 users; `id`
cycles through them), each contender a process of its own, timed from its
start to its exit (connecting included, the same for all). Client CPU is the
process's own user + system time (`wait4`); the server's work is the same
for every contender but the text one (which the server parses and plans
each time) and is only in the wall clock.

- **psql EXECUTE**: `PREPARE q(int8) AS ...` then {q:,} lines `EXECUTE q(n);`
  in a script (`psql -X -q -At -f`), results printed (to `/dev/null`).
- **Keal client**: `keal/bench/programs/client.keal`, a loop of
  `query one ... as (name: text, score: float)`, built with
  `keal build --target native` (the statement prepared once per
  connection, binary results, through `sluice::postgres`).
- **C, prepared once**: `keal/bench/c/client_prepared.c`: `PQprepare` once,
  `PQexecPrepared` with a binary `int8` parameter and binary results.
- **C, text each time**: `keal/bench/c/client_text.c`: `PQexecParams` with
  the SQL text every time (parsed and planned each time), text results.

Every contender's checksum (sum of the scores, total length of the names)
agrees before anything is timed.

| contender | best (ms) | median (ms) | per query, median (µs) | client CPU, median (ms) | client instructions (callgrind) | median / C prepared | checksum |
|---|---:|---:|---:|---:|---:|---:|---|
{rows}

Goal: the Keal client within 1.05x of C prepared, on the median of the
rounds: {median_ratio:.3f}x: {goal(median_ratio <= 1.05)} (best of the rounds: {best_ratio:.3f}x; on a shared
machine the best is one lucky round and the median is the figure to judge).
The client's own CPU time is {cpu_ratio:.2f}x C's; its user-space
instructions (one run under `valgrind --tool=callgrind`, which does not
depend on the load) are {minstr('Keal client')} against {minstr('C, prepared once')}: the difference,
about {((instr['Keal client'] or 0) - (instr['C, prepared once'] or 0)) / q:.0f} instructions a query, is the C++ layer
(`sluice::postgres`: encoding the parameter, the result object, typed
reads), the Keal program's own work (the `name` text copied, checked
arithmetic) and the C++ runtime's start-up. Every contender makes the same
system calls (one `sendto`, one `poll`, one `recvfrom` a query). On a quiet
machine the client and the server run on different vCPUs that halt while
they wait, and each query resumes with cold caches and TLB: there the code
and data a query touches cost more than the instruction count says, which is
why the Keal runtime keeps its per-query path small and together
([keal-client-notes.md](keal-client-notes.md)).

## A query loop over 300,000 rows, inside the server

`SELECT loop_sum()`: the Keal function of `keal/bench/programs/bench.keal`
(`for r in query "select id from words"`: an SPI cursor whose rows the
executor hands to the loop's own DestReceiver, 1,000 a batch, values read
straight from the slots' Datums with no tuple copied), against the same loop in PL/pgSQL
(`FOR i IN SELECT id FROM words`) and the plain aggregate `sum(id)`.

Each round calls each function {c.get('loop_calls_per_round', 1)} times; the times are per call. Backend CPU is
the server process's own user + system time (`/proc/PID/stat`, per call),
less sensitive to the load than the wall clock.

| contender | best (ms) | median (ms) | backend CPU, median (ms) | median / PL/pgSQL | sum |
|---|---:|---:|---:|---:|---:|
{loop_rows}

Goal: the Keal query loop at most half of PL/pgSQL's time, on the median
wall clock: {loop_ratio:.3f}x: {goal(loop_ratio <= 0.5)} (best of the rounds {loop_best_ratio:.3f}x{(f"; backend CPU {loop_cpu_ratio:.3f}x" if loop_cpu_ratio is not None else "")}).

## Re-running

```sh
{a.command}
```

builds the release preset's `keal_client_bench`, runs it (a private
PostgreSQL of its own unless `$SLUICE_ENV_FILE` names one) and renders this
page from the new capture.
"""
    open(a.output, "w").write(out)


if __name__ == "__main__":
    main()
