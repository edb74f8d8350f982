#!/usr/bin/env python3
"""Renders an A/B capture of tideweave_bench (scripts/bench/tideweave_ab.sh)
as Markdown: every run with its load average, then the medians over runs of
A (before) and B (after), B's change against A, and the verdict against the
"none worse than 5%" rule. Usage: render_tideweave_ab.py CAPTURE.json
[THROUGHPUT_EVENTS (2000000)]"""
import json
import statistics
import sys


def median(values):
    return statistics.median(values)


def figures(samples, throughput_events):
    """The four compared figures of one run (and the typed-API row, if any)."""
    f = {
        "reference_ms": median(samples["reference.incremental.cpu_ms"]),
        "single_vs_batched": median(samples["cli.incremental.single.cpu_ms"])
        / median(samples["cli.incremental.batched.cpu_ms"]),
        "cli_inserts_per_s": throughput_events / (median(samples["cli.throughput.cpu_ms"]) / 1000.0),
        "cli_inserts_per_s_wall": throughput_events / (median(samples["cli.throughput.wall_ms"]) / 1000.0),
        "rss_10m_kb": samples["memory.vmrss_kb_per_million"][-1],
        "rss_max_kb": max(samples["memory.vmrss_kb_per_million"]),
    }
    if "typed_api.throughput.cpu_ms" in samples:
        f["typed_inserts_per_s"] = throughput_events / (median(samples["typed_api.throughput.cpu_ms"]) / 1000.0)
        f["typed_inserts_per_s_wall"] = throughput_events / (median(samples["typed_api.throughput.wall_ms"]) / 1000.0)
    return f


# name, label, format, whether larger is better
ROWS = [
    ("reference_ms", "reference workload, median CPU ms", "{:.3f}", False),
    ("single_vs_batched", "one-event / batched through the CLI (CPU)", "{:.2f}x", False),
    ("cli_inserts_per_s", "CLI inserts/s per CPU second (2M batched)", "{:,.0f}", True),
    ("rss_10m_kb", "VmRSS after 10M events, kB", "{:,.0f}", False),
]


def main():
    capture = json.load(open(sys.argv[1]))
    events = int(sys.argv[2]) if len(sys.argv) > 2 else 2000000
    runs = capture["runs"]
    print(f"Machine: {capture['machine']}, {capture['cores']} cores, shared with other engineers' builds.")
    print(f"A = `{capture['a']}`, B = `{capture['b']}`; runs interleaved A B / B A / A B.\n")
    print("| run | start (UTC) | load average | reference ms | one-event/batched | CLI inserts/s (CPU) | CLI inserts/s (wall) | VmRSS 10M kB | typed API inserts/s (CPU) | typed API inserts/s (wall) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    per = {"A": [], "B": []}
    for r in runs:
        f = figures(r["samples"], events)
        per[r["label"]].append(f)
        typed = f.get("typed_inserts_per_s")
        typed_wall = f.get("typed_inserts_per_s_wall")
        print(f"| {r['label']}{r['run']} | {r['start_utc']} | {r['load_average']} | {f['reference_ms']:.3f} | "
              f"{f['single_vs_batched']:.2f}x | {f['cli_inserts_per_s']:,.0f} | {f['cli_inserts_per_s_wall']:,.0f} | "
              f"{f['rss_10m_kb']:,.0f} | {'' if typed is None else f'{typed:,.0f}'} | "
              f"{'' if typed_wall is None else f'{typed_wall:,.0f}'} |")
    print("\nMedians over the runs:\n")
    print("| figure | A (before) | B (after) | B vs A | within 5%? |")
    print("| --- | --- | --- | --- | --- |")
    for name, label, fmt, larger_better in ROWS:
        a = median([f[name] for f in per["A"]])
        b = median([f[name] for f in per["B"]])
        change = (b - a) / a * 100.0
        worse = -change if larger_better else change
        verdict = "yes" if worse <= 5.0 else "**no**"
        print(f"| {label} | {fmt.format(a)} | {fmt.format(b)} | {change:+.1f}% | {verdict} |")
    typed = [f["typed_inserts_per_s"] for f in per["B"] if "typed_inserts_per_s" in f]
    typed_a = [f["typed_inserts_per_s"] for f in per["A"] if "typed_inserts_per_s" in f]
    if typed:
        cli_b = median([f["cli_inserts_per_s"] for f in per["B"]])
        t = median(typed)
        verdict = "met" if t >= 10e6 else "**not met**"
        if typed_a:  # A has the row too: compare
            ta = median(typed_a)
            print(f"| typed API inserts/s per CPU second (goal 10,000,000) | {ta:,.0f} | {t:,.0f} | "
                  f"{(t - ta) / ta * 100.0:+.1f}% ({t / ta:.2f}x; {t / cli_b:.2f}x B's CLI) | {verdict} |")
        else:
            print(f"| typed API inserts/s per CPU second (new row; goal 10,000,000) | - | {t:,.0f} | "
                  f"{t / cli_b:.2f}x the CLI | {verdict} |")

if __name__ == "__main__":
    main()
