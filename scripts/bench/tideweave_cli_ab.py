#!/usr/bin/env python3
"""Interleaved CPU time (user + system, from wait4) of two `tideweave` CLI
binaries on one input file, output to /dev/null: a focused A/B for a figure
that tideweave_bench's few samples leave noisy (e.g. the 5000 one-event
transactions behind the one-event/batched ratio). Prints medians and minima.
Usage: tideweave_cli_ab.py A_CLI B_CLI INPUT.ndjson [RUNS (40)]"""
import os
import statistics
import sys


def cpu_ms(cli, path):
    pid = os.fork()
    if pid == 0:
        null = os.open("/dev/null", os.O_WRONLY)
        os.dup2(null, 1)
        os.execv(cli, [cli, "stream", path])
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"{cli} failed on {path} (status {status})")
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def main():
    a, b, path = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    times = {"A": [], "B": []}
    for i in range(runs):
        for label in ("A", "B") if i % 2 == 0 else ("B", "A"):
            times[label].append(cpu_ms(a if label == "A" else b, path))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    for label, cli in (("A", a), ("B", b)):
        v = times[label]
        print(f"{label} {cli}: median {statistics.median(v):.2f} ms CPU, min {min(v):.2f} ({runs} runs)")
    print(f"B / A (medians): {statistics.median(times['B']) / statistics.median(times['A']):.3f}; load average now {load}")


if __name__ == "__main__":
    main()
