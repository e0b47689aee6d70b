#!/usr/bin/env python3
"""How the two copy directions shared the link in measured traces (streamlab run, CUPTI copy records).

  copy_sharing.py DIR

For DIR/traces/bidir-*-N.json (programs whose round r copies `a_h2d_r` and `a_d2h_r` each alone, then
`b_h2d_r` and `b_d2h_r` together): per program, each direction's median time alone and together and the
factor alone / together per round (median and range). For DIR/traces/stream-*-N.json (round r streams
copies `a_KIND_r_i` of each direction alone, then `b_KIND_r_i` of both together): the same with each
round's median copy time. For every other trace in DIR/traces: the median
duration of the copies that ran wholly beside a copy of the other direction (>= 95% of their time) and of
those that ran with none (<= 5%), per direction. Standard library only.
"""
import glob
import json
import os
import statistics
import sys


def copies(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for e in doc["traceEvents"]:
        a = e.get("args") or {}
        if e.get("ph") == "X" and "op_id" in a and a.get("engine") in ("copy_h2d", "copy_d2h"):
            out.append((a["engine"][5:], int(a["start_ns"]), int(a["end_ns"]), a["op_id"]))
    return out


def runs_of(d, name):
    """DIR/traces/NAME-N.json, N a run number (not NAME-other-N.json)."""
    return sorted(p for p in glob.glob(os.path.join(d, name + "-*.json"))
                  if os.path.basename(p)[len(name) + 1:-5].isdigit())


def med(v):
    return statistics.median(v) / 1e3 if v else float("nan")


def bidir(paths):
    alone, together, factor = {"h2d": [], "d2h": []}, {"h2d": [], "d2h": []}, {"h2d": [], "d2h": []}
    for p in paths:
        by_id = {c[3]: c for c in copies(p)}
        for kind in ("h2d", "d2h"):
            r = 0
            while f"a_{kind}_{r}" in by_id and f"b_{kind}_{r}" in by_id:
                _, a0, a1, _ = by_id[f"a_{kind}_{r}"]
                _, b0, b1, _ = by_id[f"b_{kind}_{r}"]
                alone[kind].append(a1 - a0)
                together[kind].append(b1 - b0)
                factor[kind].append((a1 - a0) / (b1 - b0))
                r += 1
    return " ".join("%s: alone %.1f us, together %.1f us, factor %.3f [%.3f-%.3f]" % (
        k, med(alone[k]), med(together[k]), statistics.median(factor[k]), min(factor[k]), max(factor[k]))
        for k in ("h2d", "d2h") if factor[k])


def streaming(paths):
    factor = {"h2d": [], "d2h": []}
    for p in paths:
        by_id = {c[3]: c for c in copies(p)}
        for kind in ("h2d", "d2h"):
            r = 0
            while True:
                a = [c[2] - c[1] for i, c in by_id.items() if i.startswith(f"a_{kind}_{r}_")]
                b = [c[2] - c[1] for i, c in by_id.items() if i.startswith(f"b_{kind}_{r}_")]
                if not a or not b:
                    break
                factor[kind].append(statistics.median(a) / statistics.median(b))
                r += 1
    return " ".join("%s: factor %.3f [%.3f-%.3f] over %d rounds" % (
        k, statistics.median(factor[k]), min(factor[k]), max(factor[k]), len(factor[k]))
        for k in ("h2d", "d2h") if factor[k])


def beside(path):
    cs = copies(path)
    parts = []
    for kind in ("h2d", "d2h"):
        others = [c for c in cs if c[0] != kind]
        full, none = [], []
        for k, a, b, _ in cs:
            if k != kind or b <= a:
                continue
            share = sum(max(0, min(b, d) - max(a, c)) for _, c, d, _ in others) / (b - a)
            (full if share >= 0.95 else none if share <= 0.05 else []).append(b - a)
        parts.append("%s: beside the other direction %d copies, median %.1f us; alone %d, median %.1f us" % (
            kind, len(full), med(full), len(none), med(none)))
    return "; ".join(parts)


def main():
    d = os.path.join(sys.argv[1], "traces")
    names = sorted({os.path.basename(p).rsplit("-", 1)[0] for p in glob.glob(os.path.join(d, "bidir-*.json"))})
    for n in names:
        print(n, bidir(runs_of(d, n)))
    names = sorted({os.path.basename(p).rsplit("-", 1)[0] for p in glob.glob(os.path.join(d, "stream-*.json"))})
    for n in names:
        print(n, streaming(runs_of(d, n)))
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        if not os.path.basename(p).startswith(("bidir-", "stream-")):
            print(os.path.basename(p), beside(p))


if __name__ == "__main__":
    main()
