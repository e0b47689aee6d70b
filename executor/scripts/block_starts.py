#!/usr/bin/env python3
"""Where each kernel's blocks ran, from a trace with block records (`streamlab run --blocks` or
`streamlab sim --blocks`): per kernel, its blocks, how many SMs they used and the most on one SM, and
when they started after the kernel's first block (5 us bins), with the shortest and longest block.

  block_starts.py TRACE [--only SUBSTR]

Standard library only (runs on the GPU host too).
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--only", default="", help="kernels whose op id contains this")
    a = ap.parse_args()
    with open(a.trace) as f:
        d = json.load(f)
    records = d.get("streamlabBlocks")
    if not records:
        sys.exit(f"{a.trace}: no block records (run or sim with --blocks)")
    host_tid = 1_000_000
    names = {}
    for e in d["traceEvents"]:
        if e.get("ph") == "X" and e.get("tid") != host_tid and "op" in e.get("args", {}):
            names[e["args"]["op"]] = e["args"].get("op_id", e["name"])
    blocks = collections.defaultdict(list)
    for op, block, sm, start, end in records:
        blocks[op].append((start, end, sm, block))
    print("%-24s %6s %5s %6s %10s  %-9s  %s" % ("kernel", "blocks", "SMs", "max/SM", "first (us)", "block (us)",
                                               "starts after the first (5 us bins: count)"))
    for op in sorted(blocks, key=lambda o: min(b[0] for b in blocks[o])):
        name = names.get(op, str(op))
        if a.only not in name:
            continue
        v = blocks[op]
        first = min(b[0] for b in v)
        per_sm = collections.Counter(b[2] for b in v)
        bins = collections.Counter(int((b[0] - first) / 5000) * 5 for b in v)
        durations = [(b[1] - b[0]) / 1e3 for b in v]
        print("%-24s %6d %5d %6d %10.1f  %4.1f-%-4.1f  %s" % (
            name[:24], len(v), len(per_sm), max(per_sm.values()), first / 1e3, min(durations), max(durations),
            " ".join("+%d:%d" % (k, n) for k, n in sorted(bins.items()))))


if __name__ == "__main__":
    main()
