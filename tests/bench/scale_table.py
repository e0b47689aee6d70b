#!/usr/bin/python3
"""CPU time and peak memory of the streamlab commands on large generated workloads.

For each size (default 1M and 10M ops) and generator (`gen random-dag` with its defaults, and
`gen stream-chains` with 1000-kernel chains), the script generates the workload, then measures

  validate W | analyze W | sim W -o A (load-balanced) | compare A B | viewer's first frame of A B

where B is the same workload simulated with round-robin. Each command runs once, alone; its CPU time
(user + system, each also shown), minor page faults and peak resident memory come from wait4(). Memory is
compared with the size of the command's input files (the workload, or both traces).

Targets (issue 15): at 1M ops every command under 2 s of CPU, except sim of the random DAG under 5 s;
at 10M ops each under 10x its own 1M time; peak memory of every command at most 2x its input's size.

The viewer's row is its own account (--timing): CPU seconds (user, system) and minor faults of reading,
preparing and drawing the first frame, and its peak resident memory (not Xvfb's, nor window set-up or the
PNG written afterwards).
Simulations and validate (which checks a simulation's size) run with a budget large enough for 10M ops
(--max-events 2^40).

Every run of every row starts from the same state of memory: the page cache is emptied (`sync`, then
`echo 3 > /proc/sys/vm/drop_caches`, which needs root), then the command's input files are read once from
start to end, so that the command finds its inputs in memory and the rest free; then, where the kernel
counts the memory it reports to a VM's host, the script waits until that count stays still for half a
second, so that all free memory is in one state (reported) rather than some of it, as timing decides. What a run costs does not
depend on what ran before it: neither another row's files filling memory (the kernel must then reclaim
cache for each page the command allocates) nor another job that pushed the inputs out of the cache. On a
virtual machine whose free memory goes back to the host (virtio-balloon free page reporting), the first
touch of each freed page also costs a fault on the host; the table's header records whether that is on
(read from /sys/module/page_reporting at run time). --keep-cache skips the emptying (for a user who is
not root; the header says so).

With --repeat N each command runs N times in a row and the table shows its least CPU time and its largest
peak (on a shared machine one run can be slowed by others' work, never sped up). With --lock FILE each
run (of every size: emptying the page cache touches every job on the machine) holds an exclusive flock on
FILE (other large jobs on the machine take the same lock, so that two never compete for memory). With --before BUILD_DIR the same
commands of an older build run on the same files first, and the table shows both. With --write FILE the table is also written to FILE (atomically), headed by the date, the
commit, the machine and the command line. With --update FILE the rows measured replace those of the same
generator, size and command in the table FILE holds (written by --write), the others are kept, and a
header line says which rows were measured again, when, at which commit and with which command (the
header's other lines stay those of the run that wrote the file). Usage:

  tests/bench/scale_table.py --build build [--before old/build] [--sizes 1M,10M] [--data DIR] [--repeat N]
                             [--lock FILE] [--keep-cache] [--write FILE | --update FILE]
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


VIEWER_TIMING = re.compile(r"total to first frame (?P<cpu>[0-9.]+) s CPU"
                           r"(?: \((?P<user>[0-9.]+) user \+ (?P<sys>[0-9.]+) sys, (?P<faults>[0-9]+) minor faults\))?"
                           r".*peak RSS (?P<peak>[0-9]+) MiB")


class Run:
    """One run's account: CPU seconds, of which user and system, minor page faults, peak RSS bytes, wall
    seconds and exit code (user, sys and faults None where a self-timed command reports its total only)."""

    def __init__(self, cpu, user, sys_, faults, rss, wall, code):
        self.cpu, self.user, self.sys, self.faults = cpu, user, sys_, faults
        self.rss, self.wall, self.code = rss, wall, code


def measure(argv, env=None, self_timed=False):
    """Runs argv once; returns its Run. A self-timed command (the viewer with --timing) reports its own CPU
    time, faults and peak on stderr, which replace wait4's."""
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
    run = Run(usage.ru_utime + usage.ru_stime, usage.ru_utime, usage.ru_stime, usage.ru_minflt,
              usage.ru_maxrss * 1024, wall, code)
    if self_timed and code == 0:
        m = VIEWER_TIMING.search(err)
        if not m:
            sys.stderr.write(f"  ! {' '.join(argv)}: no timing line on stderr\n")
            run.code = 1
            return run
        run.rss, run.cpu = int(m.group("peak")) * 2**20, float(m.group("cpu"))
        run.user, run.sys, run.faults = None, None, None  # an older viewer: its total only
        if m.group("user") is not None:
            run.user, run.sys, run.faults = float(m.group("user")), float(m.group("sys")), int(m.group("faults"))
    return run


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


VIRTIO_BALLOON_F_REPORTING = 5  # feature bit of a virtio balloon device: it takes reports of free pages


def page_reporting():
    """Whether this machine hands its free memory back to a VM's host (virtio-balloon free page reporting),
    read from /sys for the table's header: the balloon devices' reporting feature bit, the kernel's
    reporting parameters and how much it has reported since boot."""
    devices = "/sys/bus/virtio/drivers/virtio_balloon"
    try:
        balloons = [d for d in sorted(os.listdir(devices)) if d.startswith("virtio")]
    except OSError:
        balloons = []
    reporting = []
    for d in balloons:
        with open(os.path.join(devices, d, "features")) as f:
            bits = f.read().strip()
        reporting.append(len(bits) > VIRTIO_BALLOON_F_REPORTING and bits[VIRTIO_BALLOON_F_REPORTING] == "1")
    folder = "/sys/module/page_reporting/parameters"
    params = []
    if os.path.isdir(folder):
        for name in ("page_reporting_order", "min_free_ms", "reported_kib"):
            with contextlib.suppress(OSError), open(os.path.join(folder, name)) as f:
                params.append(f"{name} {f.read().strip()}")
    if not balloons:
        return "free page reporting: off (no virtio balloon device)"
    state = "on" if any(reporting) else "off"
    return (f"free page reporting: {state} (virtio balloon {', '.join(balloons)}, reporting feature "
            f"{'set' if any(reporting) else 'not set'}"
            + (f"; /sys/module/page_reporting/parameters: {', '.join(params)}" if params else "") + ")")


def drop_page_cache():
    """Writes back dirty pages and empties the page cache (needs root)."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        sys.exit(f"scale_table.py: cannot empty the page cache ({e}): run as root, or pass --keep-cache")


REPORTED_KIB = "/sys/module/page_reporting/parameters/reported_kib"


def settle_page_reporting(limit_s=20.0, quiet_s=0.5):
    """Waits until the kernel has handed the memory freed by emptying the cache to the VM's host: its
    count of reported memory unchanged for quiet_s (at most limit_s). Else a run would find part of the
    free memory reported (its first touch faulting on the host too) and part not, as timing decides.
    Returns the seconds waited (0 where the kernel keeps no count)."""
    try:
        with open(REPORTED_KIB) as f:
            previous = f.read()
    except OSError:
        return 0.0
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        time.sleep(quiet_s)
        with open(REPORTED_KIB) as f:
            now = f.read()
        if now == previous:
            break
        previous = now
    return time.monotonic() - start


def warm(files):
    """Reads each file once, start to end, so that it is in the page cache when the command starts."""
    for path in files:
        with open(path, "rb", buffering=0) as f:
            while f.readinto(WARM_BUFFER):
                pass


WARM_BUFFER = bytearray(16 << 20)


def measure_best(argv, inputs, repeat, lock, drop_cache, self_timed=False):
    """measure() `repeat` times, each after emptying the page cache (unless drop_cache is false) and
    warm(inputs): the run of least CPU time (its user, system and faults), with the largest peak of all
    runs, their total wall time and the first non-zero exit code (0 when every run succeeded)."""
    runs = []
    for _ in range(repeat):
        with locked(lock):
            if drop_cache:
                drop_page_cache()
            warm(inputs)
            if drop_cache:
                settle_page_reporting()
            runs.append(measure(argv, self_timed=self_timed))
    best = min(runs, key=lambda r: r.cpu)
    return Run(best.cpu, best.user, best.sys, best.faults, max(r.rss for r in runs), sum(r.wall for r in runs),
               next((r.code for r in runs if r.code != 0), 0))


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
    ap.add_argument("--lock", help="flock this file around each measured run")
    ap.add_argument("--keep-cache", action="store_true",
                    help="do not empty the page cache before each run (it needs root)")
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
                    run = measure_best(argv, inputs, max(1, args.repeat), args.lock, not args.keep_cache, self_timed)
                    size = sum(os.path.getsize(f) for f in inputs)
                    results.setdefault(name, {"input": size})[tag] = run
                    print(f"# {tag:6} {gen:13} {label(n):>4} {name:9} cpu {run.cpu:7.2f} s (user {fmt_s(run.user)} "
                          f"sys {fmt_s(run.sys)} faults {fmt_faults(run.faults)})  wall {run.wall:7.2f} s  "
                          f"peak {run.rss / 2**20:8.0f} MiB  input {size / 2**20:7.0f} MiB", flush=True)
            for name, r in results.items():
                rows.append((gen, n, name, r))

    table = format_table(rows, before is not None)
    print()
    print("\n".join(table))
    if args.write:
        write_table(args.write, table, after, max(1, args.repeat), start_load, not args.keep_cache)
    if args.update:
        update_table(args.update, table, max(1, args.repeat), start_load, not args.keep_cache)


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


def conditions(repeat, drop_cache):
    """How each run was prepared, for a table's header."""
    before = ("the page cache emptied (sync; echo 3 > /proc/sys/vm/drop_caches), its input files read once, "
              "then free page reporting let settle (reported_kib unchanged for 0.5 s)"
              if drop_cache else "its input files read once (page cache not emptied: --keep-cache)")
    return f"each command run {repeat} time(s), each run after {before}"


def update_table(path, table, repeat, start_load, drop_cache):
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
    note = (f"# rows of {', '.join(names)} measured again {date} at commit {commit}, {conditions(repeat, drop_cache)} "
            f"(1-minute load average {start_load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end): "
            f"{command_line()}")
    body_at = next(i for i, l in enumerate(old) if l.startswith("|"))
    head = old[:body_at]
    while head and head[-1] == "":
        head.pop()
    lines = head + [note, ""] + [new_rows.get(row_key(l), l) for l in old[body_at:]]
    write_atomically(path, lines)


def write_table(path, table, build, repeat, start_load, drop_cache):
    commit, date = commit_and_date()
    head = [
        f"# streamlab scale table, {date}, commit {commit}",
        f"# machine: {machine()}",
        f"# build: {build.path}",
        f"# command: {command_line()}",
        f"# {page_reporting()}",
        "# CPU s = user s + sys s of the command (the viewer: its own --timing account to the first frame);",
        "# faults = its minor page faults (pages it touched first; the viewer's to the first frame);",
        "# peak = peak resident memory; input = the command's input files (workload, or both traces).",
        f"# {conditions(repeat, drop_cache)}; shown: the run of least CPU s (its user, sys, faults), the"
        f" largest peak of the runs; 1-minute load average {start_load:.2f} at the start,"
        f" {os.getloadavg()[0]:.2f} at the end",
        "",
    ]
    write_atomically(path, head + table)


def fmt_s(seconds):
    """Seconds with two decimals, or '-' where they were not reported."""
    return "-" if seconds is None else f"{seconds:.2f}"


def fmt_faults(n):
    """A fault count in a few characters (1.23M, 456k), or '-' where it was not reported."""
    if n is None:
        return "-"
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else str(n)


def format_table(rows, with_before):
    """The markdown table's lines."""
    lines = []
    # Targets need the 1M time of the same command for the 10M ratio.
    one_m = {(g, name): r["after"].cpu for g, n, name, r in rows if n == 1000000 and "after" in r}
    head = f"| generator     | ops | command  | input MiB |"
    if with_before:
        head += " before CPU s | before peak MiB |"
    head += " user s | sys s | faults | CPU s | peak MiB | peak/input | CPU target | met |"
    lines.append(head)
    lines.append("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for gen, n, name, r in rows:
        run = r["after"]
        cpu, rss, code = run.cpu, run.rss, run.code
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
                b = r["before"]
                line += f" {b.cpu:12.2f} | {b.rss / 2**20:15.0f} |"
            else:
                line += f" {'-':>12} | {'-':>15} |"
        line += f" {fmt_s(run.user):>6} | {fmt_s(run.sys):>5} | {fmt_faults(run.faults):>6} | {cpu:5.2f} | {rss / 2**20:8.0f} | {ratio:10.2f} | {target:10} | {'yes' if ok else 'no':3} |"
        lines.append(line)
    return lines


if __name__ == "__main__":
    main()
