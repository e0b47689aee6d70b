#!/usr/bin/env python3
"""The program validation suite (V1): every scenario as a plain CUDA program, through `streamlab run`
(replay) and through `streamlab sim` (bundled profile), on fresh processes.

  program_suite.py emit    --plain BIN --dir DIR
      writes DIR/<label>.json (the program workload each plain program makes) and DIR/suite.json.
  program_suite.py measure --plain BIN --streamlab BIN --dir DIR --out FILE [--repeats 5]
                           [--variants plain,run,records] [--only SUBSTR]
                           [--keep-traces DIR] [--plain-call-times] [--streamlab-b BIN]
      on the GPU: `repeats` rounds, each running every configuration once per variant, each run a fresh
      process under the configuration's CUDA_DEVICE_MAX_CONNECTIONS; the variants alternate their order
      from round to round. plain = the hand-written program; run = `streamlab run` of its workload (replay,
      CUPTI tracing on); run-TIMING = the same with `--timing TIMING` (run-none: no CUPTI and no events,
      what measuring costs the program; run-gpu-timer: copies left untimed, measured only for programs
      with copies, as `run` already runs the others so); records = the plain program plus a completion event recorded after
      every work call (what the Dispatcher adds for its non-replay policies); block-records = the plain program
      with its kernels writing their blocks' start and end as `streamlab run`'s do. A run variant ending in "@b"
      (run@b, run-none@b, ...) is the same run made by the --streamlab-b build: two builds side by side in
      one measurement, their runs interleaved. Writes FILE (JSON) with every run's metric.
  program_suite.py predict --streamlab BIN --dir DIR --measured FILE --out FILE [--device PROFILE]
      runs `streamlab sim` per configuration (at its connections) and writes the results file the report
      reads: per configuration the median and range of every variant, the prediction, and errors; and the
      predicted range, as the experiments take it: the prediction with the host at the profile's speed and,
      where the profile's host API costs carry measured ranges, at eight positions from a fast to a slow
      spell (`sim --host-speed fast|-0.75|...|0.75|slow`), each with the copy engines' queues shared by streams s and s + 4 and with one per
      stream (`sim --copy-queues`), each with the engines taking the oldest copy's queue next and the queues in
      bit-reversed order (`sim --copy-queue-order`; which a machine has varies), each with the three rules for
      a race between two kernels of any priority (`sim --kernel-race`): 108 variants (12 without host
      ranges).

  program_suite.py sensitivity --streamlab BIN --dir DIR --measured FILE --a PROFILE --b PROFILE
                               [--results DIR] [--threshold 5] [--markdown FILE]
      which differences between two calibrations matter to a prediction: predicts every configuration
      with profile A and with B, then, for each parameter more than `threshold` percent apart, with A
      carrying B's value of that one parameter; prints per parameter the largest change of a prediction it
      causes, and how far A's and B's predictions are apart. With --results (an experiment result folder
      with measurements, e.g. experiments/results/h100), the experiments' configurations count too: a copy
      of the folder is re-predicted with each profile (`streamlab experiment repredict --device`), and each
      configuration's metric (what its verdict reads) is compared as the suite's are.

The metric of a configuration is when its program's metric synchronize returned (ns since the program's
first call): "end" (the final cudaDeviceSynchronize, i.e. the makespan as the host sees it) or, for the
priority scenario, "fg_done" (the foreground stream's synchronize). In a trace it is the end of that op's
host-lane span. Standard library only (the GPU host has no extra Python packages).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CONNECTIONS = (1, 8, 32)


def matrix():
    """Every configuration: (label, scenario, params, connections, metric op id)."""
    out = []

    def add(scenario, params, connections=8, metric="end"):
        parts = [scenario] + [f"{k}={v}" for k, v in params.items()]
        if connections != 8:
            parts.append(f"conn={connections}")
        out.append({"label": "_".join(parts), "scenario": scenario, "params": params,
                    "connections": connections, "metric": metric})

    for order in ("depth", "breadth"):
        for n in (1, 2, 3, 4, 8):
            add("chunked", {"streams": n, "order": order})
    for conn in CONNECTIONS:
        for order in ("depth", "breadth"):
            for n in (1, 2, 4, 8, 16, 32, 64):
                add("chains", {"streams": n, "order": order}, conn)
    add("triple-buffer", {})
    for kind in ("blocking", "non-blocking"):
        add("legacy-null", {"kind": kind})
    for prio in (-5, 0):
        add("priority", {"fg_priority": prio}, metric="fg_done")
    for assignment in ("static", "dynamic"):
        add("task-pool", {"assignment": assignment})
    return out


def plain_args(cfg):
    return [cfg["scenario"]] + [f"{k}={v}" for k, v in cfg["params"].items()] + ["--name", cfg["label"]]


def cmd_emit(a):
    os.makedirs(a.dir, exist_ok=True)
    cfgs = matrix()
    for cfg in cfgs:
        subprocess.run([a.plain] + plain_args(cfg) + ["--emit", os.path.join(a.dir, cfg["label"] + ".json")],
                       check=True)
    with open(os.path.join(a.dir, "suite.json"), "w") as f:
        json.dump(cfgs, f, indent=1)
    print(f"wrote {len(cfgs)} program workloads to {a.dir}")


def trace_meta(path):
    """The run metadata of a trace streamlab wrote (device, driver, CUDA version, date, timing)."""
    with open(path) as f:
        m = json.load(f).get("otherData", {})
    extra = m.get("extra", {})
    return {"device": m.get("device_name", ""), "driver": extra.get("driver", ""),
            "cuda_version": extra.get("cuda_runtime", ""), "date": m.get("date", ""),
            "streamlab_version": m.get("version", ""), "timing": extra.get("clock", "")}


def trace_metric(path, metric):
    """(metric end ns, device makespan ns, first device start ns) from a Chrome trace streamlab wrote."""
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    host_end, dev_end, dev_start = None, 0, None
    for e in events:
        args = e.get("args") or {}
        if "op_id" not in args or e.get("ph") == "M":
            continue
        if args.get("engine") == "host":
            if args["op_id"] == metric:
                host_end = int(args["end_ns"])
            continue
        dev_end = max(dev_end, int(args["end_ns"]))
        s = int(args["start_ns"])
        dev_start = s if dev_start is None else min(dev_start, s)
    return host_end, dev_end, dev_start


def has_copies(suite_dir, label):
    """Whether a configuration's program workload has copies or memsets (what CUPTI would time)."""
    with open(os.path.join(suite_dir, label + ".json")) as f:
        ops = json.load(f).get("ops", [])
    return any(o.get("kind") in ("h2d", "d2h", "d2d", "memset") for o in ops)


def run_once(argv, env, timeout=120):
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


def cmd_measure(a):
    cfgs = json.load(open(os.path.join(a.dir, "suite.json")))
    if a.only:
        cfgs = [c for c in cfgs if any(s in c["label"] for s in a.only.split(","))]
    variants = a.variants.split(",")
    if any(v.endswith("@b") for v in variants) and not a.streamlab_b:
        sys.exit("program_suite.py measure: a variant ending in @b needs --streamlab-b")
    runs = {c["label"]: {v: [] for v in variants} for c in cfgs}
    extra = {c["label"]: {v: [] for v in variants} for c in cfgs}
    failures = []
    tmp = tempfile.mkdtemp(prefix="program-suite-")
    if a.keep_traces:
        os.makedirs(a.keep_traces, exist_ok=True)
    meta = {}
    t_start = time.monotonic()
    for r in range(a.repeats):
        order = variants if r % 2 == 0 else list(reversed(variants))
        for cfg in cfgs:
            env = dict(os.environ, CUDA_DEVICE_MAX_CONNECTIONS=str(cfg["connections"]))
            for v in order:
                label = cfg["label"]
                kind, build = (v[:-2], a.streamlab_b) if v.endswith("@b") else (v, a.streamlab)
                if kind == "run-gpu-timer" and not has_copies(a.dir, label):
                    continue  # without copies `streamlab run` already runs it so: the "run" variant
                if kind == "run" or kind.startswith("run-"):
                    # run-TIMING: `streamlab run --timing TIMING` (e.g. run-none: no CUPTI, no events: what the
                    # measurement itself costs the program).
                    trace = os.path.join(tmp, label + ".trace.json")
                    argv = [build, "run", os.path.join(a.dir, label + ".json"), "-o", trace]
                    if kind.startswith("run-"):
                        argv += ["--timing", kind[len("run-"):]]
                    if a.policy:
                        argv += ["--policy", a.policy]
                    p, wall = run_once(argv, env)
                    if p.returncode != 0:
                        failures.append(f"{label} run r{r}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
                        continue
                    if a.keep_traces:
                        shutil.copy(trace, os.path.join(a.keep_traces, f"{label}-{v}-r{r + 1}.json"))
                    host_end, dev_end, dev_start = trace_metric(trace, cfg["metric"])
                    if host_end is None:
                        failures.append(f"{label} run r{r}: no host span for '{cfg['metric']}' in the trace")
                        continue
                    runs[label][v].append(host_end)
                    if not meta:
                        meta = trace_meta(trace)
                    extra[label][v].append({"device_makespan_ns": dev_end, "first_device_start_ns": dev_start,
                                            "process_s": round(wall, 3)})
                else:
                    argv = [a.plain] + plain_args(cfg) + {"records": ["--completion-records"],
                                                          "block-records": ["--block-records"]}.get(v, [])
                    if a.plain_call_times:
                        argv.append("--call-times")
                    p, wall = run_once(argv, env)
                    if p.returncode != 0:
                        failures.append(f"{label} {v} r{r}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
                        continue
                    out = json.loads(p.stdout.strip().splitlines()[-1])
                    runs[label][v].append(out["sync_ns"][cfg["metric"]])
                    extra[label][v].append({"process_s": round(wall, 3)})
                    if "call_start_ns" in out:
                        extra[label][v][-1]["call_start_ns"] = out["call_start_ns"]
        print(f"round {r + 1}/{a.repeats} done after {time.monotonic() - t_start:.0f} s", flush=True)
        # Written after every round: a run cut short by its time limit keeps the rounds it finished.
        result = {"meta": meta, "repeats": r + 1, "variants": variants, "configs": cfgs, "runs": runs, "extra": extra,
                  "failures": failures, "seconds": round(time.monotonic() - t_start, 1),
                  "env": {k: os.environ.get(k, "") for k in ("CUDA_MODULE_LOADING",)}}
        with open(a.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(a.out + ".tmp", a.out)
    for line in failures[:20]:
        print("FAILED:", line)
    summarize(result)


def spread(values):
    if not values:
        return None
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else 0.0


def summarize(result):
    variants = result["variants"]
    print("%-44s" % "configuration" + "".join("%14s %6s" % (v + " ms", "sprd") for v in variants) +
          ("".join("  %9s" % (v[:5] + "/pl") for v in variants if v != "plain") if "plain" in variants else ""))
    for cfg in result["configs"]:
        r = result["runs"][cfg["label"]]
        line = "%-44s" % cfg["label"][:44]
        for v in variants:
            vals = r.get(v) or []
            line += "%14s %6s" % (("%.3f" % (statistics.median(vals) / 1e6)) if vals else "-",
                                  ("%.1f%%" % (100 * spread(vals))) if vals else "-")
        if "plain" in variants and r.get("plain"):
            p = statistics.median(r["plain"])
            for v in [x for x in variants if x != "plain"]:
                line += "  %+8.2f%%" % (100 * (statistics.median(r[v]) / p - 1)) if r.get(v) else "  %9s" % "-"
        print(line)


def profile_has_ranges(path):
    """Whether what the host's speed sets (API call costs, pageable copy rates) carries measured ranges."""
    if not path:  # the bundled profile: streamlab has it built in from this file of its checkout
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model", "profiles", "h100-sxm.json")
        if not os.path.exists(path):
            return False
    params = json.load(open(path)).get("params", {})
    return bool(params) and all("range" in params[k] for k in HOST_CALLS if k in params)


HOST_CALLS = ("kernel_launch_ns", "memcpy_async_issue_ns", "event_create_ns", "event_record_timed_ns",
              "event_record_untimed_ns", "event_query_ns", "stream_query_ns", "stream_wait_event_ns",
              "host_func_issue_ns", "h2d_pageable_gbps", "d2h_pageable_gbps")


def sim_argv(streamlab, wdir, cfg, trace):
    """`streamlab sim` of a configuration's workload at its connections, writing `trace`."""
    return [streamlab, "sim", os.path.join(wdir, cfg["label"] + ".json"), "-o", trace,
            "--connections", str(cfg["connections"])]


# `sim --copy-queues` for "every stream's copies queue on their own" (at most 32 connections).
kQueuePerStream = 32


def cmd_predict(a):
    measured = json.load(open(a.measured))
    tmp = tempfile.mkdtemp(prefix="program-suite-sim-")
    rows = []
    with_range = profile_has_ranges(a.device)
    for cfg in measured["configs"]:
        label = cfg["label"]
        trace = os.path.join(tmp, label + ".sim.json")
        argv = sim_argv(a.streamlab, a.dir, cfg, trace) + ["--date", a.date]
        if a.policy:
            argv += ["--policy", a.policy]
        if a.device:
            argv += ["--device", a.device]
        p = subprocess.run(argv, capture_output=True, text=True)
        predicted = None
        if p.returncode == 0:
            predicted, _, _ = trace_metric(trace, cfg["metric"])
        else:
            print(f"sim failed for {label}: {p.stderr.strip()[-300:]}", file=sys.stderr)
        row = {"label": label, "scenario": cfg["scenario"], "params": cfg["params"],
               "connections": cfg["connections"], "metric": cfg["metric"], "predicted_ns": predicted}
        # The machine's own spread, as the experiments' predicted ranges take it: the same prediction with
        # the host at the profile's speed and, where the profile has host-cost ranges, at eight positions from a fast to a slow
        # spell (the simulator is not monotonic in the host's speed), each with the copy engines' queues
        # shared by streams s and s + 4 (the simulator's default) and with a queue per stream, each with the
        # engines taking the oldest waiting copy's queue next and taking the queues in bit-reversed order
        # (which a machine has varies: H100 runs 5 and 62 against runs 71 and 80 for the queues, run 84 for
        # the order), each with two kernels of any priority ready within a microsecond of each other
        # taken in ready order, lower stream first and higher stream first (the GPU decides such a race
        # either way from run to run: E7, run 84).
        if predicted is not None:
            ends = []
            # the ends and quarters of the way to them (the experiments' kHostSpeedPositions)
            speeds = ("typical", "fast", "-0.75", "-0.5", "-0.25", "0.25", "0.5", "0.75", "slow") if with_range else ("typical",)
            variants = [["--host-speed", speed] + queues + order + race for speed in speeds
                        for queues in (["--copy-queues", "4"], ["--copy-queues", str(kQueuePerStream)])
                        for order in (["--copy-queue-order", "oldest"], ["--copy-queue-order", "bit-reversed"])
                        for race in (["--kernel-race", "ready-order"], ["--kernel-race", "lower-stream-first"],
                                     ["--kernel-race", "higher-stream-first"])]
            for extra in variants:
                q = subprocess.run(argv + extra, capture_output=True, text=True)
                if q.returncode != 0:
                    print(f"sim {' '.join(extra)} failed for {label}: {q.stderr.strip()[-300:]}", file=sys.stderr)
                    break
                ends.append(trace_metric(trace, cfg["metric"])[0])
            if len(ends) == len(variants):
                row["predicted_range_ns"] = [min(ends), max(ends)]
        for v in measured["variants"]:
            vals = measured["runs"][label].get(v) or []
            row[v] = {"runs_ns": vals, "median_ns": statistics.median(vals) if vals else None,
                      "min_ns": min(vals) if vals else None, "max_ns": max(vals) if vals else None}
        rows.append(row)
    meta = dict(measured.get("meta", {}))
    meta.update({"profile": a.profile_label or a.device or "bundled H100 SXM profile",
                 "predicted_with": "streamlab sim (replay; untraced, as the plain program runs); range: the same "
                                   "with --host-speed typical" + (", fast, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75 and slow"
                                                                  if with_range else "") +
                                   ", each with --copy-queues 4 and %d (a copy queue per stream), each with "
                                   "--copy-queue-order oldest and bit-reversed, each with --kernel-race ready-order, "
                                   "lower-stream-first and higher-stream-first" % kQueuePerStream,
                 "repeats": measured["repeats"], "failures": measured["failures"]})
    with open(a.out, "w") as f:
        json.dump({"format": "streamlab-program-validation", "name": "V1", "meta": meta, "configs": rows}, f,
                  indent=1)
    print(f"wrote {a.out} ({len(rows)} configurations)")


def predict_metric(streamlab, wdir, cfg, profile, tmp):
    """One configuration's predicted metric (ns) under `profile` (a path), or None when sim fails."""
    trace = os.path.join(tmp, "%s-%d.sim.json" % (cfg["label"], os.getpid()))
    argv = sim_argv(streamlab, wdir, cfg, trace) + ["--device", profile, "--quiet"]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"sim failed for {cfg['label']} with {profile}: {p.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return trace_metric(trace, cfg["metric"])[0]


def relative_apart(x, y):
    """|x - y| relative to the smaller magnitude (0 when both are 0; inf when only one is)."""
    if x == y:
        return 0.0
    low = min(abs(x), abs(y))
    return abs(x - y) / low if low > 0 else float("inf")


def experiment_metrics(streamlab, results, profile, tmp):
    """{"E<n> <configuration>": predicted metric} of a copy of an experiment result folder re-predicted
    with `profile` (the given folder is left as it is)."""
    folder = os.path.join(tmp, "results-" + os.path.basename(profile))
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(results, folder, ignore=shutil.ignore_patterns("*.png", "*.svg", "*.pdf", "traces"))
    p = subprocess.run([streamlab, "experiment", "repredict", folder, "--device", profile, "--traces", "none", "-q"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"repredict with {profile} failed: {p.stderr.strip()[-300:]}")
    out = {}
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("E") and name.endswith(".json")):
            continue
        doc = json.load(open(os.path.join(folder, name)))
        for c in doc.get("configurations", []):
            v = c.get("predicted", {}).get("metric")
            out["%s %s" % (doc["experiment"], c["label"])] = v if v else None
    shutil.rmtree(folder, ignore_errors=True)
    return out


def cmd_sensitivity(a):
    from concurrent.futures import ThreadPoolExecutor
    cfgs = json.load(open(a.measured))["configs"]
    doc_a, doc_b = json.load(open(a.a)), json.load(open(a.b))
    pa, pb = doc_a["params"], doc_b["params"]
    apart = []
    for k in pa:
        if k in pb and relative_apart(pa[k]["value"], pb[k]["value"]) * 100 > a.threshold:
            apart.append(k)
    tmp = tempfile.mkdtemp(prefix="program-suite-sensitivity-")
    variants = {"A": a.a, "B": a.b}
    for k in apart:  # A with B's value of k (and B's range, so that a range stays consistent with its value)
        d = json.loads(json.dumps(doc_a))
        d["params"][k] = pb[k]
        path = os.path.join(tmp, "A-with-" + k + ".json")
        with open(path, "w") as f:
            json.dump(d, f)
        variants[k] = path
    jobs = [(name, cfg) for name in variants for cfg in cfgs]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda j: predict_metric(a.streamlab, a.dir, j[1], variants[j[0]], tmp), jobs))
    pred = {}
    for (name, cfg), v in zip(jobs, results):
        pred.setdefault(name, {})[cfg["label"]] = v
    if a.results:
        for name, path in variants.items():
            pred[name].update(experiment_metrics(a.streamlab, a.results, path, tmp))
    labels = list(pred["A"])

    def moves(name):
        """(largest relative change of a prediction against A's, its configuration, how many move > 1%)."""
        worst, where, over = 0.0, "", 0
        for label in labels:
            x, y = pred["A"][label], pred[name].get(label)
            if x is None or y is None:
                continue
            r = abs(y - x) / x
            over += r > 0.01
            if r > worst:
                worst, where = r, label
        return worst, where, over

    lines = ["| parameter | A | B | apart | largest change of a prediction | configuration | predictions moved > 1% |",
             "|---|---|---|---|---|---|---|"]
    rows = []
    for k in apart:
        worst, where, over = moves(k)
        rows.append((worst, k, where, over))
    for worst, k, where, over in sorted(rows, reverse=True):
        lines.append("| `%s` | %.4g | %.4g | %.1f%% | %.2f%% | `%s` | %d of %d |" % (
            k, pa[k]["value"], pb[k]["value"], 100 * relative_apart(pa[k]["value"], pb[k]["value"]),
            100 * worst, where or "-", over, len(labels)))
    worst, where, over = moves("B")
    errs = sorted(abs(pred["B"][k] - pred["A"][k]) / pred["A"][k] for k in labels if pred["A"][k] and pred["B"].get(k))
    summary = ("%d of %d parameters more than %g%% apart. Predictions of the %d configurations with A and with B: "
               "median %.2f%% apart, largest %.2f%% (`%s`), %d more than 1%% apart, %d more than 5%%." % (
                   len(apart), len(pa), a.threshold, len(labels), 100 * statistics.median(errs) if errs else 0,
                   100 * worst, where, over, sum(e > 0.05 for e in errs)))
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    print(text, end="")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("<!-- Written by experiments/scripts/program_suite.py sensitivity --a %s --b %s --threshold %g -->\n\n"
                    % (a.a, a.b, a.threshold) + text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("emit")
    e.add_argument("--plain", required=True)
    e.add_argument("--dir", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--plain", required=True)
    m.add_argument("--streamlab", required=True)
    m.add_argument("--dir", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--repeats", type=int, default=5)
    m.add_argument("--variants", default="plain,run,records")
    m.add_argument("--only", default="")
    m.add_argument("--streamlab-b", default="", help="a second streamlab build, for the variants ending in @b")
    m.add_argument("--policy", default="")
    m.add_argument("--keep-traces", default="", help="copy every run's trace here (LABEL-VARIANT-rN.json)")
    m.add_argument("--plain-call-times", action="store_true",
                   help="plain runs also report when each call started (extra[...].call_start_ns; a clock read per call)")
    q = sub.add_parser("sensitivity")
    q.add_argument("--streamlab", required=True)
    q.add_argument("--dir", required=True)
    q.add_argument("--measured", required=True, help="a measured file (its configurations and metrics)")
    q.add_argument("--a", required=True, help="profile A (the reference)")
    q.add_argument("--b", required=True, help="profile B")
    q.add_argument("--results", default="", help="also the experiments of this result folder (re-predicted in a copy)")
    q.add_argument("--threshold", type=float, default=5.0, help="percent apart that counts as a difference")
    q.add_argument("--markdown", default="", help="also write the table here")
    p = sub.add_parser("predict")
    p.add_argument("--streamlab", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--measured", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--device", default="")
    p.add_argument("--profile-label", default="", help="how the report names the profile (default: its path)")
    p.add_argument("--policy", default="")
    p.add_argument("--date", default=time.strftime("%Y-%m-%d", time.gmtime()))
    s = sub.add_parser("summary")
    s.add_argument("measured")
    a = ap.parse_args()
    if a.cmd == "emit":
        cmd_emit(a)
    elif a.cmd == "measure":
        cmd_measure(a)
    elif a.cmd == "predict":
        cmd_predict(a)
    elif a.cmd == "sensitivity":
        cmd_sensitivity(a)
    else:
        summarize(json.load(open(a.measured)))


if __name__ == "__main__":
    main()
