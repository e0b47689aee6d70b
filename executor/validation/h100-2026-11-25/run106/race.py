#!/usr/bin/env python3
"""Per run of run 106: each E7 kernel's start (us from the run's first call) and duration.

  race.py TRACE.json...

hp0 starting before or with bg1 means the foreground kernel won the race for the SMs when bg0 ended; hp0
starting one background block after bg1 means bg1 took every SM first. Standard library only.
"""
import json
import sys

for path in sys.argv[1:]:
    t = json.load(open(path))
    spans = {e["args"]["op_id"]: e["args"] for e in t["traceEvents"]
             if e.get("ph") == "X" and not e["args"].get("host_call")}
    cells = []
    for k in ("bg0", "bg1", "hp0", "hp1", "hp2", "hp3"):
        s = spans[k]
        cells.append(f"{k} {s['start_ns'] / 1e3:7.1f} +{(s['end_ns'] - s['start_ns']) / 1e3:5.1f}")
    won = "foreground first" if spans["hp0"]["start_ns"] <= spans["bg1"]["start_ns"] + 1000 else "background first"
    print(f"{path.rsplit('/', 1)[-1]:40s} {' | '.join(cells)} | {won}")
