#!/usr/bin/env python3
"""Interleaved A/B of the blocking client's speed-bench rows: two builds of
mariadb_speed_bench (A: this tree, B: a base commit), the same profiles, one
child process each in turn (A B A B ...), the ratio A/B taken pair by pair.

    scripts/bench/ab_mariadb_blocking.py --a BUILD_A/.../mariadb_speed_bench --b BUILD_B/.../mariadb_speed_bench \\
        --env SERVERS/env [--pairs 5] [--profiles point_sequential,stream_plain,...]

Each child is the bench's own child mode (pinned to the last CPU, warm-up
runs, then timed runs validated by count and checksum); a child's figure is
the median of its runs' ns per unit and client CPU per unit. Printed per
profile: the median of the pairwise ratios (min..max), wall and client CPU.
Issue 29's goal: every blocking row within 2% of the base (ratio at most
1.02). scripts/bench/run_mariadb_ab.sh builds both and runs this.
"""
import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys

DEFAULT_PROFILES = ("point_sequential,stream_plain,narrow_plain,wide_plain,meta_cached,meta_uncached,"
                    "bulk_sequential,cursor_512,pool_held")


def child(binary, env, profile, warmups, reps, cpu):
    """One child process: (wall ns per unit, client CPU ns per unit).

    The client CPU is the whole child process's user + system time (its
    rusage: login, warm-ups and timed runs, the same work in A and B) over
    the timed runs' units: what the client costs, without the server's noise
    that dominates the wall time of these one-connection profiles."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, "--child-client", "sluice", "--child-workload", profile, "--env", env,
                          "--warmups", str(warmups), "--reps", str(reps), "--client-cpu", str(cpu)],
                         capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"{binary} {profile} failed:\n{out.stdout}{out.stderr}")
    walls, units_total = [], 0.0
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "run":
            elapsed, units = float(f[1]), float(f[2])
            walls.append(elapsed / units)
            units_total += units
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return statistics.median(walls), cpu_s * 1e9 / units_total


def instructions(binary, env, profile, reps):
    """The client's instructions in `reps` timed runs of one child (no
    warm-up), counted by callgrind: the same for every run of the same code,
    whatever the machine's load, unlike the times above."""
    # Only inside the workload's run (Sluice::run): not the login, nor the
    # bench printing its latencies after each run (formatting doubles costs
    # more than a SELECT's client side, and varies with the values).
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          "--toggle-collect=*Sluice::run*", binary,
                          "--child-client", "sluice", "--child-workload", profile, "--env", env,
                          "--warmups", "0", "--reps", str(reps)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"callgrind of {binary} {profile} failed:\n{out.stdout}{out.stderr}")
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split("Collected :")[1].split()[0])
    sys.exit(f"callgrind of {binary} {profile} printed no instruction count:\n{out.stderr}")


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Linux {os.uname().release}"


def save_capture(path, capture):
    """Writes the capture (replacing the last one) when a path is given."""
    if path:
        with open(path, "w") as f:
            json.dump(capture, f, indent=1)
            f.write("\n")


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def add_shared_options(p):
    """The options both A/B scripts take alike: the servers, each child's runs and CPU, the capture."""
    p.add_argument("--env")
    p.add_argument("--warmups", type=int, default=1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--client-cpu", type=int, default=os.cpu_count() - 1)
    p.add_argument("--out", help="the JSON capture to write (replaced)")
    p.add_argument("--render", metavar="CAPTURE", help="only render CAPTURE's report to stdout")


def rendered_only(args, render_capture):
    """--render CAPTURE: its report to stdout (True: nothing is to be measured)."""
    if not args.render:
        return False
    with open(args.render) as f:
        sys.stdout.write(render_capture(json.load(f)))
    return True


def render(capture):
    """The report, from the capture alone (so it can be rendered again)."""
    out = ["# MariaDB client: the blocking rows against the commit before the redesign (issue 29)", "",
           "Rendered by `scripts/bench/ab_mariadb_blocking.py --render` from `mariadb-ab-capture.json`.", "",
           f"- Command: `{capture['command']}`",
           f"- Date (UTC): {capture['date']}",
           f"- Machine: {capture['machine']} (load average {capture['load_start']} at the start, "
           f"{capture['load_end']} at the end)",
           f"- A: this tree ({capture['a']}); B: {capture['b']}",
           "- Method: each profile's child process of the speed bench (pinned to the last CPU, "
           f"{capture['warmups']} warm-up and {capture['reps']} timed runs, each validated by count and checksum), "
           f"A and B in turn, the first of each pair alternating; {capture['pairs']} pairs. A child's figure is the "
           "median of its runs; the ratio is taken pair by pair, and the table gives the median of the pairs' ratios. "
           "The client CPU is each child's whole user + system time (rusage: its login, warm-ups and timed runs, "
           "the same work in A and B): the server's share, which dominates these profiles' wall time and its "
           "noise, is not in it.",
           "- Goal (issue 29): every blocking row within 2% of the base: wall A/B at most 1.02.", "",
           "- Instructions: each build's child once more under callgrind, counting only inside the workload's "
           f"{capture.get('instructions_reps', 0)} timed run(s) (no warm-up; not the login, not the bench's own "
           "printing): the client's instruction count, which does not move with the machine's load; A/B of those "
           "counts.", "",
           "| Profile | Wall A/B (median of pairs) | min..max | Client process CPU A/B | min..max | "
           "Client instructions A/B | Within 2% (wall) |",
           "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for pr, r in capture["profiles"].items():
        wall, cpu = r["wall_ratios"], r["cpu_ratios"]
        mw = statistics.median(wall)
        cpu_text = f"{statistics.median(cpu):.3f} | {min(cpu):.3f}..{max(cpu):.3f}" if cpu else "— | —"
        ir = r.get("instructions")
        ir_text = f"{ir['a'] / ir['b']:.4f} ({ir['a']:,} / {ir['b']:,})" if ir else "—"
        out.append(f"| {pr} | {mw:.3f} | {min(wall):.3f}..{max(wall):.3f} | {cpu_text} | {ir_text} | "
                   f"{'✓' if mw <= 1.02 else '✗'} |")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a")
    p.add_argument("--b")
    p.add_argument("--b-label", default="the base build")
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--profiles", default=DEFAULT_PROFILES)
    p.add_argument("--instructions-reps", type=int, default=1,
                   help="timed runs per child under callgrind (0: no instruction counts)")
    add_shared_options(p)
    args = p.parse_args()
    if rendered_only(args, render):
        return
    if not (args.a and args.b and args.env):
        p.error("--a, --b and --env are needed to measure")
    profiles = args.profiles.split(",")
    ratios = {pr: ([], []) for pr in profiles}
    load_start = loadavg()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    for pair in range(args.pairs):
        for pr in profiles:
            # Alternate which build goes first, so neither always runs on a
            # server the other just warmed.
            order = [("a", args.a), ("b", args.b)] if pair % 2 == 0 else [("b", args.b), ("a", args.a)]
            got = {}
            for name, binary in order:
                got[name] = child(binary, args.env, pr, args.warmups, args.reps, args.client_cpu)
            ratios[pr][0].append(got["a"][0] / got["b"][0])
            if got["a"][1] and got["b"][1]:
                ratios[pr][1].append(got["a"][1] / got["b"][1])
            print(f"pair {pair + 1} {pr}: wall A/B {ratios[pr][0][-1]:.3f}", file=sys.stderr, flush=True)
    counts = {}
    if args.instructions_reps > 0:
        for pr in profiles:
            a_ir = instructions(args.a, args.env, pr, args.instructions_reps)
            b_ir = instructions(args.b, args.env, pr, args.instructions_reps)
            counts[pr] = {"a": a_ir, "b": b_ir}
            print(f"instructions {pr}: A/B {a_ir / b_ir:.4f}", file=sys.stderr, flush=True)
    capture = {
        "command": "ab_mariadb_blocking.py " + " ".join(sys.argv[1:]),
        "date": date, "machine": machine(), "load_start": load_start, "load_end": loadavg(),
        "a": args.a, "b": args.b_label, "pairs": args.pairs, "warmups": args.warmups, "reps": args.reps,
        "instructions_reps": args.instructions_reps,
        "profiles": {pr: {"wall_ratios": ratios[pr][0], "cpu_ratios": ratios[pr][1],
                          "instructions": counts.get(pr)} for pr in profiles},
    }
    save_capture(args.out, capture)
    sys.stdout.write(render(capture))


if __name__ == "__main__":
    main()
