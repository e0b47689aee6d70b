#!/usr/bin/env python3
"""Writes the CI time budget table into README.md from a measurement (.ci/measure.sh's output).
usage: budget_table.py MEASUREMENT.txt [MEASUREMENT.txt ...] README.md
Each file gives steps as `ci-step: NAME: wall W s, cpu C s` (.ci/run's lines) or `ci-step: NAME: wall W s,
user U s, sys S s` (/usr/bin/time's); several files (parts of the run measured separately) are listed in
order. The table goes between the <!-- budget:begin --> and <!-- budget:end --> lines."""
import re, sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
measurements, readme = sys.argv[1:-1], sys.argv[-1]
headers, steps = [], []
for meas in measurements:
    header = {"file": meas.split("/.ci/")[-1] if "/.ci/" in meas else meas}
    for line in open(meas):
        if m := re.match(r"# (\w[\w ]*): (.*)", line):
            header[m.group(1)] = m.group(2).strip()
        elif m := re.match(r"ci-step: (.*): wall ([\d.]+) s, cpu ([\d.]+) s", line):
            steps.append((m.group(1), round(float(m.group(2))), round(float(m.group(3)))))
        elif m := re.match(r"ci-step: (.*): wall ([\d.]+) s, user ([\d.]+) s, sys ([\d.]+) s", line):
            steps.append((m.group(1), round(float(m.group(2))), round(float(m.group(3)) + float(m.group(4)))))
    headers.append(header)
if not steps:
    sys.exit("no ci-step lines in " + " ".join(measurements))

def mmss(s):
    return "%d:%02d" % divmod(s, 60)

rows = ["- Measured %s on commit `%s` (`%s`): %s; %s. Load when it started: %s." %
        (h.get("date", "?"), h.get("commit", "?"), h["file"], h.get("machine", "?"), h.get("conditions", "?"),
         h.get("load at start", "?")) for h in headers]
rows += ["",
        "| step | wall (shared machine) | CPU user+sys | CPU / 2 |",
        "| --- | ---: | ---: | ---: |"]
for name, wall, cpu in steps:
    rows.append("| %s | %s | %s | %s |" % (name, mmss(wall), mmss(cpu), mmss(cpu // 2)))
wall = sum(s[1] for s in steps)
cpu = sum(s[2] for s in steps)
rows.append("| **total** | **%s** | **%s** | **%s** |" % (mmss(wall), mmss(cpu), mmss(cpu // 2)))

text = open(readme).read()
begin, end = "<!-- budget:begin -->", "<!-- budget:end -->"
if begin not in text or end not in text:
    sys.exit("%s has no %s ... %s section" % (readme, begin, end))
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(head + begin + "\n" + "\n".join(rows) + "\n" + end + tail)
print("\n".join(rows))
