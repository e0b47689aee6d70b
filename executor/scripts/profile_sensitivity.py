#!/usr/bin/env python3
"""Which profile differences matter to a prediction: predict the same programs with two device profiles
(e.g. two back-to-back `streamlab calibrate` runs) and say how far the predictions move.

  profile_sensitivity.py A.json B.json --streamlab build/cli/streamlab \
      [--results experiments/results/h100] [--suite DIR --suite-measured M.json] \
      [--threshold 0.05] [--one-at-a-time] [--out FILE.md]

--results: an experiment result folder with measurements (E1-E9): copied to a scratch folder and
  re-predicted there with each profile (`streamlab experiment repredict --device`); nothing is written
  into the given folder.
--suite / --suite-measured: the V1 validation suite's emitted workloads (`program_suite.py emit`) and a
  measured suite file: predicted with each profile (`program_suite.py predict --device`).
--one-at-a-time: for every parameter whose two values differ by more than --threshold, predict again with
  A's profile carrying B's value of that parameter alone, and report how far that one parameter moves the
  predictions (largest and median move over all configurations).

Prints markdown: the parameters over the threshold, each configuration's prediction with A and with B
(makespan or the experiment's metric), the moves' summary, and each profile's error against the
measurements where the results carry them."""
import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "..", "experiments", "scripts", "program_suite.py")


def difference(va, vb):
    m = max(abs(va), abs(vb))
    return abs(va - vb) / m if m else 0.0


def load_params(path):
    with open(path) as f:
        return json.load(f)


def experiment_predictions(streamlab, results, profile, scratch):
    """{(experiment, configuration): (predicted, measured)} from a repredict of a copy of `results`."""
    folder = os.path.join(scratch, "results")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(results, folder, ignore=shutil.ignore_patterns("*.png", "*.svg", "*.pdf", "traces"))
    subprocess.run([streamlab, "experiment", "repredict", folder, "--device", profile, "--traces", "none", "-q"],
                   check=True, stdout=subprocess.DEVNULL)
    out = {}
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("E") and name.endswith(".json")):
            continue
        with open(os.path.join(folder, name)) as f:
            d = json.load(f)
        if "configurations" not in d:
            continue
        for c in d["configurations"]:
            p, m = c.get("predicted", {}), c.get("measured", {})
            # The experiment's metric (a makespan, a latency, a ratio) is what its verdict reads.
            key = "metric" if "metric" in p else "makespan_ns"
            if key not in p:
                continue
            out[(d["experiment"], c["label"])] = (p[key], m.get(key))
    return out


def suite_predictions(streamlab, suite, measured, profile, scratch):
    target = os.path.join(scratch, "suite.json")
    subprocess.run([sys.executable, SUITE, "predict", "--streamlab", streamlab, "--dir", suite, "--measured", measured,
                    "--out", target, "--device", profile], check=True, stdout=subprocess.DEVNULL)
    with open(target) as f:
        d = json.load(f)
    return {("V1", c["label"]): (c["predicted_ns"], (c.get("plain") or {}).get("median_ns")) for c in d["configs"]}


def predictions(args, profile, scratch):
    out = {}
    if args.results:
        out.update(experiment_predictions(args.streamlab, args.results, profile, scratch))
    if args.suite:
        out.update(suite_predictions(args.streamlab, args.suite, args.suite_measured, profile, scratch))
    return out


def moves(a, b):
    """Relative move of every configuration's prediction from a to b."""
    return {k: difference(a[k][0], b[k][0]) for k in a if k in b and a[k][0] is not None and b[k][0] is not None}


def errors(pred):
    """|predicted - measured| / measured of every configuration with a measurement."""
    return [abs(p - m) / m for p, m in pred.values() if m]


def pct(x):
    return "%.2f%%" % (100 * x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--streamlab", required=True)
    ap.add_argument("--results")
    ap.add_argument("--suite")
    ap.add_argument("--suite-measured")
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--one-at-a-time", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    if not args.results and not args.suite:
        ap.error("give --results, --suite or both")
    if bool(args.suite) != bool(args.suite_measured):
        ap.error("--suite and --suite-measured go together")
    pa, pb = load_params(args.a), load_params(args.b)
    over = [k for k in pa["params"] if k in pb["params"] and
            difference(pa["params"][k]["value"], pb["params"][k]["value"]) > args.threshold]

    lines = []
    emit = lines.append
    emit(f"# How far two profiles' predictions differ\n")
    emit(f"A: `{args.a}`  \nB: `{args.b}`  \nstreamlab: `{args.streamlab}`\n")
    emit(f"## Parameters more than {100 * args.threshold:.0f}% apart ({len(over)} of {len(pa['params'])})\n")
    emit("| parameter | A | B | difference |")
    emit("|---|---|---|---|")
    for k in over:
        va, vb = pa["params"][k]["value"], pb["params"][k]["value"]
        emit(f"| `{k}` | {va:g} | {vb:g} | {pct(difference(va, vb))} |")
    emit("")

    with tempfile.TemporaryDirectory(prefix="sensitivity-") as scratch:
        with_a = predictions(args, args.a, scratch)
        with_b = predictions(args, args.b, scratch)
        both = moves(with_a, with_b)
        largest = sorted(both.items(), key=lambda kv: -kv[1])
        emit(f"## Predictions with A and with B ({len(both)} configurations)\n")
        emit(f"Largest move {pct(largest[0][1]) if largest else 'n/a'}, median "
             f"{pct(statistics.median(both.values())) if both else 'n/a'}; moved more than 1%: "
             f"{sum(v > 0.01 for v in both.values())}, more than 2%: {sum(v > 0.02 for v in both.values())}, "
             f"more than 5%: {sum(v > 0.05 for v in both.values())}.\n")
        ea, eb = errors(with_a), errors(with_b)
        if ea and eb:
            emit(f"Against the measurements ({len(ea)} configurations): with A median error {pct(statistics.median(ea))}, "
                 f"within 5% {sum(e <= 0.05 for e in ea)}; with B median error {pct(statistics.median(eb))}, "
                 f"within 5% {sum(e <= 0.05 for e in eb)}.\n")
        emit("| experiment | configuration | predicted with A | predicted with B | move | measured |")
        emit("|---|---|---|---|---|---|")
        for (exp, label), v in largest:
            m = with_a[(exp, label)][1]
            emit(f"| {exp} | {label} | {with_a[(exp, label)][0]:.6g} | {with_b[(exp, label)][0]:.6g} | {pct(v)} | "
                 f"{'' if m is None else '%.6g' % m} |")
        emit("")

        if args.one_at_a_time and over:
            emit("## One parameter at a time (A's profile with B's value of that parameter)\n")
            emit("| parameter | largest move | median move | moved more than 1% | configuration moved most |")
            emit("|---|---|---|---|---|")
            for k in over:
                mixed = copy.deepcopy(pa)
                mixed["params"][k] = copy.deepcopy(pb["params"][k])
                path = os.path.join(scratch, "mixed.json")
                with open(path, "w") as f:
                    json.dump(mixed, f)
                got = moves(with_a, predictions(args, path, scratch))
                top = max(got.items(), key=lambda kv: kv[1]) if got else (("", ""), 0.0)
                emit(f"| `{k}` | {pct(top[1])} | {pct(statistics.median(got.values())) if got else 'n/a'} | "
                     f"{sum(v > 0.01 for v in got.values())} | {top[0][0]} {top[0][1]} |")
            emit("")

    text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
