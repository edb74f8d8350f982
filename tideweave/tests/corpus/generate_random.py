#!/usr/bin/env python3
"""Writes the random workloads of the recorded CLI corpus (run once, by hand;
the outputs beside them were recorded with the CLI as it was before the typed
API refactor, commit a83fe16; see README.md). Deterministic: seeded."""
import json
import random
import sys


def workload(seed, lines, keys, gap):
    rng = random.Random(seed)
    active = {}  # id -> (key, ts, value)
    out = []
    wm = None
    next_id = 0
    base = 0
    for _ in range(lines):
        r = rng.random()
        if r < 0.62:
            muts = []
            for _ in range(rng.randint(0, 12)):
                c = rng.random()
                if c < 0.6 or not active:
                    next_id += 1
                    i = "e%d" % next_id
                    k = "k%d" % rng.randrange(keys)
                    ts = base + rng.randint(-3 * gap, 6 * gap)
                    v = rng.choice([rng.randint(-100, 100), round(rng.uniform(-1000, 1000), 2), 1e16, -1e16, 0.1])
                    muts.append({"insert": {"id": i, "key": k, "ts": ts, "value": v}})
                    active[i] = (k, ts, v)
                elif c < 0.85:
                    i = rng.choice(sorted(active))
                    k, ts, v = active.pop(i)
                    body = {"id": i, "key": k, "ts": ts}
                    if rng.random() < 0.3:
                        body["value"] = v
                    muts.append({"retract": body})
                else:  # an update: retraction then insert of the same id
                    i = rng.choice(sorted(active))
                    k, ts, v = active[i]
                    nts = ts + rng.randint(-gap, gap)
                    muts.append({"retract": {"id": i, "key": k, "ts": ts}})
                    muts.append({"insert": {"id": i, "key": k, "ts": nts, "value": v + 1}})
                    active[i] = (k, nts, v + 1)
            if rng.random() < 0.06 and muts:
                # Break one mutation's identity: the whole transaction is
                # rejected. Its events' fate is then left out of the
                # bookkeeping (no later mutation names them).
                muts.insert(rng.randrange(len(muts) + 1), {"retract": {"id": "missing", "key": "k0", "ts": base}})
                for m in muts:
                    active.pop(next(iter(m.values()))["id"], None)
            out.append(json.dumps({"tx": muts}, separators=(",", ":")))
            base += rng.randint(0, 2 * gap)
        elif r < 0.74:
            w = base - rng.randint(0, 4 * gap)
            if wm is not None and w < wm and rng.random() < 0.7:
                w = wm
            out.append('{"watermark":%d}' % w)
            if wm is None or w >= wm:
                wm = w
        elif r < 0.82:
            out.append('{"forget":true}')
        elif r < 0.9:
            out.append('{"snapshot":true}')
        elif r < 0.97:
            out.append('{"checkpoint":true}')
        else:
            out.append(rng.choice(['{"bogus":1}', "not json", '{"tx":[{"insert":{"id":"","key":"k","ts":0,"value":1}}]}']))
    return out


if __name__ == "__main__":
    for name, seed, lines, keys, gap in [("random_small_gap", 1, 400, 3, 3), ("random_many_keys", 2, 400, 20, 10),
                                          ("random_one_key", 3, 300, 1, 5)]:
        with open(name + ".ndjson", "w") as f:
            for line in workload(seed, lines, keys, gap):
                f.write(line + "\n")
    sys.exit(0)
