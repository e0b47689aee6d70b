#!/usr/bin/env python3
"""Charts of a sweep's metrics over its swept parameters: `sweep_charts.py DIR` reads DIR/sweep.csv (written
by `streamlab sweep`) and writes DIR/charts/<metric>-vs-<parameter>.svg/.png, one panel per workload, one
line per policy, each point the median over every other swept setting (predicted dashed, measured solid).
Exit codes as streamlab_style: 0 done, 2 bad input, 3 matplotlib missing."""
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import streamlab_style as style  # noqa: E402

METRICS = [  # (column suffix, axis label, scale)
    ("makespan_ns", "makespan (ms)", 1e-6),
    ("copy_compute_overlap", "copy/compute overlap", 1.0),
    ("mean_concurrency", "mean device concurrency", 1.0),
]
# Generator parameters are part of a workload's label (one panel each), so they are no x axis.
PARAMETERS = ["streams", "window", "connections"]
MAX_PANELS = 9


def as_number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def main() -> None:
    if len(sys.argv) != 2:
        style.fail("usage: sweep_charts.py DIR (the output folder of streamlab sweep)")
    out = Path(sys.argv[1])
    rows = style.read_csv(out / "sweep.csv")
    plt = style.pyplot()
    params = PARAMETERS
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    drawn = 0
    for param in params:
        xs = sorted({as_number(r[param]) for r in rows if not math.isnan(as_number(r[param]))})
        if len(xs) < 2:
            continue  # not swept (or not numeric: "default" connections)
        for suffix, label, scale in METRICS:
            sides = [s for s in ("predicted", "measured") if any(r[f"{s}_{suffix}"] for r in rows)]
            if not sides:
                continue
            shown = workloads[:MAX_PANELS]
            cols = min(3, len(shown))
            nrows = math.ceil(len(shown) / cols)
            fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False)
            for ax in axes.flat[len(shown):]:
                ax.set_visible(False)
            for ax, wl in zip(axes.flat, shown):
                for i, pol in enumerate(policies):
                    for side in sides:
                        col = f"{side}_{suffix}"
                        ys = []
                        for x in xs:
                            vals = [as_number(r[col]) * scale for r in rows
                                    if r["workload"] == wl and r["policy"] == pol and as_number(r[param]) == x
                                    and r[col] != ""]
                            ys.append(statistics.median(vals) if vals else math.nan)
                        look = style.PREDICTED if side == "predicted" else style.MEASURED
                        ax.plot(xs, ys, label=f"{pol} ({side})" if len(sides) > 1 else pol,
                                **style.series_style(i), **look)
                ax.set_title(style.wrap(wl, 40), fontsize=9)
                ax.set_xlabel(param)
                ax.set_ylabel(label)
                if len(xs) > 2 and xs[0] > 0 and xs[-1] / xs[0] >= 8:
                    ax.set_xscale("log", base=2)
                ax.set_xticks(xs)
                ax.set_xticklabels([style.human_number(x) for x in xs])
            handles, labels = axes.flat[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), bbox_to_anchor=(0.5, -0.02))
            fig.suptitle(style.wrap(f"{label} over {param} (median over the other swept settings)", 90))
            fig.tight_layout(rect=(0, 0.08, 1, 0.97))
            notes = []
            if len(workloads) > MAX_PANELS:
                notes.append(f"first {MAX_PANELS} of {len(workloads)} workloads shown")
            if notes:
                style.footnote(fig, notes)
            style.save(fig, out / "charts" / f"{suffix.replace('_ns', '')}-vs-{param}", formats=("svg", "png"))
            drawn += 1
    print(f"{out / 'charts'}: {drawn} charts")


if __name__ == "__main__":
    main()
