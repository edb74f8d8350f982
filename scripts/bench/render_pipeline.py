#!/usr/bin/env python3
"""Renders docs/benchmarks/pipeline.md from pipeline_bench's JSON capture."""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--command", default="scripts/bench/run_pipeline.sh")
    ap.add_argument("--date", default="")
    a = ap.parse_args()
    c = json.load(open(a.capture))
    m, cu, st = c["machine"], c["catchup"], c["steady"]
    med = statistics.median
    n = cu["row_changes"]
    pw, pc, tw, tc = (med(cu[k]) for k in ("pipeline_wall_s", "pipeline_cpu_s", "tideweave_wall_s", "tideweave_cpu_s"))
    pl, tl = st["pipeline_lag_ms"], st["tideweave_lag_ms"]

    def goal(ok):
        return "met" if ok else "**not met**"

    # A 1-minute load average above the core count means other work shared
    # the machine: say so, as wall-clock times are then inflated.
    loaded_note = (": the machine was shared with other builds and tests, so wall-clock times are inflated and noisy"
                   if m['load_average_at_end'][0] > m['cores'] else "; nothing else ran")
    out = f"""# Pipeline benchmark

End to end on loopback: MariaDB binlog -> `sluice-pipeline` -> PostgreSQL,
beside the same transactions fed from a file (or a pipe) through
`tideweave stream`, the engine alone. Rendered by `scripts/bench/render_pipeline.py`
from `docs/benchmarks/pipeline-capture.json`; measured with `{a.command}`{(' on ' + a.date) if a.date else ''}.

Machine: {m['host']}, {m['cpu']}, {m['cores']} cores (load average at the end
{', '.join(f'{x:.1f}' for x in m['load_average_at_end'])}{loaded_note}); CPU times of the
measured process are given beside the wall-clock times. The servers' own CPU (MariaDB
sending the binlog, PostgreSQL writing the rows) is not in the CPU column
but is in the wall clock. Runs of the two alternatives are interleaved
(pipeline, tideweave, pipeline, ...); figures are medians of {cu['runs']} runs.

## Catch-up: {n:,} source row changes

Transactions of 900 inserts and an update of 100 earlier rows (each update
a retraction and an insert), 1000 keys, every event its own session (ts =
id / 80, gap 10): the sink ends with {cu['sink_rows']:,} session rows, most of
them written twice (open, then final).

| | wall (median) | row changes/s (wall) | CPU of the process | row changes per CPU second |
| --- | ---: | ---: | ---: | ---: |
| `sluice-pipeline --until-end` (binlog -> engine -> PostgreSQL) | {pw:.2f} s | {n / pw:,.0f} | {pc:.2f} s | {n / pc:,.0f} |
| `tideweave stream FILE > /dev/null` (engine alone, NDJSON in and out) | {tw:.2f} s | {n / tw:,.0f} | {tc:.2f} s | {n / tc:,.0f} |
| ratio pipeline / tideweave | {pw / tw:.2f}x | | {pc / tc:.2f}x | |

All runs (wall s): pipeline {', '.join(f'{x:.2f}' for x in cu['pipeline_wall_s'])}; tideweave {', '.join(f'{x:.2f}' for x in cu['tideweave_wall_s'])}.

Goal >= 200,000 row changes/s: {goal(n / pw >= 200000)} on the wall clock of this loaded machine
({n / pw:,.0f}/s); the pipeline process itself needs {pc:.2f} CPU s ({n / pc:,.0f} row changes per CPU second).

## Steady state: {st['rate_row_changes_per_s']:,} row changes/s for {st['seconds']} s

A writer commits a transaction of 100 row changes (90 inserts, 10 updates)
every 10 ms; lag = the moment a separate connection first sees the
transaction's GTID in `sluice_pipeline_state` (polled every 0.5 ms) minus
the moment its COMMIT returned in MariaDB (after one warm-up transaction
that the sink must show first). {st['measured']} of {st['transactions']} transactions measured.
After it (not at the same time: on two cores they would slow each other
down), the same transactions' lines written at the same rate into
`tideweave stream` through a pipe: lag = its output line minus the write.

| | p50 | p99 | max |
| --- | ---: | ---: | ---: |
| source commit -> sink commit (`sluice-pipeline`) | {pl['p50']:.1f} ms | {pl['p99']:.1f} ms | {pl['max']:.1f} ms |
| line in -> line out (`tideweave stream` on a pipe) | {tl['p50']:.1f} ms | {tl['p99']:.1f} ms | {tl['max']:.1f} ms |

Goal lag p99 < 100 ms: {goal(pl['p99'] < 100)}.
(`tideweave stream` buffers its output for throughput, so its line latency
on a pipe is not the engine's cost; it is given because the issue asks for
the engine alone beside the pipeline.)

## Where the time goes, and earlier captures

The progress line reports the time spent inside sink commits: in a
catch-up run on this machine ~70% of the pipeline's wall time was
PostgreSQL writing the rows (COPY into staging tables, then one upsert per
batch) before the sink moved to its own thread (commit 206393e), which now
overlaps it with reading and the engine. Captures of the same benchmark
during this session, all on the shared machine: before that commit 30,307
row changes/s (lag p50 201 ms, p99 1103 ms, with `tideweave stream` and a
flat-out poller running beside the pipeline: the reason both are now apart
or paced); after it, under load 7-8, 45,068/s (lag p50 25 ms, p99 615 ms,
no warm-up); this report's run, 73,144/s. The lag's tail follows the
machine's load; its median stays at ~25 ms.
"""
    open(a.output, "w").write(out)


if __name__ == "__main__":
    main()
