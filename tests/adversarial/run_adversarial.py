#!/usr/bin/env python3
"""Runs the adversarial inputs (make_inputs.py, generated into a temporary folder) against `streamlab
validate`, `analyze`, `sim`, `compare`, `import` and the viewer, and checks what a hostile user must never get:

- a signal or an abnormal exit, or a run over 10 s;
- exit 0 on an input that must be refused (wl-*, tr-*, pr-*, im-*), or a refusal of a valid one (ok-*);
- a refusal other than exactly one line "streamlab: error: FILE: PLACE: reason" naming the file, with
  the documented exit code for input errors (2);
- a silent wrong answer on a valid extreme: `sim` must write a trace that `validate` accepts, whose
  makespan is at least a lower bound worked out from the input and the device profile;
- a lost or half-written file: an output that existed before a refused run is left byte for byte as it
  was, a refused run creates no output and leaves no temporary file behind.

usage: run_adversarial.py --streamlab PATH [--viz PATH] --profile PROFILE_JSON [--keep DIR]
Exit status 1 when any check fails; the table lists every run."""
import argparse, json, math, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_inputs import write_inputs  # noqa: E402

INPUT_ERROR, FAILED = 2, 1  # README.md, "Exit codes": an input error; out of memory is not the input's fault
LIMIT_S = 10
SENTINEL = b"an output that existed before the run\n"

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--streamlab", required=True)
ap.add_argument("--viz", default="", help="streamlab-viz; its cases are skipped without it or without xvfb-run")
ap.add_argument("--profile", required=True, help="the device profile the pr-* inputs start from")
ap.add_argument("--keep", help="write the inputs and outputs here and keep them")
args = ap.parse_args()

work = args.keep or tempfile.mkdtemp(prefix="streamlab-adversarial-")
inputs = os.path.join(work, "inputs")
outdir = os.path.join(work, "out")
shutil.rmtree(inputs, ignore_errors=True)
shutil.rmtree(outdir, ignore_errors=True)
os.makedirs(outdir)
files = write_inputs(inputs, args.profile)
xvfb = shutil.which("xvfb-run")
viz = args.viz if args.viz and os.path.exists(args.viz) and xvfb else ""
profile = json.load(open(args.profile))["params"]
rows, failures, skipped = [], 0, 0


def leftovers():
    return sorted(f for f in os.listdir(outdir) if ".tmp" in f)


def run(label, argv, expect_ok, named, outputs=(), env_prefix=None, check=None):
    """Runs argv; `outputs` are files the command may write (pre-filled with SENTINEL to see that a
    refusal leaves them alone); `check(stdout)` returns a problem with a successful run's result, or None."""
    global failures
    for o in outputs:
        with open(o, "wb") as f:
            f.write(SENTINEL)
    cmd = argv if env_prefix is None else ["bash", "-c", env_prefix + ' exec "$@"', "x"] + argv
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=3 * LIMIT_S)
        rc, err, out = p.returncode, p.stderr, p.stdout
    except subprocess.TimeoutExpired:
        rc, err, out = "TIMEOUT", "", ""
    dt = time.monotonic() - t0
    problems = []
    lines = [l for l in err.splitlines() if l.strip()]
    if rc == "TIMEOUT" or dt > LIMIT_S:
        problems.append("over %d s" % LIMIT_S)
    elif rc < 0 or rc >= 128:
        problems.append("signal/abnormal exit %s" % rc)
    elif expect_ok:
        if rc != 0:
            problems.append("refused a valid input: " + (lines[0] if lines else ""))
        else:
            for o in outputs:
                if open(o, "rb").read() == SENTINEL:
                    problems.append("did not write " + os.path.basename(o))
            if check and not problems:
                problem = check(out)
                if problem:
                    problems.append(problem)
    elif rc == 0:
        problems.append("exit 0 on an input that must be refused")
    else:
        want = FAILED if label.startswith("big-") else INPUT_ERROR
        if rc != want:
            problems.append("exit %s, not %d" % (rc, want))
        if label.startswith("big-") and not any(": parsing: out of memory" in l or ": reading: out of memory" in l
                                                for l in lines):
            problems.append("does not say out of memory in which step")
        if len(lines) != 1:
            problems.append("%d error lines" % len(lines))
        elif not lines[0].startswith(("streamlab: error: ", "streamlab-viz: error: ")):
            problems.append("not a streamlab error line")
        else:
            # The file, then the place and the reason (the viewer says which of its inputs first).
            msg = lines[0].split("error: ", 1)[1]
            if named + ": " not in msg:
                problems.append("does not name the file")
            elif ": " not in msg.split(named + ": ", 1)[1]:
                problems.append("no place")
        for o in outputs:
            if open(o, "rb").read() != SENTINEL:
                problems.append("changed " + os.path.basename(o))
    if leftovers():
        problems.append("left " + ", ".join(leftovers()))
        for f in leftovers():
            os.remove(os.path.join(outdir, f))
    shown = (lines[0] if lines else out.strip().splitlines()[0] if out.strip() else "")[:150]
    rows.append((label, rc, dt, "FAIL: " + "; ".join(problems) if problems else "ok", shown))
    failures += bool(problems)


def makespan_at_least(trace_file, bound_ns):
    """A check: the trace validates and its makespan (last span end - first span start) >= bound_ns."""
    def check(_stdout):
        p = subprocess.run([args.streamlab, "validate", trace_file], capture_output=True, text=True)
        if p.returncode != 0:
            return "its trace does not validate: " + p.stderr.strip()[:100]
        spans = [e["args"] for e in json.load(open(trace_file))["traceEvents"] if e.get("ph") == "X"]
        if not spans:
            return "its trace has no spans"
        makespan = max(s["end_ns"] for s in spans) - min(s["start_ns"] for s in spans)
        if makespan < bound_ns:
            return "makespan %d ns, below the lower bound %d ns" % (makespan, bound_ns)
        return None
    return check


def imported_validates(program, measured):
    """A check: the imported program and its measured timeline validate."""
    def check(_stdout):
        for f in (program, measured):
            p = subprocess.run([args.streamlab, "validate", f], capture_output=True, text=True)
            if p.returncode != 0:
                return os.path.basename(f) + " does not validate: " + p.stderr.strip()[:100]
        return None
    return check


def lower_bound(name):
    """The least makespan a valid extreme can have: its longest chain of per-block times, its blocks in
    full waves over every SM's block slots, or its copy at the fastest link."""
    slots = profile["sm_count"]["value"] * profile["max_blocks_per_sm"]["value"]
    return {"ok-blocks-4m.json": math.ceil(4194304 / slots) * 1000,
            "ok-chain-2000.json": 2000 * 1000,
            "ok-max-values.json": 1 << 40}[name]


ok_trace = os.path.join(inputs, "ok-trace.json")
ok_chain = os.path.join(inputs, "ok-chain-2000.json")
out_trace = os.path.join(outdir, "predicted.json")
png = os.path.join(outdir, "shot.png")
for name in files:
    f = os.path.join(inputs, name)
    ok = name.startswith("ok-")
    if name.startswith(("im-", "ok-import")):
        measured = os.path.join(outdir, "measured.json")
        run(name + " import", [args.streamlab, "import", f, "-o", out_trace, "--measured", measured], ok, f,
            [out_trace, measured], check=imported_validates(out_trace, measured) if ok else None)
        continue
    if name.startswith(("wl-", "ok-")) and not name.startswith("ok-trace"):
        run(name + " validate", [args.streamlab, "validate", f], ok, f)
        # analyze estimates without simulating: a grid too large to simulate is still a valid analysis
        run(name + " analyze", [args.streamlab, "analyze", f], ok or name.startswith("wl-grid-2^31"), f)
        run(name + " sim", [args.streamlab, "sim", f, "-o", out_trace], ok, f, [out_trace],
            check=makespan_at_least(out_trace, lower_bound(name)) if ok else None)
    if name.startswith(("tr-", "ok-trace")):
        run(name + " validate", [args.streamlab, "validate", "--as", "trace", f], ok, f)
        run(name + " compare A", [args.streamlab, "compare", f, ok_trace], ok, f)
        run(name + " compare B", [args.streamlab, "compare", ok_trace, f], ok, f)
    if name.startswith(("tr-", "wl-deep", "ok-trace")):
        if viz:
            run(name + " viewer", [xvfb, "-a", viz, f, "--screenshot", png], ok, f, [png])
        else:
            skipped += 1
    if name.startswith("pr-"):
        run(name + " validate", [args.streamlab, "validate", "--as", "profile", f], False, f)
        run(name + " sim --device", [args.streamlab, "sim", ok_chain, "--device", f, "-o", out_trace], False, f,
            [out_trace])
        run(name + " analyze --profile", [args.streamlab, "analyze", ok_chain, "--profile", f], False, f)

# Out of memory: a 120 MB workload under a 400 MB address-space limit gets one line naming the file and
# the step (exit 1), not "std::bad_alloc" or a crash.
big = os.path.join(work, "big.json")
with open(big, "w") as fh:
    fh.write('{"format_version": 1, "name": "big", "ops": [')
    fh.write(",".join('{"id": "o%d", "kind": "barrier", "name": "%s"}' % (i, "n" * 40) for i in range(1_500_000)))
    fh.write("]}")
for cmd in ("validate", "analyze"):
    run("big-120MB " + cmd + " (ulimit -v 400 MB)", [args.streamlab, cmd, big], False, big,
        env_prefix="ulimit -v 400000;")
run("big-120MB sim (ulimit -v 400 MB)", [args.streamlab, "sim", big, "-o", out_trace], False, big, [out_trace],
    env_prefix="ulimit -v 400000;")
os.remove(big)

w = max(len(r[0]) for r in rows)
for label, rc, dt, verdict, shown in rows:
    print("%-*s rc=%-4s %6.2fs  %-4s  %s" % (w, label, rc, dt, verdict, shown.replace(work, "WORK")))
print("\n%d inputs, %d runs, %d failures, slowest %.2f s%s" %
      (len(files) + 1, len(rows), failures, max(r[2] for r in rows),
       ", %d viewer runs skipped (no streamlab-viz or xvfb-run)" % skipped if skipped else ""))
if not args.keep:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
