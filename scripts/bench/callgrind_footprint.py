#!/usr/bin/env python3
"""The code a repeated operation touches, from a callgrind profile.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=F PROGRAM
    scripts/bench/callgrind_footprint.py F --times 20000 [--object NAME]

Counts the distinct 64-byte lines and 4 KiB pages of the instructions that
ran at least --times times (for a loop of that many queries: the code every
query runs), per loaded object; with --object, also per function of that
object (hot lines and instructions per repetition). Why it matters: a client
that waits on a server on another (virtual) CPU resumes each query with cold
caches and TLB, where each line and page costs, so the footprint is a
load-independent figure beside the instruction count (see
docs/benchmarks/keal-client-notes.md).
"""
import argparse
import collections
import re

ap = argparse.ArgumentParser()
ap.add_argument("profile")
ap.add_argument("--times", type=int, default=20000)
ap.add_argument("--object", default=None)
a = ap.parse_args()

names = {}


def name(kind, s):
    m = re.match(r"\((\d+)\)(?: (.*))?", s)
    if not m:
        return s
    key = (kind, m.group(1))
    if m.group(2):
        names[key] = m.group(2)
    return names.get(key, s)


cost = collections.defaultdict(int)
function_of = {}
ob = fn = None
addr = 0
skip_call_cost = False
for line in open(a.profile):
    line = line.rstrip("\n")
    if line.startswith("ob="):
        ob = name("ob", line[3:])
        continue
    if line.startswith("fn="):
        fn = name("fn", line[3:])
        continue
    if line.startswith("cob="):
        name("ob", line[4:])
        continue
    if line.startswith("cfn="):
        name("fn", line[4:])
        continue
    if line.startswith("calls="):
        skip_call_cost = True  # the next cost line is the call's inclusive cost
        continue
    if not line or re.match(r"^[a-z]+[:=]", line) or line[0] == "#":
        continue
    parts = line.split()
    p = parts[0]
    if p.startswith("0x"):
        addr = int(p, 16)
    elif p.startswith("+"):
        addr += int(p[1:], 0)
    elif p.startswith("-"):
        addr -= int(p[1:], 0)
    elif p != "*":
        continue
    if skip_call_cost:
        skip_call_cost = False
        continue
    if len(parts) >= 3:
        cost[(ob, addr)] += int(parts[2])
        function_of[(ob, addr)] = fn

hot = [k for k, c in cost.items() if c >= a.times]
lines = collections.defaultdict(set)
pages = collections.defaultdict(set)
instructions = collections.Counter()
for o, addr in hot:
    lines[o].add(addr >> 6)
    pages[o].add(addr >> 12)
    instructions[o] += cost[(o, addr)]
total_lines = total_pages = 0
for o in sorted(lines, key=lambda o: -len(lines[o])):
    print(f"{len(lines[o]):5d} lines {len(pages[o]):3d} pages {instructions[o] / a.times:8.0f} instr/rep  {o}")
    total_lines += len(lines[o])
    total_pages += len(pages[o])
print(f"{total_lines:5d} lines {total_pages:3d} pages in all (instructions run >= {a.times} times)")
if a.object:
    per = collections.defaultdict(lambda: [set(), 0])
    for o, addr in hot:
        if a.object in (o or ""):
            entry = per[function_of[(o, addr)]]
            entry[0].add(addr >> 6)
            entry[1] += cost[(o, addr)]
    print(f"\nfunctions of {a.object}:")
    for f, (ls, c) in sorted(per.items(), key=lambda x: -len(x[1][0])):
        print(f"{len(ls):4d} lines {c / a.times:6.0f} instr/rep  {f}")
