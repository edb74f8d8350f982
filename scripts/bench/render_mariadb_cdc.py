#!/usr/bin/env python3
"""Render docs/benchmarks/mariadb-cdc.md from a mariadb_cdc_bench JSON capture.

    scripts/bench/render_mariadb_cdc.py CAPTURE.json [-o docs/benchmarks/mariadb-cdc.md] [--command CMD]

Every figure comes from the capture: medians over the interleaved timed runs,
ratios against sluice's median, lag percentiles, resume times. The report is
generated, never edited by hand.
"""
import argparse
import json
import re
import statistics
import sys

# The goals: catch-up in at most a third of mariadb-binlog's time and
# 10x ZongJi's rate; lag p99 under 5 ms on loopback.
GOAL_BINLOG_RATIO = 3.0
GOAL_ZONGJI_RATIO = 10.0
GOAL_LAG_P99_MS = 5.0
# Issue 25: a transaction of any size in bounded memory, at least as fast as
# the same rows in 1,000-row transactions.
GOAL_LARGE_RSS_MIB = 64.0
# Issue 26: from the new primary's promotion to its first transaction
# delivered, with --failover-after 1.
GOAL_FAILOVER_S = 2.0


def med(values):
    return statistics.median(values) if values else None


def machine_load_at_start(machine):
    """The load average the bench wrote into its machine line, if any."""
    m = re.search(r"load average ([0-9.]+) at the start", machine)
    return float(m.group(1)) if m else None


def render_large(w, large):
    """The large-transaction row (issue 25): rows/s and peak RSS per size and shape."""
    w("## Large transaction")
    w("")
    date = f" ({large['date']}, {large['machine']})" if "date" in large else ""
    w(f"`cdc --out FILE --until-end` of N narrow rows (BIGINT, INT, CHAR(40)) inserted in **one transaction**, "
      f"against the same rows in 1,000-row transactions, and `cdc --snapshot` of the N-row table{date}. Both binlog "
      "runs read the same binlog span (both tables' rows) and format their own table's N rows; the shapes ran "
      f"interleaved in a shuffled order, {large['reps']} times each after one unrecorded warm-up pass of every shape; medians. Peak RSS is the process's VmHWM (wait4's ru_maxrss). "
      f"Goals: peak RSS ≤ {GOAL_LARGE_RSS_MIB:.0f} MiB at every size; one transaction at least as fast as "
      "1,000-row transactions."
      + (f" Command: `{large['command']}`." if large.get("command") else ""))
    w("")
    runs = large["runs"]
    has_cpu = all(r.get("cpu_seconds") for r in runs if r.get("seconds"))
    cpu_head, cpu_rule = (" CPU s | CPU vs 1,000-row |", " ---: | ---: |") if has_cpu else ("", "")
    w(f"| Rows | Shape | Median s | Rows/s | Peak RSS MiB (median, max) | vs 1,000-row transactions |{cpu_head} Goal |")
    w(f"| ---: | --- | ---: | ---: | ---: | ---: |{cpu_rule} --- |")
    batched = {r["rows"]: med(r["seconds"]) for r in runs if r["shape"].startswith("1,000-row")}
    batched_cpu = {r["rows"]: med(r.get("cpu_seconds", [])) for r in runs if r["shape"].startswith("1,000-row")}
    for r in runs:
        s = med(r["seconds"])
        if s is None:
            w(f"| {r['rows']:,} | {r['shape']} | — | — | — | — |{' — | — |' if has_cpu else ''} could not run: {r['error']} |")
            continue
        rss = med(r["peak_rss_mib"])
        rss_max = max(r["peak_rss_mib"])
        rate = r["rows"] / s
        base = batched.get(r["rows"])
        ratio = base / s if base else None
        goals = [f"RSS {'✓' if rss_max <= GOAL_LARGE_RSS_MIB else '✗'}"]
        if r["shape"] == "one transaction" and ratio is not None:
            goals.append(f"rate {'✓' if ratio >= 1.0 else '✗'}")
        ratio_text = f"{ratio:.2f}x" if ratio is not None and not r["shape"].startswith("1,000-row") else "1.00x" if r["shape"].startswith("1,000-row") else "—"
        cpu_cells = ""
        if has_cpu:
            cpu = med(r["cpu_seconds"])
            base_cpu = batched_cpu.get(r["rows"])
            cpu_cells = f" {cpu:.3f} | {base_cpu / cpu:.2f}x |" if base_cpu and cpu else f" {cpu:.3f} | — |"
        w(f"| {r['rows']:,} | {r['shape']} | {s:.3f} | {rate:,.0f} | {rss:.1f}, {rss_max:.1f} | {ratio_text} |{cpu_cells} {', '.join(goals)} |")
    w("")
    w("The ratio is the 1,000-row transactions' median time over this shape's (above 1: faster)"
      + ("; CPU is the process's user + system time (wait4's rusage), its ratio the same way" if has_cpu else "")
      + ". The rate goal is judged on the wall-time ratio.")
    setups = {}
    for r in runs:
        if r.get("setup_seconds"):
            setups[r["rows"]] = r["setup_seconds"]
    if setups:
        w("")
        w("Making each size's tables (one INSERT … SELECT of N rows, then N / 1,000 INSERTs of 1,000 rows) took "
          + ", ".join(f"{s:.0f} s for {n:,}" for n, s in sorted(setups.items())) + ".")
    w("")
    w("Commands (URL elided):")
    w("")
    for r in runs:
        w(f"- `{r['command']}`")
    w("")


def render_failover(cap, w):
    """The failover section (issue 26), measured by mariadb_cdc_failover_bench."""
    w("## Failover")
    w("")
    fo = cap.get("failover")
    if not fo:
        w("Not measured in this capture (`scripts/bench/run_mariadb_cdc.sh build/release --failover-only` adds it).")
        w("")
        return
    runs = {r["failover_after"]: r for r in fo["runs"]}
    goal_run, floor_run = runs.get(1), runs.get(0)
    w(f"Command: `{fo.get('command', 'scripts/bench/run_mariadb_cdc.sh')}`. "
      f"Measured {fo['date']} UTC on {fo['machine']}; load average {fo['load_at_end']:.2f} at the end. Each run: a "
      "fresh primary and replica (`scripts/servers/start --only mariadb,mariadb-replica`), "
      "`sluice-mariadb cdc mariadb://...@PRIMARY,REPLICA/sluice --from-start --failover-after N` caught up on 100 "
      "transactions, then the primary SIGKILLed, the replica promoted (`STOP ALL SLAVES; RESET SLAVE ALL; SET "
      "GLOBAL read_only=OFF`: from then on it accepts connections as the primary) and one INSERT committed there at "
      "once. Time from the promotion to the CLI printing that transaction's line; the two settings interleaved, "
      f"{fo['reps']} runs each, medians.")
    w("")
    w("| --failover-after | Promotion to first transaction delivered (median s) | min | max | Primary killed to delivered (median s) | Goal |")
    w("| ---: | ---: | ---: | ---: | ---: | --- |")
    for after, r in sorted(runs.items(), reverse=True):
        s = r["since_promotion_seconds"]
        k = r["since_kill_seconds"]
        goal = ""
        if after == 1:
            goal = f"< {GOAL_FAILOVER_S:.0f} s: {'✓' if med(s) < GOAL_FAILOVER_S else '✗'}"
        w(f"| {after:g} | {med(s):.3f} | {min(s):.3f} | {max(s):.3f} | {med(k):.3f} | {goal} |")
    w("")
    if goal_run and floor_run:
        extra = med(goal_run["since_promotion_seconds"]) - med(floor_run["since_promotion_seconds"])
        ratio = med(goal_run["since_promotion_seconds"]) / med(floor_run["since_promotion_seconds"])
        w(f"With `--failover-after 1` the stream first retries the lost server for a second; `--failover-after 0` "
          f"goes down the list at the first failed reconnect. The difference of the medians, {extra:.3f} s "
          f"({ratio:.2f}x), is that wait; what remains with 0 is the failover itself (reconnect back-off, "
          "the login, the position check against `@@gtid_binlog_state`, the dump).")
        w("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("-o", "--output", default="docs/benchmarks/mariadb-cdc.md")
    ap.add_argument("--command", default="scripts/bench/run_mariadb_cdc.sh")
    args = ap.parse_args()
    with open(args.capture) as f:
        cap = json.load(f)

    peers = cap["catch_up"]
    ours = peers[0]
    ours_s = med(ours["seconds"])
    n = cap["changes"]
    out = []
    w = out.append
    w("# MariaDB change data capture (benchmark report)")
    w("")
    w("Generated by `scripts/bench/render_mariadb_cdc.py` from a `mariadb_cdc_bench` capture; do not edit by hand.")
    w("")
    w(f"- Command: `{args.command}`")
    w(f"- Date (UTC): {cap['date']}")
    # A load average above the core count at either end means other work
    # shared the machine; say so only then.
    loads = [x for x in (machine_load_at_start(cap['machine']), cap['load_at_end']) if x is not None]
    shared = any(x > 2.0 for x in loads)
    w(f"- Machine: {cap['machine']}; load average {cap['load_at_end']:.2f} at the end. "
      + ("The machine was shared with other builds and tests during this run: figures are noisy. "
         if shared else "Nothing else ran. ")
      + "Every peer ran in the same process, interleaved in a shuffled order per repetition, and medians are "
      "reported.")
    w(f"- Server: MariaDB {cap['server']}, private instance on 127.0.0.1 (scripts/servers/start), binlog_format=ROW, "
      "binlog_row_image=FULL, binlog_row_metadata=FULL, CRC32 checksums.")
    w(f"- Workload: {n:,} row changes of a 13-column mixed-type table (BIGINT, INT, INT UNSIGNED, DECIMAL, FLOAT, "
      f"DOUBLE, VARCHAR, TEXT, DATETIME(6), TIMESTAMP(3), ENUM, VARBINARY, JSON): {cap['inserts']:,} inserts, "
      f"{cap['updates']:,} updates (before and after images), {cap['deletes']:,} deletes, 100 rows per transaction.")
    w(f"- Method: one validation run per peer (output kept, row changes counted), then {cap['reps']} timed runs of "
      "each with output to /dev/null, interleaved. Wall time from process start to exit (connect, catch up, stop).")
    w("")
    w("## Catch-up")
    w("")
    ours_cpu = med(ours["cpu_seconds"])
    w("| Peer | Validated row changes | Median s | Row changes/s | CPU s (median) | Server CPU s (median) | Time vs sluice | CPU vs sluice | Goal (on time) |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for i, p in enumerate(peers):
        s = med(p["seconds"])
        if s is None:
            w(f"| {p['name']} | — | — | — | — | — | — | — | could not run: {p['error']} |")
            continue
        cpu = med(p["cpu_seconds"])
        ratio = s / ours_s if ours_s else float("nan")
        goal = ""
        if i == 1:
            goal = f"sluice ≤ 1/{GOAL_BINLOG_RATIO:.0f} of its time: {'✓' if ratio >= GOAL_BINLOG_RATIO else '✗'} ({ratio:.2f}x)"
        elif i == 2:
            goal = f"sluice ≥ {GOAL_ZONGJI_RATIO:.0f}x its rate: {'✓' if ratio >= GOAL_ZONGJI_RATIO else '✗'} ({ratio:.2f}x)"
        cpu_ratio = cpu / ours_cpu if ours_cpu else float("nan")
        server = med(p.get("server_cpu_seconds", []))
        server_text = f"{server:.3f}" if server is not None else "—"
        w(f"| {p['name']} | {p['validated_changes']:,} | {s:.3f} | {n / s:,.0f} | {cpu:.3f} | {server_text} | {ratio:.2f} | {cpu_ratio:.2f} | {goal} |")
    w("")
    w("All three read over plain TCP on loopback (sluice with `ssl-mode=disable`; the others do not use TLS by "
      "default). CPU is the peer process's user + system time (from wait4); server CPU is mariadbd's (all threads, "
      "/proc) during the run. "
      + ("On this shared, loaded 2-core machine the wall time of a run is mostly time spent waiting for a core, so "
         "the CPU column is the steadier comparison of the clients' work. " if shared else "")
      + "The goals are stated on time and are judged on it.")
    w("")
    w("Commands (password elided):")
    w("")
    for p in peers:
        w(f"- `{p['command']}`")
    w("")
    w("sluice prints the issue's NDJSON line per transaction (every value formatted as a SELECT prints it); "
      "mariadb-binlog prints its `### INSERT INTO ... ### @1=...` pseudo-SQL; ZongJi's script writes one "
      "`JSON.stringify` line per row change. ZongJi cannot stop at the end of the binlog, so its script stops at the "
      "expected row count.")
    w("")
    lag = cap["lag"]
    w("## Lag")
    w("")
    ok = "✓" if lag["p99_ms"] < GOAL_LAG_P99_MS else "✗"
    w(f"{lag['rate']} autocommit single-row INSERTs per second for {lag['seconds']} s (prepared, one connection); "
      "lag is from the writer sending the INSERT to `ChangeStream::next()` handing out its transaction (with its "
      f"NDJSON line formatted), in the same process. {lag['samples']:,} samples: "
      f"**p50 {lag['p50_ms']:.3f} ms, p99 {lag['p99_ms']:.3f} ms** (max {lag['max_ms']:.3f} ms); goal p99 < "
      f"{GOAL_LAG_P99_MS:.0f} ms: {ok}. The lag includes the INSERT's own execution and commit on the server.")
    w("")
    r = cap["resume"]
    w("## Resume after a kill")
    w("")
    rs = med(r["seconds"])
    rs_text = f"median **{rs:.3f} s** over {len(r['seconds'])} runs" if rs is not None else "no successful run"
    w(f"`cdc --out FILE` following the workload's table is SIGKILLed, one UPDATE is committed, and the same command "
      f"with `--until-end` is timed from start to exit: it scans FILE ({r['file_bytes']:,} bytes, the whole "
      f"catch-up), cuts a torn line, reconnects after the file's last GTID and delivers the new transaction: "
      f"{rs_text}. New updates delivered across the runs: {r['new_updates_delivered']} (one per run, none repeated).")
    w("")
    large = cap.get("large_transaction")
    if large:
        render_large(w, large)
    render_failover(cap, w)
    with open(args.output, "w") as f:
        f.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
