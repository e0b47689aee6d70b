#!/usr/bin/env python3
"""Per-launch host cost of the V1 chain programs, from a `program_suite.py measure --plain-call-times` file.

  launch_costs.py suite-measured.json

For each chain configuration and each round (a fresh process of the plain program): the median and the mean
(calls over 20 us left out as interruptions) of the intervals between successive launch calls after each
stream's first launch (first uses cost more). Rounds run every configuration once, so the same column of two
configurations was measured minutes apart at most: compare configurations within a round. Standard library only.
"""
import json
import statistics as st
import sys


def per_round(extra, label, streams):
    out = []
    for r in extra[label]["plain"]:
        t = r.get("call_start_ns")
        if not t:
            continue
        d = [b - a for a, b in zip(t, t[1:])][streams:-1]  # after the first launch of every stream; not the sync
        out.append((st.median(d), st.mean([x for x in d if x < 20000])))
    return out


def main():
    m = json.load(open(sys.argv[1]))
    extra = m["extra"]
    print("per-launch host cost, us: median/mean per round (plain program, a clock read per call)")
    for streams in (4, 8, 16, 32, 64):
        for order in ("breadth", "depth"):
            cells = []
            for conn in ("_conn=1", "", "_conn=32"):
                label = f"chains_streams={streams}_order={order}{conn}"
                if label not in extra:
                    cells.append("-")
                    continue
                cells.append(" ".join(f"{a / 1e3:4.2f}/{b / 1e3:4.2f}" for a, b in per_round(extra, label, streams)))
            print(f"{streams:2d} {order:7s} conn1: {cells[0]} | conn8: {cells[1]} | conn32: {cells[2]}")


if __name__ == "__main__":
    main()
