#!/usr/bin/env python3
"""Widen a profile's measured ranges to what several machines of the same kind showed.

  machine_ranges.py BASE OTHER... -o OUT

BASE is one machine's calibrate output. Every parameter that carries a `range` there (the host API call
costs, the host-set pageable copy rates and the copy directions' sharing: what `streamlab sim --host-speed
fast|slow` reads) gets the envelope of its range over BASE and every OTHER calibration that has one: the
lowest low and the highest high. Values, spreads and every other field stay BASE's; each widened
parameter's source says which files the range spans. A prediction's range then covers the machines
calibrated, not only BASE's own process-to-process spread.

  --add-missing FILE: parameters BASE does not have (optional ones measured only by a newer calibrate) are
  taken from FILE, a calibration of another machine, whole (value, source, spread), each source saying so.
  --take NAME=FILE: parameter NAME is taken from FILE the same way although BASE has it (a parameter whose
  method changed since BASE was calibrated).
Ranges are widened after taking, so a taken parameter's range spans every file that measured it.

Standard library only.
"""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("others", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--add-missing", action="append", default=[], metavar="FILE",
                    help="take parameters BASE lacks from this calibration (another machine's)")
    ap.add_argument("--take", action="append", default=[], metavar="NAME=FILE",
                    help="take parameter NAME from this calibration (another machine's) in place of BASE's")
    a = ap.parse_args()
    base = json.load(open(a.base))
    others = [(p, json.load(open(p))["params"]) for p in a.others]
    def short(path):  # folder/file: calibrations are named calibrate-N.json in one folder per run
        return os.path.basename(os.path.dirname(os.path.abspath(path))) + "/" + os.path.basename(path)
    names = [short(a.base)] + [short(p) for p, _ in others]
    def from_other(path, v):
        v = dict(v)
        v["source"] = ("from another H100 machine's calibration (%s), not measured on this profile's: %s"
                       % (short(path), v["source"]))
        return v

    origin = {}  # parameter -> the file it was taken from (it stands for that file in the envelope)
    for spec in a.take:
        name, _, path = spec.partition("=")
        params = json.load(open(path))["params"]
        if name not in params or name not in base["params"]:
            raise SystemExit("machine_ranges.py: --take %s: no parameter %s in %s or in the base profile" % (spec, name, path))
        base["params"][name] = from_other(path, params[name])
        origin[name] = os.path.abspath(path)
    for path in a.add_missing:
        params = json.load(open(path))["params"]
        merged = {}
        for k, v in params.items():  # in the newer calibration's order, which places the new fields
            if k in base["params"]:
                merged[k] = base["params"][k]
            else:
                merged[k] = from_other(path, v)
                origin[k] = os.path.abspath(path)
        for k, v in base["params"].items():
            merged.setdefault(k, v)
        base["params"] = merged
    # Widen after taking: a parameter taken from a newer calibration gets the envelope of every file that has it.
    for k, param in base["params"].items():
        if "range" not in param:
            continue
        lo, hi = param["range"]
        used = 1
        for path, params in others:
            if os.path.abspath(path) == origin.get(k):
                continue
            r = params.get(k, {}).get("range")
            if r:
                lo, hi = min(lo, r[0]), max(hi, r[1])
                used += 1
        if [lo, hi] == param["range"]:
            continue
        param["source"] += ("; range: the envelope of the ranges of %d calibrations on H100 machines (%s; this "
                            "profile's own: %s to %s)" % (used, ", ".join(names), repr(param["range"][0]),
                                                          repr(param["range"][1])))
        param["range"] = [lo, hi]
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(base, f, indent=2)
        f.write("\n")
    os.replace(tmp, a.output)
    print("wrote", a.output)


if __name__ == "__main__":
    main()
