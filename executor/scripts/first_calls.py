#!/usr/bin/env python3
"""What a program's first calls cost, from the validation runs' per-call times.

  first_calls.py streams RUN/calls.jsonl
      run 47's layout (plain chains with --call-times, by order, streams, kernel length and connections):
      the extra cost of each stream's first launch by the order of first use (median over processes; the
      base is the median of the process's other launches), 64-stream programs only.
  first_calls.py first-call RUN
      runs 52-56's layout (RUN/plain.jsonl and RUN/traces/*-{old,new}-rN.json): the first call's time and
      the makespan of the plain program and of each streamlab run variant, by scenario.
"""
import glob
import json
import statistics as st
import sys
from collections import defaultdict


def streams(path):
    rows = [json.loads(line) for line in open(path)]
    for order in ("depth", "breadth"):
        for conn in sorted({r["conn"] for r in rows}):
            extra = defaultdict(list)
            for r in rows:
                if r["streams"] != 64 or r["order"] != order or r["conn"] != conn:
                    continue
                t = r["out"]["call_start_ns"]
                d = [t[i + 1] - t[i] for i in range(511)]
                if order == "depth":  # stream k's first launch is call 8k
                    base = st.median([d[i] for i in range(1, 511) if i % 8])
                    firsts = [d[8 * k] for k in range(64)]
                else:  # calls 0..63 are the first launches
                    base = st.median(d[128:])
                    firsts = d[:64]
                for k, x in enumerate(firsts):
                    extra[k].append((x - base) / 1e3)
            if extra:
                print(f"{order:8s} {conn:2d} connections, extra us by first use 0..39:",
                      " ".join(f"{st.median(extra[k]):.1f}" for k in range(40)))


def first_call(run):
    res = defaultdict(lambda: defaultdict(list))
    for line in open(f"{run}/plain.jsonl"):
        x = json.loads(line)
        c = x["out"]["call_start_ns"]
        res[x["label"]][x["variant"]].append(((c[1] - c[0]) / 1e3, x["out"]["sync_ns"]["end"] / 1e3))
    for f in glob.glob(f"{run}/traces/*.json"):
        label, variant, _ = f.split("/")[-1].rsplit("-", 2)
        t = json.load(open(f))
        ev = t["traceEvents"] if isinstance(t, dict) else t
        calls = sorted((e["args"] for e in ev if e.get("ph") == "X" and e["args"].get("host_call")),
                       key=lambda a: a["start_ns"])
        end = next(a for a in calls if a.get("op_id") == "end")["end_ns"]
        res[label]["run-" + variant].append(((calls[0]["end_ns"] - calls[0]["start_ns"]) / 1e3, end / 1e3))
    for label in sorted(res):
        print(label)
        for v, xs in sorted(res[label].items()):
            print(f"   {v:8s} first call {st.median(a for a, _ in xs):5.1f} us {[round(a, 1) for a, _ in xs]}"
                  f"  makespan median {st.median(b for _, b in xs):7.1f} us")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("streams", "first-call"):
        sys.exit(__doc__)
    (streams if sys.argv[1] == "streams" else first_call)(sys.argv[2])
