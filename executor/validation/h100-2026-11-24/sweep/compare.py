#!/usr/bin/env python3
"""For each measured configuration: the sweep's measured makespans (sweep.csv) against the makespans that
`streamlab run` printed for the same configuration (lines 'run policy=P connections=C repeat=I makespan X us'
in LOG). A configuration matches when the median of its sweep runs lies inside [min, max] of its
`streamlab run`s (the run-to-run spread measured in the same call)."""
import csv
import re
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
runs = {}
for line in open(sys.argv[2]):
    m = re.match(r"run policy=(\S+) connections=(\d+) repeat=\d+ makespan ([0-9.]+) us", line)
    if m:
        runs.setdefault((m[1], m[2]), []).append(float(m[3]) * 1e3)
sweep = {}
for r in rows:
    if r["measured_makespan_ns"]:
        sweep.setdefault((r["policy"], r["connections"]), []).append(float(r["measured_makespan_ns"]))
ok = 0
for key in sorted(sweep):
    s, r = sweep[key], runs.get(key, [])
    if not r:
        print(f"{key}: no streamlab run lines")
        continue
    med = statistics.median(s)
    inside = min(r) <= med <= max(r)
    ok += inside
    print(f"policy={key[0]} connections={key[1]}: sweep median {med / 1e3:.1f} us (runs {min(s) / 1e3:.1f}..{max(s) / 1e3:.1f}), "
          f"streamlab run median {statistics.median(r) / 1e3:.1f} us (spread {min(r) / 1e3:.1f}..{max(r) / 1e3:.1f}, "
          f"{100 * (max(r) - min(r)) / statistics.median(r):.1f}%): {'inside' if inside else 'OUTSIDE'}; "
          f"sweep median vs run median {100 * (med / statistics.median(r) - 1):+.1f}%")
print(f"{ok}/{len(sweep)} configurations: sweep median inside the streamlab run spread")
