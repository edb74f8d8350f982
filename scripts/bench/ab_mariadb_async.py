#!/usr/bin/env python3
"""Interleaved A/B of the many-connections row (point_async_64: 20,000 point
SELECTs over 64 connections on one thread) across builds of
mariadb_speed_bench, with Connector/C's non-blocking API as the reference.

    scripts/bench/ab_mariadb_async.py --build "this tree=BUILD/.../mariadb_speed_bench" \\
        --build "commit f8a742c=OTHER/.../mariadb_speed_bench" --env SERVERS/env [--rounds 10] [--reps 5] \\
        [--extra-work-ns 1000,2000,4000]

Each round runs one child process of every build and one of Connector/C (the
first build's), in a shuffled order. A child is the bench's own child mode
(pinned to the last CPU, warm-up runs, then timed runs validated by count
and checksum); its figures are the median over its timed runs of the client
CPU per SELECT (the process's CPU clock inside the run: the issue's measure),
the wall time per SELECT, its voluntary context switches per SELECT
(rusage, the whole child: how often it slept) and its peak RSS. The table gives the median
over rounds. scripts/bench/run_mariadb_async_ab.sh builds the commits and
runs this.

--extra-work-ns adds contenders: the first build with that much busy time
after each reply (the child's --child-extra-work-ns). How much of the added
work shows in the client CPU per SELECT (the rest is absorbed: a client busy
longer finds more replies ready and sleeps less) says how much a client
could gain by doing less per reply; the report works out how much less
sluice would have to do to be at 0.8x Connector/C in the run.
"""
import argparse
import datetime
import os
import random
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from ab_mariadb_blocking import (add_shared_options, loadavg, machine, rendered_only,  # noqa: E402
                                 save_capture)  # (shared by both A/B scripts)

PROFILE = "point_async_64"
# What the capture keeps of each contender.
KEPT = ("label", "extra_work_ns", "cpu", "wall", "switches", "peak_rss_kib", "user_ns")


def child(binary, client, env, warmups, reps, cpu, extra_work_ns=0):
    """One child: (client CPU ns per SELECT, wall ns per SELECT, voluntary switches per SELECT, peak RSS KiB,
    user-mode CPU ns per SELECT)."""
    command = [binary, "--child-client", client, "--child-workload", PROFILE, "--env", env,
               "--warmups", str(warmups), "--reps", str(reps), "--client-cpu", str(cpu)]
    if extra_work_ns:
        command += ["--child-extra-work-ns", str(extra_work_ns)]
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.stdout.read(), p.stderr.read()
    # This child's own rusage (RUSAGE_CHILDREN's maxrss is the largest child's so far).
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{binary} {client} {PROFILE} failed:\n{out}{err}")
    cpus, walls, units = [], [], 0.0
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "run":
            cpus.append(float(f[5]) / float(f[2]))
            walls.append(float(f[1]) / float(f[2]))
            units = float(f[2])
    # The switches and user time of every run, warm-ups included (each run has
    # `units` SELECTs); the user time has the logins in it too: an upper bound.
    selects = units * (warmups + reps)
    user_ns = usage.ru_utime * 1e9 / selects
    return statistics.median(cpus), statistics.median(walls), usage.ru_nvcsw / selects, usage.ru_maxrss, user_ns


def median_of(c, key):
    return statistics.median(c[key]) if c.get(key) else None


def render(capture):
    """The report, from the capture alone (so it can be rendered again)."""
    contenders = capture["contenders"]
    builds = [c for c in contenders if not c.get("extra_work_ns")]
    added = [c for c in contenders if c.get("extra_work_ns")]
    first = statistics.median(contenders[0]["cpu"])
    cc = statistics.median(capture["connector_c"]["cpu"])
    out = ["# MariaDB client: the many-connections row across builds (issue 29)", "",
           "Rendered by `scripts/bench/ab_mariadb_async.py --render` from `mariadb-async-ab-capture.json`.", "",
           f"- Command: `{capture['command']}`",
           f"- Date (UTC): {capture['date']}",
           f"- Machine: {capture['machine']} (load average {capture['load_start']} at the start, "
           f"{capture['load_end']} at the end)",
           f"- Row: {PROFILE} (20,000 point SELECTs over 64 connections on one thread: sluice's AsioConnection; "
           "Connector/C's _start/_cont on poll, from the first build)",
           f"- Method: {capture['rounds']} rounds; in each, one child process of every contender and one of "
           "Connector/C in a shuffled order, each pinned to the last CPU with "
           f"{capture['warmups']} warm-up and {capture['reps']} timed runs (validated by count and checksum). "
           "A child's figure is the median of its timed runs; the table gives the median over rounds. Client CPU: "
           "the process's CPU clock inside the timed runs (user + system), per SELECT, the issue's measure. "
           "User CPU: the child's user-mode time (rusage, logins and warm-ups included, so an upper bound) per "
           "SELECT. Sleeps: the child's voluntary context switches per SELECT (rusage, warm-ups included). Peak "
           "RSS: the child's maximum resident set (rusage; the process with its 64 connections open, logins and "
           "warm-ups included), median over rounds.", "",
           "| Client | Client CPU ns/SELECT | vs the first | vs Connector/C | Wall ns/SELECT | User CPU ns/SELECT | "
           "Sleeps/SELECT | Peak RSS | CPU min..max over rounds |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in builds + [capture["connector_c"]]:
        cpu = statistics.median(c["cpu"])
        user = median_of(c, "user_ns")
        out.append(f"| {c['label']} | {cpu:,.0f} | {cpu / first:.3f} | {cpu / cc:.3f} | "
                   f"{statistics.median(c['wall']):,.0f} | {'-' if user is None else f'{user:,.0f}'} | "
                   f"{statistics.median(c['switches']):.3f} | "
                   f"{statistics.median(c['peak_rss_kib']) / 1024:.1f} MiB | "
                   f"{min(c['cpu']):,.0f}..{max(c['cpu']):,.0f} |")
    if added:
        out += render_added_work(capture, contenders[0], added, cc)
    return "\n".join(out) + "\n"


def render_added_work(capture, base, added, cc):
    """The added-work contenders: how much of a client's own work shows in its CPU per SELECT."""
    out = ["", "## How much of the client's own work shows in its CPU", "",
           f"The first build again, with busy time added after each reply (`--extra-work-ns`). Added CPU: the "
           "contender's client CPU per SELECT minus the first build's in the same round, median over rounds. "
           "Share: added CPU over added work (1.0: all of it shows; less: the rest is absorbed, because a client "
           "busy longer finds more replies ready when it next waits, and sleeps less).", "",
           "| Added work ns/reply | Client CPU ns/SELECT | Added CPU ns/SELECT | Share | Wall ns/SELECT | "
           "Sleeps/SELECT |",
           "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    shares = []
    for c in added:
        w = c["extra_work_ns"]
        diffs = [x - y for x, y in zip(c["cpu"], base["cpu"])]
        share = statistics.median(diffs) / w
        shares.append(share)
        out.append(f"| {w:,} | {statistics.median(c['cpu']):,.0f} | {statistics.median(diffs):,.0f} | "
                   f"{share:.2f} | {statistics.median(c['wall']):,.0f} | {statistics.median(c['switches']):.3f} |")
    share = statistics.median(shares)
    cpu = statistics.median(base["cpu"])
    need = cpu - 0.8 * cc
    user = median_of(base, "user_ns")
    out.append("")
    if need <= 0:
        out.append(f"In this run {base['label']} is at {cpu / cc:.3f}x Connector/C, within 0.8x by {-need:,.0f} ns "
                   "per SELECT.")
    elif share <= 0:
        out.append(f"In this run {base['label']} is at {cpu / cc:.3f}x Connector/C: 0.8x needs {need:,.0f} ns less CPU "
                   f"per SELECT, and the median share ({share:.2f}) says added work did not show in it at all: no "
                   "saving of the client's own work per reply would get there.")
    else:
        work = need / share
        line = (f"In this run {base['label']} is at {cpu / cc:.3f}x Connector/C: 0.8x needs {need:,.0f} ns less CPU "
                f"per SELECT. At the median share ({share:.2f}) that is {work:,.0f} ns less of its own work per reply")
        if user is not None:
            line += (f", {'more than all' if work > user else 'against'} the {user:,.0f} ns of user-mode CPU per "
                     "SELECT it has (bench code and logins included)")
        out.append(line + ".")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", action="append", default=[], metavar="LABEL=BINARY",
                   help="a build to compare (repeat; the first is the reference and runs Connector/C)")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--extra-work-ns", default="", metavar="NS[,NS...]",
                   help="add the first build with this much busy time after each reply, per value")
    add_shared_options(p)
    args = p.parse_args()
    if rendered_only(args, render):
        return
    if not (args.build and args.env):
        p.error("--build (at least one) and --env are needed to measure")
    contenders = []
    for b in args.build:
        label, sep, binary = b.partition("=")
        if not sep:
            p.error(f"--build {b}: LABEL=BINARY")
        contenders.append({"label": label, "binary": binary, "client": "sluice", "extra_work_ns": 0})
    try:
        extra = [int(v) for v in args.extra_work_ns.split(",") if v]
    except ValueError:
        p.error(f"--extra-work-ns {args.extra_work_ns}: whole nanoseconds, comma-separated")
    if any(w <= 0 for w in extra):
        p.error("--extra-work-ns: each value above 0")
    for w in extra:
        contenders.append({"label": f"{contenders[0]['label']} + {w:,} ns/reply", "binary": contenders[0]["binary"],
                           "client": "sluice", "extra_work_ns": w})
    for c in contenders:
        c.update({"cpu": [], "wall": [], "switches": [], "peak_rss_kib": [], "user_ns": []})
    connector_c = {"label": "Connector/C (non-blocking, poll)", "binary": contenders[0]["binary"],
                   "client": "connector-c", "extra_work_ns": 0, "cpu": [], "wall": [], "switches": [],
                   "peak_rss_kib": [], "user_ns": []}
    load_start = loadavg()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    for r in range(args.rounds):
        order = contenders + [connector_c]
        random.shuffle(order)
        for c in order:
            cpu, wall, switches, rss, user = child(c["binary"], c["client"], args.env, args.warmups, args.reps,
                                                   args.client_cpu, c["extra_work_ns"])
            c["cpu"].append(cpu)
            c["wall"].append(wall)
            c["switches"].append(switches)
            c["peak_rss_kib"].append(rss)
            c["user_ns"].append(user)
        print(f"round {r + 1}: " + ", ".join(f"{c['label']} {c['cpu'][-1]:.0f}" for c in contenders + [connector_c]),
              file=sys.stderr, flush=True)
    capture = {
        "command": "ab_mariadb_async.py " + " ".join(sys.argv[1:]),
        "date": date, "machine": machine(), "load_start": load_start, "load_end": loadavg(),
        "rounds": args.rounds, "warmups": args.warmups, "reps": args.reps,
        "contenders": [{k: c[k] for k in KEPT} for c in contenders],
        "connector_c": {k: connector_c[k] for k in KEPT},
    }
    save_capture(args.out, capture)
    sys.stdout.write(render(capture))


if __name__ == "__main__":
    main()
