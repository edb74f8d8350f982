#!/usr/bin/env python3
"""Interleaved A/B of the many-connections row (point_async_64: 20,000 point
SELECTs over 64 connections on one thread) across builds of
mariadb_speed_bench, with Connector/C's non-blocking API as the reference.

    scripts/bench/ab_mariadb_async.py --build "this tree=BUILD/.../mariadb_speed_bench" \\
        --build "commit f8a742c=OTHER/.../mariadb_speed_bench" --env SERVERS/env [--rounds 10] [--reps 5]

Each round runs one child process of every build and one of Connector/C (the
first build's), in a shuffled order. A child is the bench's own child mode
(pinned to the last CPU, warm-up runs, then timed runs validated by count
and checksum); its figures are the median over its timed runs of the client
CPU per SELECT (the process's CPU clock inside the run: the issue's measure),
the wall time per SELECT, its voluntary context switches per SELECT
(rusage, the whole child: how often it slept) and its peak RSS. The table gives the median
over rounds. scripts/bench/run_mariadb_async_ab.sh builds the commits and
runs this.
"""
import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from ab_mariadb_blocking import loadavg, machine, save_capture  # noqa: E402  (shared by both A/B scripts)

PROFILE = "point_async_64"


def child(binary, client, env, warmups, reps, cpu):
    """One child: (client CPU ns per SELECT, wall ns per SELECT, voluntary switches per SELECT, peak RSS KiB)."""
    p = subprocess.Popen([binary, "--child-client", client, "--child-workload", PROFILE, "--env", env,
                          "--warmups", str(warmups), "--reps", str(reps), "--client-cpu", str(cpu)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
    # The switches of every run, warm-ups included (each run has `units` SELECTs).
    switches = usage.ru_nvcsw / (units * (warmups + reps))
    return statistics.median(cpus), statistics.median(walls), switches, usage.ru_maxrss


def render(capture):
    """The report, from the capture alone (so it can be rendered again)."""
    contenders = capture["contenders"]
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
           f"- Method: {capture['rounds']} rounds; in each, one child process of every build and one of "
           "Connector/C in a shuffled order, each pinned to the last CPU with "
           f"{capture['warmups']} warm-up and {capture['reps']} timed runs (validated by count and checksum). "
           "A child's figure is the median of its timed runs; the table gives the median over rounds. Client CPU: "
           "the process's CPU clock inside the timed runs (user + system), per SELECT, the issue's measure. "
           "Sleeps: the child's voluntary context switches per SELECT (rusage, warm-ups included). Peak RSS: the "
           "child's maximum resident set (rusage; the process with its 64 connections open, logins and "
           "warm-ups included), median over rounds.", "",
           "| Client | Client CPU ns/SELECT | vs the first | vs Connector/C | Wall ns/SELECT | Sleeps/SELECT | "
           "Peak RSS | CPU min..max over rounds |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in contenders + [capture["connector_c"]]:
        cpu = statistics.median(c["cpu"])
        out.append(f"| {c['label']} | {cpu:,.0f} | {cpu / first:.3f} | {cpu / cc:.3f} | "
                   f"{statistics.median(c['wall']):,.0f} | {statistics.median(c['switches']):.3f} | "
                   f"{statistics.median(c['peak_rss_kib']) / 1024:.1f} MiB | "
                   f"{min(c['cpu']):,.0f}..{max(c['cpu']):,.0f} |")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", action="append", default=[], metavar="LABEL=BINARY",
                   help="a build to compare (repeat; the first is the reference and runs Connector/C)")
    p.add_argument("--env")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--warmups", type=int, default=1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--client-cpu", type=int, default=os.cpu_count() - 1)
    p.add_argument("--out", help="the JSON capture to write (replaced)")
    p.add_argument("--render", metavar="CAPTURE", help="only render CAPTURE's report to stdout")
    args = p.parse_args()
    if args.render:
        with open(args.render) as f:
            sys.stdout.write(render(json.load(f)))
        return
    if not (args.build and args.env):
        p.error("--build (at least one) and --env are needed to measure")
    contenders = []
    for b in args.build:
        label, sep, binary = b.partition("=")
        if not sep:
            p.error(f"--build {b}: LABEL=BINARY")
        contenders.append({"label": label, "binary": binary, "client": "sluice", "cpu": [], "wall": [],
                           "switches": [], "peak_rss_kib": []})
    connector_c = {"label": "Connector/C (non-blocking, poll)", "binary": contenders[0]["binary"],
                   "client": "connector-c", "cpu": [], "wall": [], "switches": [], "peak_rss_kib": []}
    load_start = loadavg()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    for r in range(args.rounds):
        order = contenders + [connector_c]
        random.shuffle(order)
        for c in order:
            cpu, wall, switches, rss = child(c["binary"], c["client"], args.env, args.warmups, args.reps,
                                             args.client_cpu)
            c["cpu"].append(cpu)
            c["wall"].append(wall)
            c["switches"].append(switches)
            c["peak_rss_kib"].append(rss)
        print(f"round {r + 1}: " + ", ".join(f"{c['label']} {c['cpu'][-1]:.0f}" for c in contenders + [connector_c]),
              file=sys.stderr, flush=True)
    capture = {
        "command": "ab_mariadb_async.py " + " ".join(sys.argv[1:]),
        "date": date, "machine": machine(), "load_start": load_start, "load_end": loadavg(),
        "rounds": args.rounds, "warmups": args.warmups, "reps": args.reps,
        "contenders": [{k: c[k] for k in ("label", "cpu", "wall", "switches", "peak_rss_kib")} for c in contenders],
        "connector_c": {k: connector_c[k] for k in ("label", "cpu", "wall", "switches", "peak_rss_kib")},
    }
    save_capture(args.out, capture)
    sys.stdout.write(render(capture))


if __name__ == "__main__":
    main()
