#!/usr/bin/env python3
"""Compare two device profiles parameter by parameter (e.g. two back-to-back `streamlab calibrate` runs):
  compare_profiles.py A.json B.json [--threshold 0.05] [--markdown]
Prints every parameter with A's and B's value, their relative difference (|a - b| / max(|a|, |b|)) and the
spread each profile stored beside it (calibrate rounds), and a count of parameters over the threshold."""
import argparse
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only-over", action="store_true", help="list only the parameters over the threshold")
    x = ap.parse_args()
    a = json.load(open(x.a))["params"]
    b = json.load(open(x.b))["params"]
    over = 0
    rows = []
    for k in a:
        va, vb = a[k]["value"], b[k]["value"]
        m = max(abs(va), abs(vb))
        d = abs(va - vb) / m if m else 0.0
        over += d > x.threshold
        if x.only_over and d <= x.threshold:
            continue
        sa, sb = a[k].get("spread"), b[k].get("spread")
        fmt = lambda s: "n/a" if s is None else "%.1f%%" % (100 * s)
        rows.append((k, va, vb, d, fmt(sa), fmt(sb), a[k]["unit"]))
    if x.markdown:
        print("| parameter | unit | A | B | difference | spread A | spread B |")
        print("|---|---|---|---|---|---|---|")
        for k, va, vb, d, sa, sb, u in rows:
            print(f"| `{k}` | {u} | {va:g} | {vb:g} | {100 * d:.1f}% | {sa} | {sb} |")
    else:
        for k, va, vb, d, sa, sb, u in rows:
            print(f"{k:44s} {va:14.3f} {vb:14.3f} {100 * d:7.1f}%   spread {sa:>7s} {sb:>7s}  {u}")
    print(f"{over} of {len(a)} parameters differ by more than {100 * x.threshold:.0f}%")


if __name__ == "__main__":
    main()
