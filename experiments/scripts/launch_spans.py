#!/usr/bin/env python3
"""What each kernel launch cost the host in `streamlab run` traces: per trace name (repeats -rN merged), the
median `cudaLaunchKernel` host span, the median launch-to-launch interval and when the final
cudaDeviceSynchronize returned. Usage: launch_spans.py TRACE.json... (standard library only)."""
import collections
import json
import re
import statistics
import sys


def main(paths):
    rows = collections.defaultdict(list)
    for path in sorted(paths):
        with open(path) as f:
            t = json.load(f)
        calls = sorted((e for e in t["traceEvents"] if e.get("ph") == "X" and e["args"].get("host_call")),
                       key=lambda e: e["ts"])
        launches = [e for e in calls if e["name"] == "cudaLaunchKernel"]
        if len(launches) < 2:
            continue
        spans = [e["dur"] for e in launches]
        pace = (launches[-1]["ts"] - launches[0]["ts"]) / (len(launches) - 1)
        syncs = [e for e in calls if e["name"] == "cudaDeviceSynchronize"]
        end = syncs[-1]["ts"] + syncs[-1]["dur"] if syncs else float("nan")
        rows[re.sub(r"-r\d+\.json$", "", path.split("/")[-1])].append((statistics.median(spans), pace, end))
    print("| program | runs | launch span (median, us) | launch to launch (us) | end (us) |")
    print("|---|---|---|---|---|")
    for name, v in rows.items():
        print("| %s | %d | %.2f | %.2f | %.1f |" % (name, len(v), statistics.median(x[0] for x in v),
                                                  statistics.median(x[1] for x in v), statistics.median(x[2] for x in v)))


if __name__ == "__main__":
    main(sys.argv[1:])
