#!/usr/bin/env python3
"""Compare two device profiles parameter by parameter (e.g. two back-to-back `streamlab calibrate` runs):
  compare_profiles.py A.json B.json [--threshold 0.05] [--markdown]
Prints every parameter with A's and B's value, their relative difference (|a - b| / max(|a|, |b|)) and the
spread each profile stored beside it (calibrate rounds), and a count of parameters over the threshold, and
of those, how many differ by less than the larger of the two stored spreads (apart by less than each
calibrate's own uncertainty says they could be).
  compare_profiles.py --pairs A1.json B1.json A2.json B2.json ... [--threshold 0.05]
A markdown table of several back-to-back pairs: per parameter, each pair's difference and A1's value,
range (5th-95th percentile, where measured) and spread, and per pair the count over the threshold."""
import argparse
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--pairs", action="store_true", help="the profiles are back-to-back pairs: one column each")
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only-over", action="store_true", help="list only the parameters over the threshold")
    x = ap.parse_args()
    if x.pairs:
        return pairs(x)
    if len(x.profiles) != 2:
        ap.error("give two profiles, or --pairs and an even number of them")
    a = json.load(open(x.profiles[0]))["params"]
    b = json.load(open(x.profiles[1]))["params"]
    over = within_spread = 0
    rows = []
    for k in a:
        va, vb = a[k]["value"], b[k]["value"]
        m = max(abs(va), abs(vb))
        d = abs(va - vb) / m if m else 0.0
        over += d > x.threshold
        within_spread += d > x.threshold and d < max(a[k].get("spread") or 0, b[k].get("spread") or 0)
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
    print(f"{over} of {len(a)} parameters differ by more than {100 * x.threshold:.0f}%; {within_spread} of them by less "
          f"than the larger of their two stored spreads")


def difference(va, vb):
    m = max(abs(va), abs(vb))
    return abs(va - vb) / m if m else 0.0


def pairs(x):
    if len(x.profiles) % 2:
        raise SystemExit("--pairs needs an even number of profiles")
    loaded = [json.load(open(f))["params"] for f in x.profiles]
    first = loaded[0]
    n = len(loaded) // 2
    print("| parameter | unit | " + " | ".join(f"pair {i + 1}" for i in range(n)) + " | value (pair 1, A) | range | spread |")
    print("|---|---|" + "---|" * n + "---|---|---|")
    over = [0] * n
    counted = [0] * n
    for k in first:
        # Optional parameters that an older pair's profiles lack: "-" there.
        ds = [difference(loaded[2 * i][k]["value"], loaded[2 * i + 1][k]["value"])
              if k in loaded[2 * i] and k in loaded[2 * i + 1] else None for i in range(n)]
        for i, d in enumerate(ds):
            if d is not None:
                over[i] += d > x.threshold
                counted[i] += 1
        r = first[k].get("range")
        sp = first[k].get("spread")
        print(f"| `{k}` | {first[k]['unit']} | " + " | ".join("-" if d is None else f"{100 * d:.1f}%" for d in ds) +
              f" | {first[k]['value']:g} | " + (f"{r[0]:g}-{r[1]:g}" if r else "") + " | " +
              ("" if sp is None else f"{100 * sp:.1f}%") + " |")
    print()
    print("Parameters over %.0f%% apart: " % (100 * x.threshold) +
          ", ".join(f"pair {i + 1}: {c} of {counted[i]}" for i, c in enumerate(over)))


if __name__ == "__main__":
    main()
