#!/usr/bin/env python3
"""Render docs/benchmarks/mariadb.md from mariadb_speed_bench JSON captures.

    scripts/bench/render_mariadb_speed.py CAPTURE.json [MORE.json ...] [-o docs/benchmarks/mariadb.md]

The first capture is the report's main table. Each further capture (a later
run of some workloads only, e.g. `--only point_sequential,...` for the
pipeline rows) gets a section of its own, with its own command, date,
machine and method: a ratio is only ever read within one capture, i.e. one
run on one server.

The report is generated, never edited by hand: every figure in it comes from
the capture (medians over processes, latency percentiles, allocations), and
it names the machine, the server settings and the command that produced it.
"""
import argparse
import json
import sys

# The goals for the same-build ratios (delta of Current against
# Baseline); read from the benchmark, never asserted in tests. The -82% bulk
# goal is read against the multi-statement text batch (one INSERT per row);
# the multi-row VALUES batch ("bulk_vs_text") is shown without a goal (see
# docs/mariadb-speed.md, "Benchmark"), and so is "pool_reset_2" (a pool of
# two connections with the ready-first borrow; the -98% goal is read on the
# issue's one-connection "pool_reset" row), and so is "pool_held" (the same
# request with no pool: the floor any reset is measured above).
GOALS = {
    "bulk_vs_sequential": -95.0,
    "bulk_vs_text_statements": -82.0,
    "metadata_cache": -26.0,
    "pool_reset": -98.0,
    "cursor": 130.0,
    # Issue 17: pipelined point SELECTs at most 0.2x the sequential time
    # (and 0.2x Connector/C's sequential, checked in the pipeline notes),
    # pipelined inserts within 1.5x of native bulk.
    "pipeline_point_16": -80.0,
    "pipeline_point_64": -80.0,
    "pipeline_point_256": -80.0,
    "pipeline_insert_vs_bulk": 50.0,
}
# Rows whose Current has no Connector/C profile (it cannot pipeline): their
# last column is read against Connector/C's Baseline (its best) instead.
VS_CC_BASELINE = {"pipeline_point_16", "pipeline_point_64", "pipeline_point_256"}
PIPELINE_VS_CC_GOAL = 0.20
# Issue 29: 64 connections on one thread. The goals are read against
# Connector/C's non-blocking API on one thread (the row's Connector/C
# current): sluice's time at most 1.0x of it (throughput at least 1.0x),
# and sluice's client CPU per SELECT at most 0.8x of Connector/C's.
ASYNC_ROWS = {"async_64_vs_threads"}
ASYNC_TIME_VS_CC_GOAL = 1.0
ASYNC_CPU_VS_CC_GOAL = 0.8


def fmt(value, unit):
    if value is None:
        return "—"
    if unit == "bytes retained":
        if value < (1 << 20):
            return f"{value / 1024:.0f} KiB"
        return f"{value / (1 << 20):.2f} MiB"
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def header_lines(cap, w):
    w(f"- Command: `{cap['command']}`")
    w(f"- Date (UTC): {cap['date_utc']}")
    m = cap["machine"]
    meth = cap["method"]
    load = (f"load average {meth['loadavg_start'].split()[0]} at the start, {meth['loadavg_end'].split()[0]} at the end"
            if "loadavg_start" in meth else "shared with other work while measuring")
    w(f"- Machine: {m['cpu']}, {m['cpus']} CPUs online, {m['memory']} memory, {m['kernel']} "
      f"({load}); Connector/C {m['connector_c']}")
    s = cap["server"]
    w("- Server: MariaDB " + s.get("version", "?") + ", " + ", ".join(
        f"{k}={v}" for k, v in s.items() if k != "version"))
    w(f"- Method: {meth['processes']} independent processes per profile, {meth['warmups']} warm-up runs and "
      f"{meth['reps']} timed runs each (memory rows: one run per process, no warm-up), all processes in one "
      f"shuffled order (seed {meth['shuffle_seed']}); every run validated by count and checksum. Figures are "
      "medians over processes of each process's median run."
      + (f" Every client process was pinned to CPU {meth['client_cpu']} (the server was not): unpinned, "
         "processes landed in a fast or a slow placement for their whole life, which moved the medians more "
         "than the client did." if meth.get("client_cpu", -1) >= 0 else " Client processes were not pinned.")
      + (f" Before each process the driver waited for a quiet server (under 10% of a CPU over 100 ms; "
         f"median wait {meth['quiet_wait_ms_median']:.0f} ms, longest {meth['quiet_wait_ms_max']:.0f} ms), so "
         "that a write-heavy profile's background flushing does not land on the next process."
         if meth.get("quiet_server") else "")
      + (f" (This capture used {meth['processes']} processes per profile instead of the default 7.)"
         if meth["processes"] < 7 else ""))


def table(cap, w):
    prof = {(p["client"], p["workload"]): p for p in cap["profiles"]}

    def median(client, workload):
        p = prof.get((client, workload))
        return p["median"] if p else None

    w("| Row | Unit | Current (sluice) | Baseline (sluice) | Delta | Goal | Connector/C current | "
      "Connector/C baseline | sluice / C/C |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in cap["rows"]:
        unit = row["unit"]
        cur = median("sluice", row["current"])
        base = median("sluice", row["baseline"])
        if cur is None or base is None:
            continue
        delta = (cur - base) / base * 100 if base else None
        goal = GOALS.get(row["id"])
        goal_text = "—" if goal is None else f"{goal:+.0f}%"
        if goal is not None and delta is not None:
            met = delta <= goal
            goal_text += " ✓" if met else " ✗"
        ccur = median("connector-c", row["current"])
        cbase = median("connector-c", row["baseline"])
        ratio = f"{cur / ccur:.2f}" if ccur else "—"
        if ccur and row["id"] in ASYNC_ROWS:
            ratio += " ✓" if cur / ccur <= ASYNC_TIME_VS_CC_GOAL else " ✗"
        if not ccur and row["id"] in VS_CC_BASELINE and cbase:
            r = cur / cbase
            ratio = f"{r:.2f} of C/C baseline {'✓' if r <= PIPELINE_VS_CC_GOAL else '✗'}"
        w(f"| {row['title']} | {unit} | {fmt(cur, unit)} | {fmt(base, unit)} | "
          f"{'—' if delta is None else f'{delta:+.1f}%'} | {goal_text} | {fmt(ccur, unit)} | "
          f"{fmt(cbase, unit)} | {ratio} |")


def notes(cap, w):
    measured = {p["workload"] for p in cap["profiles"]}
    ids = {row["id"] for row in cap["rows"] if row["current"] in measured and row["baseline"] in measured}
    if ids & {"bulk_vs_text", "bulk_vs_text_statements"}:
        w("")
        w("The two text-batch rows are the two forms the design brief names for the same-build alternative: "
          "one INSERT per row sent as one multi-statement COM_QUERY (the issue's -82% goal applies here), and one "
          "multi-row INSERT ... VALUES statement (no goal; shown so the less flattering comparison is never hidden).")
    if "pool_reset_2" in ids:
        w("")
        w("The pool row with two connections (min_idle 2) has no goal: the issue's -98% is read on the "
          "one-connection row, where every borrow waits for the reset replies of the return just before it; with "
          "two, the borrow takes the connection whose replies have already arrived. Connector/C's control resets "
          "synchronously, so two connections change nothing for it.")
    if "pool_reset" in ids:
        w("")
        w("The reconnect baseline uses each client's defaults: sluice resumes the TLS session from a ticket kept "
          "from an earlier connection (`ConnectOptions::tls_session_reuse`, on by default; no certificate "
          "exchange), Connector/C makes a full handshake every time (libmariadb keeps no sessions). A faster "
          "reconnect shrinks what a reset saves against it.")
    if "pool_held" in ids:
        w("")
        w("The held-connection row is the floor under both pool rows: the same request (an execute of a prepared "
          "point query over TLS) on one connection held open, nothing reset, no pool. No goal; its delta against "
          "reconnect is the best any pool's reset could reach on this machine, server and reconnect.")
    if ids & VS_CC_BASELINE:
        w("")
        w("Pipeline rows (issue 17): Connector/C cannot pipeline, so its best for the point SELECTs is the "
          "sequential baseline (one prepared execute and fetch per SELECT); the last column of the pipelined rows "
          f"is sluice's pipelined time over that (goal: at most {PIPELINE_VS_CC_GOAL:.2f}). The goals of these rows "
          "are the issue's: pipelined point SELECTs at most 0.2x the sequential time (Delta -80%), pipelined "
          "inserts within 1.5x of native bulk (Delta at most +50%). A pipelined run's latency columns are the "
          "whole run (a step's reply is read long after it was queued).")
    if "server_loop_vs_bulk" in ids:
        w("")
        w("The server-floor rows (no goal) run the same 20,000 single-row INSERTs with no client in the way: one "
          "`CALL` of a stored procedure whose loop executes them inside one transaction, as a plain INSERT (parsed "
          "once, re-executed like a prepared statement) or as `EXECUTE ... USING` (the path of a prepared "
          "execute); a third row is the loop with no statement, its own share. If the server's own loop is above "
          "1.5x native bulk, no client can bring pipelined single-row INSERTs within 1.5x of bulk on this server: "
          "every pipelined step is one such statement, plus its packet and reply (docs/mariadb.md, Decisions).")
    if ids & ASYNC_ROWS:
        prof = {(p["client"], p["workload"]): p for p in cap["profiles"]}
        ours = prof.get(("sluice", "point_async_64"), {}).get("client_cpu_per_unit")
        theirs = prof.get(("connector-c", "point_async_64"), {}).get("client_cpu_per_unit")
        w("")
        w("Many connections (issue 29): the same 20,000 point SELECTs (text queries by primary key) spread over 64 "
          "connections, on one thread through the non-blocking APIs (sluice's `AsioConnection` coroutines; "
          "Connector/C's `mysql_real_query_start`/`_cont` and `mysql_store_result_start`/`_cont` driven by "
          "`poll`), against 64 threads with one blocking connection each, all pinned to the one client CPU. Goals "
          f"(the issue's): sluice's time at most {ASYNC_TIME_VS_CC_GOAL:.1f}x Connector/C's non-blocking time "
          f"(last column), and its client CPU per SELECT at most {ASYNC_CPU_VS_CC_GOAL:.1f}x Connector/C's.")
        if ours and theirs:
            r = ours / theirs
            w("")
            w(f"Client CPU per SELECT on one thread: sluice {fmt(ours, 'ns/select')} ns, Connector/C "
              f"{fmt(theirs, 'ns/select')} ns: {r:.2f}x {'✓' if r <= ASYNC_CPU_VS_CC_GOAL else '✗'} "
              f"(goal at most {ASYNC_CPU_VS_CC_GOAL:.1f}x).")
    cpu_table(cap, w)


def cpu_table(cap, w):
    rows = [p for p in cap["profiles"]
            if p.get("client_cpu_per_unit") is not None or p.get("server_cpu_per_unit") is not None]
    if not rows:
        return
    units = {}
    for row in cap["rows"]:
        units[row["current"]] = row["unit"]
        units[row["baseline"]] = row["unit"]
    w("")
    w("Where the time went: CPU time during the timed part of each run, per unit, median over processes of each "
      "process's median run; the client's is the bench process's own (`CLOCK_PROCESS_CPUTIME_ID`, user + "
      "system), the server's is every thread of mariadbd (its process CPU clock). The server's CPU per "
      "statement is what no client can remove; on a loaded machine CPU times grow too (shared caches, "
      "preemption), less than wall times.")
    w("")
    w("| Client | Workload | Wall | Client CPU (ns per unit) | Server CPU (ns per unit) | "
      "Server CPU / native bulk's (the unix rows: bulk over the socket) |")
    w("| --- | --- | ---: | ---: | ---: | ---: |")

    def bulk_cpu(workload):
        name = "insert_bulk_20k_unix" if workload.endswith("_unix") else "insert_bulk_20k"
        p = next((p for p in rows if p["client"] == "sluice" and p["workload"] == name), None)
        return p.get("server_cpu_per_unit") if p else None

    for p in sorted(rows, key=lambda p: (p["workload"], p["client"])):
        unit = units.get(p["workload"], "")
        server = p.get("server_cpu_per_unit")
        client = p.get("client_cpu_per_unit")
        base = bulk_cpu(p["workload"])
        ratio = f"{server / base:.2f}" if server is not None and base and unit == "ns/row" else "—"
        w(f"| {p['client']} | {p['workload']} | {fmt(p['median'], unit)} {unit} | "
          f"{fmt(client, unit)} | {fmt(server, unit)} | {ratio} |")


def profiles(cap, w):
    w("Latency percentiles are over operations of all timed runs of all processes: a request (pool), an "
      "execution (metadata cache), otherwise the whole run. Allocations: median operator-new calls per timed run "
      "(the client's and the workload's own); Connector/C allocates with malloc, which this counter does not "
      "see, so its column counts only the bench's own C++ allocations.")
    w("")
    w("| Client | Workload | Median | Min..max over processes | p50 | p95 | p99 | Allocations/run |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    units = {}
    for row in cap["rows"]:
        units[row["current"]] = row["unit"]
        units[row["baseline"]] = row["unit"]
    for p in sorted(cap["profiles"], key=lambda p: (p["workload"], p["client"])):
        unit = units.get(p["workload"], "")
        w(f"| {p['client']} | {p['workload']} | {fmt(p['median'], unit)} {unit} | "
          f"{fmt(p['min'], unit)}..{fmt(p['max'], unit)} | {fmt_ns(p['p50_ns'])} | {fmt_ns(p['p95_ns'])} | "
          f"{fmt_ns(p['p99_ns'])} | {p['allocations_per_run']:,.0f} |")


def extra_title(extra):
    measured = {p["workload"] for p in extra["profiles"]}
    ids = [r["id"] for r in extra["rows"] if r["current"] in measured and r["baseline"] in measured]
    if ids and all(i.startswith(("pipeline_", "server_")) for i in ids):
        return "Pipelines: many statements per round trip (issue 17)"
    if ids and all(i in ASYNC_ROWS for i in ids):
        return "Many connections on one thread: the non-blocking API (issue 29)"
    return "A later run: " + ", ".join(ids)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("captures", nargs="+", metavar="capture")
    parser.add_argument("-o", "--output", default="docs/benchmarks/mariadb.md")
    args = parser.parse_args()
    caps = []
    for path in args.captures:
        with open(path, encoding="utf-8") as f:
            caps.append(json.load(f))
    cap = caps[0]

    out = []
    w = out.append
    w("# MariaDB client: speed features (benchmark report)")
    w("")
    w("Generated by `scripts/bench/render_mariadb_speed.py` from a `mariadb_speed_bench` capture; "
      "do not edit by hand. Re-run the command below and render again.")
    w("")
    header_lines(cap, w)
    w("")
    w("Delta is Current against Baseline in the same build, same run, same server "
      "(negative: Current is faster or smaller). The control columns run the same workloads through "
      "Connector/C (its array binding, mysql_real_query on a CLIENT_MULTI_STATEMENTS connection, "
      "mysql_reset_connection, local-infile handler, cursor with prefetch, MYSQL_OPT_COMPRESS); the last column is sluice's Current over Connector/C's Current "
      "(below 1.00: sluice is faster).")
    w("")
    table(cap, w)
    notes(cap, w)
    for extra in caps[1:]:
        w("")
        w("## " + extra_title(extra))
        w("")
        w("Measured in a run of its own (the command below), so its ratios are read within this table only.")
        w("")
        header_lines(extra, w)
        w("")
        table(extra, w)
        notes(extra, w)
    w("")
    w("## Every profile")
    w("")
    profiles(cap, w)
    w("")
    for extra in caps[1:]:
        w("### " + extra_title(extra) + ": every profile")
        w("")
        profiles(extra, w)
        w("")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
