#!/usr/bin/env python3
"""Writes the long-run table into tests/fuzz/README.md from long_run.sh's logs.
usage: long_run_table.py LOG_DIR [README]   (README defaults to this folder's README.md)
One row per NAME*.log (by target, then date): date, commit, machine, seconds, executions, exec/s, coverage (cov: edges and ft:
features of libFuzzer's final DONE line), corpus (files/size), peak RSS and the outcome (libFuzzer's
SUMMARY line and the reproducer's name when it found something). The table goes between the
<!-- long-run:begin --> and <!-- long-run:end --> lines."""
import glob, os, re, sys

log_dir = sys.argv[1]
readme = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "README.md")
rows, machines = [], set()
for path in sorted(glob.glob(os.path.join(log_dir, "*.log"))):
    head, stats, done, summary, artifact = {}, {}, None, None, None
    for line in open(path, errors="replace"):
        if m := re.match(r"# (\w[\w ]*): (.*)", line):
            head[m.group(1)] = m.group(2).strip()
        elif m := re.match(r"stat::(\w+):\s+(\d+)", line):
            stats[m.group(1)] = int(m.group(2))
        elif m := re.match(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", line):
            done = m.groups()
        elif line.startswith("SUMMARY: "):
            summary = line[len("SUMMARY: "):].strip()
        elif m := re.search(r"Test unit written to (\S+)", line):
            artifact = os.path.basename(m.group(1))
    machines.add(head.get("machine", "?").split("; load")[0])
    exit_status = head.get("exit", "?")
    if exit_status == "0" and done:
        outcome = "no finding"
    else:
        outcome = "exit %s: %s%s" % (exit_status, summary or "no DONE line", " (%s)" % artifact if artifact else "")
    rows.append((head.get("target", ""), head.get("date", ""), "| `fuzz_%s` | %s | `%s` | %s | %s | %s | %s | %s | %s files, %s | %s MB | %s |" % (
        head.get("target", os.path.basename(path)[:-4]), head.get("date", "?"), head.get("commit", "?"),
        head.get("seconds", "?"), format(stats.get("number_of_executed_units", 0), ","),
        stats.get("average_exec_per_sec", "?"), done[1] if done else "?", done[2] if done else "?",
        done[3] if done else "?", done[4] if done else "?", stats.get("peak_rss_mb", "?"), outcome)))
if not rows:
    sys.exit("no *.log in " + log_dir)
table = ["Machine: " + "; ".join(sorted(machines)) + ". Logs: `%s`." % os.path.relpath(log_dir, os.path.dirname(readme)),
         "",
         "| target | date | commit | seconds | executions | exec/s | cov | ft | corpus | peak RSS | outcome |",
         "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"] + [r[2] for r in sorted(rows)]
text = open(readme).read()
begin, end = "<!-- long-run:begin -->", "<!-- long-run:end -->"
if begin not in text or end not in text:
    sys.exit("%s has no %s ... %s section" % (readme, begin, end))
pre, rest = text.split(begin, 1)
open(readme, "w").write(pre + begin + "\n" + "\n".join(table) + "\n" + end + rest.split(end, 1)[1])
print("\n".join(table))
