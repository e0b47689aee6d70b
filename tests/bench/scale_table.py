#!/usr/bin/python3
"""CPU time and peak memory of the streamlab commands on large generated workloads.

For each size (default 1M and 10M ops) and generator (`gen random-dag` with its defaults, and
`gen stream-chains` with 1000-kernel chains), the script generates the workload, then measures

  validate W | analyze W | sim W -o A (load-balanced) | compare A B | viewer's first frame of A B

where B is the same workload simulated with round-robin. Each command runs once, alone; its CPU time
(user + system) and peak resident memory come from wait4(). Memory is compared with the size of the
command's input files (the workload, or both traces).

Targets (issue 15): at 1M ops every command under 2 s of CPU, except sim of the random DAG under 5 s;
at 10M ops each under 10x its own 1M time; peak memory of every command at most 2x its input's size.

The viewer's row is its own account (--timing): CPU seconds of reading, preparing and drawing the first
frame, and its peak resident memory (not Xvfb's, nor window set-up or the PNG written afterwards).
Simulations and validate (which checks a simulation's size) run with a budget large enough for 10M ops
(--max-events 2^40).

Before each run the command's input files are read once from start to end (into the page cache), so
that every run of every size starts with its inputs in memory: what a file costs to read does not depend
on what ran before it (another size, or another job that pushed the file out of the cache).

With --repeat N each command runs N times in a row and the table shows its least CPU time and its largest
peak (on a shared machine one run can be slowed by others' work, never sped up). With --lock FILE each
command of a size of 10M ops or more runs holding an exclusive flock on FILE (other large jobs on the
machine take the same lock, so that two never compete for memory). With --before BUILD_DIR the same
commands of an older build run on the same files first, and the table shows both. With --write FILE the table is also written to FILE (atomically), headed by the date, the
commit, the machine and the command line. With --update FILE the rows measured replace those of the same
generator, size and command in the table FILE holds (written by --write), the others are kept, and a
header line says which rows were measured again, when, at which commit and with which command (the
header's other lines stay those of the run that wrote the file). Usage:

  tests/bench/scale_table.py --build build [--before old/build] [--sizes 1M,10M] [--data DIR] [--repeat N]
                             [--lock FILE] [--write FILE | --update FILE]
"""
import argparse
import contextlib
import datetime
import fcntl
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

GENERATORS = {
    # name: (gen arguments for n ops)
    "random-dag": lambda n: ["random-dag", "--ops", str(n)],
    "stream-chains": lambda n: ["stream-chains", "--chains", str(n // 1000), "--length", "1000"],
}


def parse_size(s):
    s = s.strip().upper()
    mult = {"K": 1000, "M": 1000 * 1000}.get(s[-1:], 1)
    return int(float(s.rstrip("KM")) * mult) if s[-1:] in "KM" else int(s)


def label(n):
    return f"{n // 1000000}M" if n % 1000000 == 0 else f"{n // 1000}k"


VIEWER_TIMING = re.compile(r"total to first frame ([0-9.]+) s CPU.*peak RSS ([0-9]+) MiB")


def measure(argv, env=None, self_timed=False):
    """Runs argv once; returns (cpu seconds, peak RSS bytes, wall seconds, exit code). A self-timed command
    (the viewer with --timing) reports its own CPU time and peak on stderr, which replace wait4's."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE, env=env)
        err = proc.stderr.read().decode(errors="replace")  # read before waiting: a full pipe would block it
        _, status, usage = os.wait4(proc.pid, 0)
        proc.stderr.close()
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.stderr.write(f"  ! {' '.join(argv)} exited {code}: {err.strip()[-400:]}\n")
    cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
    if self_timed and code == 0:
        m = VIEWER_TIMING.search(err)
        if not m:
            sys.stderr.write(f"  ! {' '.join(argv)}: no timing line on stderr\n")
            return cpu, rss, wall, 1
        cpu, rss = float(m.group(1)), int(m.group(2)) * 2**20
    return cpu, rss, wall, code


class Build:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.cli = os.path.join(self.path, "cli", "streamlab")
        self.viz = os.path.join(self.path, "viz", "streamlab-viz")
        if not os.access(self.cli, os.X_OK):
            sys.exit(f"no streamlab executable at {self.cli}")
        self.has_viz = os.access(self.viz, os.X_OK) and shutil.which("xvfb-run") is not None

    def commands(self, workload, trace_a, trace_b, out_dir, tag):
        """(name, argv, input files, self-timed) of each measured command."""
        quiet = ["--quiet"] if self.supports("validate", "--quiet") else []
        out_a = os.path.join(out_dir, f"{tag}.sim.json")
        cmds = [
            ("validate", [self.cli, "validate", workload] + quiet + self.budget("validate"), [workload], False),
            ("analyze", [self.cli, "analyze", workload] + quiet, [workload], False),
            ("sim", self.sim_argv(workload, "load-balanced", out_a) + quiet, [workload], False),
            ("compare", [self.cli, "compare", trace_a, trace_b] + quiet, [trace_a, trace_b], False),
        ]
        if self.has_viz:
            png = os.path.join(out_dir, f"{tag}.png")
            timing = self.supports_viz_timing()
            cmds.append(("viewer", ["xvfb-run", "-a", self.viz, trace_a, trace_b, "--screenshot", png, "--frames", "1"]
                         + (["--timing"] if timing else []), [trace_a, trace_b], timing))
        return cmds

    def budget(self, command):
        """A run budget that admits the 10M-op workloads (validate checks the simulation's size too)."""
        return ["--max-events", str(2**40)] if self.supports(command, "--max-events") else []

    def sim_argv(self, workload, policy, out):
        return [self.cli, "sim", workload, "--policy", policy, "--date", "2026-01-01", "-o", out] + self.budget("sim")

    def supports(self, command, flag):
        key = (command, flag)
        if not hasattr(self, "_flags"):
            self._flags = {}
        if key not in self._flags:
            out = subprocess.run([self.cli, command, "--help"], capture_output=True, text=True).stdout
            self._flags[key] = flag in out
        return self._flags[key]

    def supports_viz_timing(self):
        out = subprocess.run([self.viz, "--help"], capture_output=True, text=True).stdout
        return "--timing" in out


@contextlib.contextmanager
def locked(path):
    """Holds an exclusive flock on `path` (created if missing) while the block runs; nothing when None."""
    if path is None:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def warm(files):
    """Reads each file once, start to end, so that it is in the page cache when the command starts."""
    for path in files:
        with open(path, "rb", buffering=0) as f:
            while f.readinto(WARM_BUFFER):
                pass


WARM_BUFFER = bytearray(16 << 20)


def measure_best(argv, inputs, repeat, lock, self_timed=False):
    """measure() `repeat` times, each after warm(inputs): the least CPU time, the largest peak, the total
    wall time and the first non-zero exit code (0 when every run succeeded)."""
    runs = []
    for _ in range(repeat):
        with locked(lock):
            warm(inputs)
            runs.append(measure(argv, self_timed=self_timed))
    code = next((r[3] for r in runs if r[3] != 0), 0)
    return min(r[0] for r in runs), max(r[1] for r in runs), sum(r[2] for r in runs), code


def prepare(build, data, gen, n):
    """The workload and its two traces (made once per size, by the newest build)."""
    base = os.path.join(data, f"{gen}-{label(n)}")
    workload = base + ".workload.json"
    traces = (base + ".load-balanced.json", base + ".round-robin.json")
    if not os.path.exists(workload):
        print(f"# generating {workload}", flush=True)
        subprocess.run([build.cli, "gen"] + GENERATORS[gen](n) + ["-o", workload], check=True)
    for trace, policy in zip(traces, ("load-balanced", "round-robin")):
        if not os.path.exists(trace):
            print(f"# simulating {trace}", flush=True)
            subprocess.run(build.sim_argv(workload, policy, trace), check=True, stdout=subprocess.DEVNULL)
    return workload, traces


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build folder to measure (default: build)")
    ap.add_argument("--before", help="an older build folder, measured on the same files for comparison")
    ap.add_argument("--sizes", default="1M,10M", help="op counts, comma-separated (default: 1M,10M)")
    ap.add_argument("--generators", default=",".join(GENERATORS), help="random-dag and/or stream-chains")
    ap.add_argument("--data", default="scale-data", help="folder for the generated files (kept between runs)")
    ap.add_argument("--commands", default="validate,analyze,sim,compare,viewer", help="which commands to measure")
    ap.add_argument("--write", help="also write the table to this file, headed by date, commit and machine")
    ap.add_argument("--update", help="replace the measured rows of the table in this file (written by --write)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each command: least CPU, largest peak (default 1)")
    ap.add_argument("--lock", help="flock this file around each command of 10M ops or more")
    args = ap.parse_args()

    start_load = os.getloadavg()[0]
    after = Build(args.build)
    before = Build(args.before) if args.before else None
    os.makedirs(args.data, exist_ok=True)
    wanted = set(args.commands.split(","))
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    rows = []  # (gen, n, command, input bytes, {build tag: (cpu, rss)})
    for gen in args.generators.split(","):
        for n in sizes:
            workload, (trace_a, trace_b) = prepare(after, args.data, gen, n)
            results = {}
            for tag, build in (("before", before), ("after", after)):
                if build is None:
                    continue
                for name, argv, inputs, self_timed in build.commands(workload, trace_a, trace_b, args.data,
                                                                     f"{gen}-{label(n)}-{tag}"):
                    if name not in wanted:
                        continue
                    cpu, rss, wall, code = measure_best(argv, inputs, max(1, args.repeat),
                                                        args.lock if n >= 10_000_000 else None, self_timed)
                    size = sum(os.path.getsize(f) for f in inputs)
                    results.setdefault(name, {"input": size})[tag] = (cpu, rss, code)
                    print(f"# {tag:6} {gen:13} {label(n):>4} {name:9} cpu {cpu:7.2f} s  wall {wall:7.2f} s  "
                          f"peak {rss / 2**20:8.0f} MiB  input {size / 2**20:7.0f} MiB", flush=True)
            for name, r in results.items():
                rows.append((gen, n, name, r))

    table = format_table(rows, before is not None)
    print()
    print("\n".join(table))
    if args.write:
        write_table(args.write, table, after, max(1, args.repeat), start_load)
    if args.update:
        update_table(args.update, table, max(1, args.repeat), start_load)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB memory, {platform.system()} {platform.release()}"


def commit_and_date():
    """The checkout's short commit (marked when it has local changes) and the date, for a table's header."""
    repo = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    return commit + (" (with local changes)" if dirty else ""), date


def command_line():
    return " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))


def write_atomically(path, lines):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".scale_table.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    print(f"# wrote {path}")


def row_key(line):
    """(generator, ops, command) of a table row, or None for any other line."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if not line.startswith("|") or len(cells) < 3 or cells[1] in ("ops", "") or set(cells[0]) <= {"-"}:
        return None
    return tuple(cells[:3])


def update_table(path, table, repeat, start_load):
    """Replaces the rows of `table` in the table at `path`, keeps the others, and says so in the header."""
    with open(path) as f:
        old = f.read().splitlines()
    new_rows = {row_key(l): l for l in table if row_key(l)}
    if not any(row_key(l) for l in old) or table[0] not in old:
        sys.exit(f"{path}: not a table of the same columns (written by --write without --before)")
    missing = [k for k in new_rows if k not in {row_key(l) for l in old}]
    if missing:
        sys.exit(f"{path}: no rows for {', '.join(' '.join(k) for k in missing)} to replace")
    # A 10M row's target is 10x the 1M row of its command: the sizes of a command are measured together.
    stale = [k for k in map(row_key, old) if k and k not in new_rows and any(
        (n[0], n[2]) == (k[0], k[2]) for n in new_rows)]
    if stale:
        sys.exit(f"{path}: rows {', '.join(' '.join(k) for k in stale)} would keep targets from other runs of their "
                 "command: measure every size of a command again together")
    commit, date = commit_and_date()
    names = sorted({f"{k[0]} {k[2]}" for k in new_rows})
    note = (f"# rows of {', '.join(names)} measured again {date} at commit {commit}, each run {repeat} time(s) "
            f"after reading its inputs once (1-minute load average {start_load:.2f} at the start, "
            f"{os.getloadavg()[0]:.2f} at the end): {command_line()}")
    body_at = next(i for i, l in enumerate(old) if l.startswith("|"))
    head = old[:body_at]
    while head and head[-1] == "":
        head.pop()
    lines = head + [note, ""] + [new_rows.get(row_key(l), l) for l in old[body_at:]]
    write_atomically(path, lines)


def write_table(path, table, build, repeat, start_load):
    commit, date = commit_and_date()
    head = [
        f"# streamlab scale table, {date}, commit {commit}",
        f"# machine: {machine()}",
        f"# build: {build.path}",
        f"# command: {command_line()}",
        "# CPU s = user + system seconds of the command (the viewer: its own --timing account to the first",
        "# frame); peak = peak resident memory; input = the command's input files (workload, or both traces).",
        f"# each command run {repeat} time(s), its input files read once before each run (in the page cache for"
        f" every size): least CPU s, largest peak; 1-minute load average {start_load:.2f} at the start,"
        f" {os.getloadavg()[0]:.2f} at the end",
        "",
    ]
    write_atomically(path, head + table)


def format_table(rows, with_before):
    """The markdown table's lines."""
    lines = []
    # Targets need the 1M time of the same command for the 10M ratio.
    one_m = {(g, name): r["after"][0] for g, n, name, r in rows if n == 1000000 and "after" in r}
    head = f"| generator     | ops | command  | input MiB |"
    if with_before:
        head += " before CPU s | before peak MiB |"
    head += " CPU s | peak MiB | peak/input | CPU target | met |"
    lines.append(head)
    lines.append("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for gen, n, name, r in rows:
        cpu, rss, code = r["after"]
        if n <= 1000000:
            limit = 5.0 if (name == "sim" and gen == "random-dag") else 2.0
            target = f"< {limit:g} s"
        else:
            base = one_m.get((gen, name))
            limit = 10 * base * n / 1e7 if base is not None else None
            target = f"< {limit:.1f} s (10x 1M)" if limit is not None else "-"
        ratio = rss / r["input"]
        ok = code == 0 and ratio <= 2.0 and (limit is None or cpu < limit)
        line = f"| {gen:13} | {label(n):>3} | {name:8} | {r['input'] / 2**20:9.0f} |"
        if with_before:
            if "before" in r:
                bcpu, brss, bcode = r["before"]
                line += f" {bcpu:12.2f} | {brss / 2**20:15.0f} |"
            else:
                line += f" {'-':>12} | {'-':>15} |"
        line += f" {cpu:5.2f} | {rss / 2**20:8.0f} | {ratio:10.2f} | {target:10} | {'yes' if ok else 'no':3} |"
        lines.append(line)
    return lines


if __name__ == "__main__":
    main()
