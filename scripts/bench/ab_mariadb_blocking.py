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
import os
import statistics
import subprocess
import sys

DEFAULT_PROFILES = ("point_sequential,stream_plain,narrow_plain,wide_plain,meta_cached,meta_uncached,"
                    "bulk_sequential,cursor_512,pool_held")


def child(binary, env, profile, warmups, reps, cpu):
    out = subprocess.run([binary, "--child-client", "sluice", "--child-workload", profile, "--env", env,
                          "--warmups", str(warmups), "--reps", str(reps), "--client-cpu", str(cpu)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{binary} {profile} failed:\n{out.stdout}{out.stderr}")
    walls, cpus = [], []
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "run":
            elapsed, units, cpu_ns = float(f[1]), float(f[2]), float(f[5])
            walls.append(elapsed / units)
            if cpu_ns >= 0:
                cpus.append(cpu_ns / units)
    return statistics.median(walls), (statistics.median(cpus) if cpus else None)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True)
    p.add_argument("--b", required=True)
    p.add_argument("--env", required=True)
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--warmups", type=int, default=1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--client-cpu", type=int, default=os.cpu_count() - 1)
    p.add_argument("--profiles", default=DEFAULT_PROFILES)
    args = p.parse_args()
    profiles = args.profiles.split(",")
    ratios = {pr: ([], []) for pr in profiles}
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
    print("| Profile | Wall A/B (median of pairs) | min..max | Client CPU A/B | min..max | Within 2% |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for pr in profiles:
        wall, cpu = ratios[pr]
        mw = statistics.median(wall)
        cpu_text = f"{statistics.median(cpu):.3f} | {min(cpu):.3f}..{max(cpu):.3f}" if cpu else "— | —"
        print(f"| {pr} | {mw:.3f} | {min(wall):.3f}..{max(wall):.3f} | {cpu_text} | {'✓' if mw <= 1.02 else '✗'} |")


if __name__ == "__main__":
    main()
