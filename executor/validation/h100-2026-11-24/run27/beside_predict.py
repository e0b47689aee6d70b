#!/usr/bin/env python3
"""fg_done (us) of a streamlab sim trace: when the host's 'fg_done' synchronize returned."""
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("ph") == "X" and e.get("args", {}).get("op_id") == "fg_done":
        print("%.1f" % (e["ts"] + e["dur"]))
        break
