#!/usr/bin/env python3
"""Draws the chart of every experiment result in the given folders: <E>.svg, <E>.pdf and <E>.png next to
<E>.csv. The numbers come from <E>.csv (one row per configuration, columns in docs/formats.md); <E>.json
gives the title, the metric's unit and where the numbers were obtained.

    experiment_charts.py experiments/results/h100 [more folders] [--only E2 --only E6]

`streamlab experiment render DIR` and `streamlab experiment report` run this script. Experiments without a
chart of their own below get a generic one (predicted and measured metric per configuration).

Conventions (scripts/plot/streamlab_style.py): measured = solid line / filled marker or solid bar with the
spread of its runs as an error bar; predicted (simulator, deterministic) = dashed line / hollow marker, its
predicted range (least to greatest over the simulator's variants) a band in the series' colour along a line,
a hollow dashed box at a bar or a point.
Error bars: when the CSV has measured_<metric>_min/_max they are the range of the runs; older results only
store the relative range (measured_spread = (max - min) / median), and then the bar is the bound it gives:
every run lies within median +/- (max - min).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import streamlab_style as style  # noqa: E402

plt = None  # set in main(): importing pyplot needs the style's backend choice first


class Result:
    """One experiment's CSV rows plus the JSON's metadata."""

    def __init__(self, csv_path: Path):
        self.name = csv_path.stem
        self.rows = style.read_csv(csv_path)
        json_path = csv_path.with_suffix(".json")
        try:
            doc = json.loads(json_path.read_text())
        except OSError as e:
            style.fail(f"{json_path}: {e.strerror}")
        except json.JSONDecodeError as e:
            style.fail(f"{json_path}: line {e.lineno}: {e.msg}")
        self.title = doc.get("title", self.name)
        self.meta = doc.get("meta", {})
        metric = doc.get("metric", {})
        self.metric = metric.get("name", "metric")
        self.metric_desc = metric.get("description", self.metric)
        self.unit = metric.get("unit", "")
        self.scale = float(metric.get("scale", 1.0))
        self.measured = any(math.isfinite(style.num(r, f"measured_{self.metric}")) for r in self.rows)
        runs = sorted({int(r["measured_runs"]) for r in self.rows if r.get("measured_runs", "0") not in ("", "0")})
        self.runs = runs[-1] if runs else 0
        self.exact_range = f"measured_{self.metric}_min" in self.rows[0]
        # The predicted range: the least and greatest of the simulator's variants (experiments/README.md).
        self.has_pred_range = f"predicted_{self.metric}_low" in self.rows[0]
        variants = [int((c.get("predicted_range") or {}).get("variants", 0)) for c in doc.get("configurations", [])]
        self.range_variants = max(variants, default=0)

    # Values in display units -------------------------------------------------------------------------
    def pred(self, row) -> float:
        return style.num(row, f"predicted_{self.metric}") * self.scale

    def meas(self, row) -> float:
        return style.num(row, f"measured_{self.metric}") * self.scale

    def pred_range(self, row) -> tuple[float, float]:
        """(low, high) of the simulator's variants for this row, display units; NaN without a range."""
        return (style.num(row, f"predicted_{self.metric}_low") * self.scale,
                style.num(row, f"predicted_{self.metric}_high") * self.scale)

    def meas_range(self, row) -> tuple[float, float]:
        """(low, high) that every measured run of this row lies in, display units."""
        if self.exact_range:
            return (style.num(row, f"measured_{self.metric}_min") * self.scale,
                    style.num(row, f"measured_{self.metric}_max") * self.scale)
        m, spread = self.meas(row), style.num(row, "measured_spread")
        if not (math.isfinite(m) and math.isfinite(spread)):
            return (math.nan, math.nan)
        return (m - abs(m) * spread, m + abs(m) * spread)

    def select(self, **params) -> list[dict]:
        return [r for r in self.rows if all(r.get(k) == v for k, v in params.items())]

    def distinct(self, column: str) -> list[str]:
        return list(OrderedDict.fromkeys(r[column] for r in self.rows))

    # Text ----------------------------------------------------------------------------------------------
    def error_note(self) -> str:
        if not self.measured:
            return ""
        if self.exact_range:
            return f"error bars: range (min to max) of {self.runs} measured runs; point = median"
        return (f"error bars: every one of the {self.runs} measured runs lies within median \u00b1 (max \u2212 min) "
                "(the result stores the runs' range, not their min and max)")

    def range_label(self) -> str:
        return f"predicted range ({self.range_variants} simulator variants)" if self.range_variants \
            else "predicted range (simulator variants)"

    def range_note(self) -> str:
        if not self.has_pred_range:
            return ""
        return ("predicted range: least to greatest prediction over the simulator's variants (host at the profile's "
                "speed and at eight points from a fast to a slow spell, two copy-queue layouts, two copy-queue orders, three rules for "
                "a race between kernels of any priority ready within 1 us: experiments/README.md); it is not a "
                "spread of runs")

    def finish(self, fig, title: str, notes: list[str] = ()) -> None:
        """Title on top; where the numbers come from, the error bars' meaning and the notes below
        everything else (legends placed under the axes included)."""
        fig.suptitle(style.wrap(f"{self.name}: {title}", 80), fontsize=12, fontweight="bold")
        lines = [style.source_line(self.meta)] + [n for n in [self.error_note(), self.range_note(), *notes] if n]
        style.footnote(fig, lines)


# Building blocks -------------------------------------------------------------------------------------------

def side_legend(ax_or_fig, result: Result, series_handles: list, **kw):
    """One legend: a row per series (colour + marker), then how predicted and measured are drawn."""
    from matplotlib.lines import Line2D
    handles = list(series_handles)
    if result.measured:
        handles.append(Line2D([], [], color="#333333", marker="o", linestyle="-", label="measured (GPU, median)"))
    handles.append(Line2D([], [], color="#333333", marker="o", fillstyle="none", linestyle="--",
                          label="predicted (simulator)"))
    if result.has_pred_range:
        handles.append(range_band_handle(result))
    return ax_or_fig.legend(handles=handles, **kw)


# How a predicted range is drawn: along a line, a band in the series' colour; at a bar or a point, a hollow
# dashed box from its low to its high end (predictions are hollow and dashed; the measured runs' error bars
# are thin lines with caps).
RANGE_BAND_ALPHA = 0.18
RANGE_BOX = {"facecolor": "none", "edgecolor": "#111111", "linestyle": (0, (2.5, 1.5)), "linewidth": 1.1}


def range_band_handle(result: Result):
    from matplotlib.patches import Patch
    return Patch(facecolor="#333333", alpha=RANGE_BAND_ALPHA + 0.1, edgecolor="none",
                 label="band: " + result.range_label())


def range_box_handle(result: Result):
    from matplotlib.patches import Patch
    return Patch(**RANGE_BOX, label="dashed box: " + result.range_label())


def range_boxes(ax, result: Result, centres, ranges, thickness: float, horizontal: bool):
    """One hollow dashed box per (low, high) in `ranges` at `centres` (bar or point positions), `thickness`
    in data units across the value axis. A range of zero width shows as a dashed line at its value."""
    from matplotlib.patches import Rectangle
    for c, (lo, hi) in zip(centres, ranges):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            continue
        if horizontal:
            box = Rectangle((lo, c - thickness / 2), hi - lo, thickness, **RANGE_BOX, zorder=6)
        else:
            box = Rectangle((c - thickness / 2, lo), thickness, hi - lo, **RANGE_BOX, zorder=6)
        ax.add_patch(box)


def plot_lines(ax, result: Result, x_col: str, groups: "OrderedDict[str, list[dict]]", y=None, y_range=None,
               pred_range=None):
    """One colour+marker per group; measured solid with error bars, predicted dashed with hollow markers and
    its predicted range as a band in the group's colour. Returns the legend handles (one per group)."""
    from matplotlib.lines import Line2D
    y = y or (lambda row, side: result.meas(row) if side == "measured" else result.pred(row))
    y_range = y_range or (lambda row: result.meas_range(row))
    pred_range = pred_range or (lambda row: result.pred_range(row))
    handles = []
    for i, (label, rows) in enumerate(groups.items()):
        st = style.series_style(i)
        # Later series are drawn thinner and smaller on top of earlier ones, so equal values show both.
        size, width = style.layered(i)
        rows = sorted(rows, key=lambda r: float(r[x_col]))
        xs = [float(r[x_col]) for r in rows]
        pred = [y(r, "predicted") for r in rows]
        if result.has_pred_range:
            lo, hi = zip(*[pred_range(r) for r in rows])
            ax.fill_between(xs, lo, hi, color=st["color"], alpha=RANGE_BAND_ALPHA, linewidth=0, zorder=2)
        ax.plot(xs, pred, color=st["color"], marker=st["marker"], markersize=size + 2, linewidth=max(width * 0.6, 1.0),
                markeredgewidth=1.3, **style.PREDICTED, zorder=3 + i)
        if result.measured:
            meas = [y(r, "measured") for r in rows]
            lo, hi = zip(*[y_range(r) for r in rows])
            ax.errorbar(xs, meas, yerr=style.errorbar_yerr(meas, lo, hi), color=st["color"], marker=st["marker"],
                        markersize=size, linewidth=width, **style.MEASURED, zorder=3 + i)
        handles.append(Line2D([], [], color=st["color"], marker=st["marker"], linestyle="-", label=label))
    return handles


def bars_with_predictions(ax, result: Result, categories: list[str], series: "OrderedDict[str, list]",
                          horizontal: bool = False, value=None, value_range=None, pred_range=None):
    """Grouped bars from zero: per category one bar per series. The bar is the measured median with its
    error bar (the predicted value when nothing was measured); the prediction is a hollow diamond on it.
    `series` maps a series label to one row (or None) per category."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    value = value or (lambda row, side: result.meas(row) if side == "measured" else result.pred(row))
    value_range = value_range or (lambda row: result.meas_range(row))
    pred_range = pred_range or (lambda row: result.pred_range(row))
    n = max(len(series), 1)
    width = 0.8 / n
    handles = []
    for i, (label, rows) in enumerate(series.items()):
        st = style.series_style(i)
        pos = [k - 0.4 + width * (i + 0.5) for k in range(len(categories))]
        side = "measured" if result.measured else "predicted"
        height = [value(r, side) if r else math.nan for r in rows]
        err = None
        if result.measured:
            lo, hi = zip(*[value_range(r) if r else (math.nan, math.nan) for r in rows])
            err = style.errorbar_yerr(height, lo, hi)
        bar = ax.barh if horizontal else ax.bar
        kw = {"xerr": err} if horizontal else {"yerr": err}
        bar(pos, [0 if not math.isfinite(h) else h for h in height], width * 0.9, color=st["color"], alpha=0.85,
            error_kw={"ecolor": "#222222", "elinewidth": 1.2}, **kw)
        if result.measured:
            pred = [value(r, "predicted") if r else math.nan for r in rows]
            px, py = (pred, pos) if horizontal else (pos, pred)
            ax.plot(px, py, linestyle="none", marker="D", markersize=7, markerfacecolor="white",
                    markeredgecolor="#111111", markeredgewidth=1.4, zorder=7)
        if result.has_pred_range:
            range_boxes(ax, result, pos, [pred_range(r) if r else (math.nan, math.nan) for r in rows],
                        width * 0.5, horizontal)
        if len(series) > 1 or label:
            handles.append(Patch(color=st["color"], label=label))
    if result.measured:
        handles.append(Patch(color="#999999", label="bar: measured (GPU, median)"))
        handles.append(Line2D([], [], linestyle="none", marker="D", markerfacecolor="white",
                              markeredgecolor="#111111", label="predicted (simulator)"))
    else:
        handles.append(Patch(color="#999999", label="bar: predicted (simulator)"))
    if result.has_pred_range:
        handles.append(range_box_handle(result))
    ticks = list(range(len(categories)))
    if horizontal:
        ax.set_yticks(ticks, categories)
        ax.set_xlim(left=0)
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
    else:
        ax.set_xticks(ticks, categories)
        ax.set_ylim(bottom=0)
        ax.grid(axis="x", visible=False)
    return handles


def log_ticks(ax, axis: str, values):
    """Ticks at the data values on a log axis, printed plainly (1, 8, 64 rather than 10^0 ...)."""
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(sorted(set(values))))
    target.set_minor_locator(NullLocator())
    fmt = ScalarFormatter()
    fmt.set_scientific(False)
    target.set_major_formatter(fmt)


# The experiments -------------------------------------------------------------------------------------------

def chart_e1(r: Result):
    fig, ax = plt.subplots(figsize=style.FIGSIZE)
    handles = plot_lines(ax, r, "streams", OrderedDict([("8 chunks", r.rows)]))
    ax.set_xlabel("streams")
    ax.set_ylabel(f"makespan ({r.unit})")
    ax.set_ylim(bottom=0)
    ax.set_xticks(sorted({int(x["streams"]) for x in r.rows}))
    side_legend(ax, r, [], loc="upper left", bbox_to_anchor=(1.01, 1.0))
    r.finish(fig, "chunked copy/compute makespan vs streams",
             ["claim: 3+ streams cut latency 40-60% vs 1 stream (8 chunks: 4 MiB H2D -> 150 us kernel -> 4 MiB D2H)"])
    del handles
    return fig


def chart_e2(r: Result):
    conns = r.distinct("connections")
    fig, axes = plt.subplots(1, len(conns), figsize=(11, 4.6), sharey=True)
    axes = list(axes) if len(conns) > 1 else [axes]
    handles = []
    for ax, c in zip(axes, conns):
        groups = OrderedDict((o, r.select(connections=c, order=o)) for o in r.distinct("order"))
        handles = plot_lines(ax, r, "streams", groups)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        log_ticks(ax, "x", [float(x["streams"]) for x in r.rows])
        ax.set_title(f"CUDA_DEVICE_MAX_CONNECTIONS={c}", fontsize=10, fontweight="normal")
        ax.set_xlabel("streams (log scale)")
    axes[0].set_ylabel(f"makespan ({r.unit}, log scale)")
    side_legend(fig, r, handles, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=4)
    r.finish(fig, "makespan of 64 chains vs streams, by hardware connections and issue order",
             ["claim: more than 8 concurrent streams give no benefit; 64 chains x 500 us single-block kernels"])
    return fig


def chart_e3(r: Result):
    stages = r.distinct("stages")
    series = OrderedDict((f"{b} buffer" + ("s" if b != "1" else ""),
                          [next(iter(r.select(stages=s, buffers=b)), None) for s in stages])
                         for b in r.distinct("buffers"))
    fig, ax = plt.subplots(figsize=style.FIGSIZE)
    handles = bars_with_predictions(ax, r, stages, series)
    ax.set_xlabel("stage times: upload / compute / download (ms)")
    ax.set_ylabel(f"time per iteration ({r.unit})")
    style.legend_outside(ax, handles)
    r.finish(fig, "time per iteration by stage times and buffers",
             ["claim: 2/5/2 ms goes from 9 ms (1 buffer) to 5 ms per iteration (3 buffers), 1.8x"])
    return fig


# The research note's stated cost per call (ns); calls without one are not part of the claim. Same figures
# as kCalls in experiments/src/experiments_events.cpp (the claim, not a measurement).
E4_CLAIMED_NS = {"event-create-timed": 1000, "event-create-untimed": 1000, "event-record-timed": 500,
                 "event-record-untimed": 500, "event-query": 200, "stream-wait-event": 300}


def chart_e4(r: Result):
    calls = r.distinct("call")
    labels = [c.replace("event-", "").replace("-", " ") for c in calls]
    fig, ax = plt.subplots(figsize=(8, 5.2))
    handles = bars_with_predictions(ax, r, labels, OrderedDict([("", [r.select(call=c)[0] for c in calls])]),
                                    horizontal=True)
    from matplotlib.lines import Line2D
    for k, c in enumerate(calls):
        if c in E4_CLAIMED_NS:
            ax.plot([E4_CLAIMED_NS[c] * r.scale] * 2, [k - 0.42, k + 0.42], color="black", linewidth=2.5, zorder=6)
    handles.append(Line2D([], [], color="black", linewidth=2.5, label="claimed cost"))
    ax.set_xlabel(f"host time per call ({r.unit})")
    style.legend_outside(ax, handles)
    r.finish(fig, "host cost per event call")
    return fig


def chart_e5(r: Result):
    modes = r.distinct("mode")
    fig, ax = plt.subplots(figsize=(8, 4.2))
    handles = bars_with_predictions(ax, r, [style.wrap(m, 30) for m in modes],
                                    OrderedDict([("", [r.select(mode=m)[0] for m in modes])]), horizontal=True)
    ax.set_xlabel(f"makespan ({r.unit})")
    style.legend_outside(ax, handles)
    r.finish(fig, "legacy NULL stream vs non-blocking and per-thread streams",
             ["4 chains x 8 kernels on streams 1-4 + 8 housekeeping kernels; claim: NULL-stream work serializes "
              "blocking streams"])
    return fig


def chart_e6(r: Result):
    # Gain of the shared queue over static assignment, per distribution and batch: static / dynamic - 1.
    def gain_rows(dist):
        out = []
        for b in r.distinct("batch"):
            s, d = r.select(distribution=dist, batch=b, assignment="static"), \
                r.select(distribution=dist, batch=b, assignment="dynamic")
            if s and d:
                out.append({"batch": b, "s": s[0], "d": d[0]})
        return out

    def y(g, side):
        f = r.meas if side == "measured" else r.pred
        return (f(g["s"]) / f(g["d"]) - 1) * 100

    def y_range(g):
        (slo, shi), (dlo, dhi) = r.meas_range(g["s"]), r.meas_range(g["d"])
        return ((slo / dhi - 1) * 100, (shi / dlo - 1) * 100)

    def pred_range(g):
        # The gain's bounds from the two assignments' ranges (their variants are not paired up here).
        (slo, shi), (dlo, dhi) = r.pred_range(g["s"]), r.pred_range(g["d"])
        return ((slo / dhi - 1) * 100, (shi / dlo - 1) * 100)

    groups = OrderedDict((d, gain_rows(d)) for d in r.distinct("distribution"))
    fig, ax = plt.subplots(figsize=style.FIGSIZE)
    handles = plot_lines(ax, r, "batch", groups, y=y, y_range=y_range, pred_range=pred_range)
    from matplotlib.lines import Line2D
    ax.axhline(0, color="black", linewidth=0.8)
    ax.plot([4096, 8192], [14.2, 14.2], color=style.ANNOTATION, linewidth=3, alpha=0.6)
    handles.append(Line2D([], [], color=style.ANNOTATION, linewidth=3, alpha=0.6, label="claim: +14.2% at 4096-8192"))
    ax.set_xscale("log", base=2)
    log_ticks(ax, "x", [float(x["batch"]) for x in r.rows])
    ax.set_xlabel("batch size (tasks, log scale)")
    ax.set_ylabel("gain of dynamic over static (%)")
    side_legend(ax, r, handles, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    r.finish(fig, "global queue gain over static assignment",
             ["132 persistent worker blocks; positive = the shared queue is faster; claim: static better at small "
              "batch", "error bars combine both assignments' run ranges",
              "the band is bounded by both assignments' predicted ranges" if r.has_pred_range else ""])
    return fig


def chart_e7(r: Result):
    groups = OrderedDict((m, r.select(mode=m)) for m in r.distinct("mode"))
    fig, ax = plt.subplots(figsize=style.FIGSIZE)
    handles = plot_lines(ax, r, "bg_block_us", groups)
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax, "x", [float(x["bg_block_us"]) for x in r.rows])
    ax.set_xlabel("background block duration (us, log scale)")
    ax.set_ylabel(f"foreground latency ({r.unit}, log scale)")
    side_legend(ax, r, handles, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    r.finish(fig, "foreground latency under background load",
             ["4 foreground kernels (132 x 20 us) arrive behind 2112-block background kernels"])
    return fig


def chart_e8(r: Result):
    # Values span three decades: markers on a log axis (bars would have no meaningful base there).
    waits = r.distinct("wait")
    fig, ax = plt.subplots(figsize=(8, 4.4))
    ys = list(range(len(waits)))
    rows = [r.select(wait=w)[0] for w in waits]
    st = style.series_style(0)
    ax.plot([r.pred(x) for x in rows], ys, linestyle="none", marker="o", markersize=9, fillstyle="none",
            color=st["color"], markeredgewidth=1.6, label="predicted (simulator)", zorder=4)
    if r.has_pred_range:
        # Thin enough to stay clear of the value printed above each measured point.
        range_boxes(ax, r, ys, [r.pred_range(x) for x in rows], 0.28, horizontal=True)
    if r.measured:
        meas = [r.meas(x) for x in rows]
        lo, hi = zip(*[r.meas_range(x) for x in rows])
        # A range's lower end can be <= 0 on a log axis only if the spread is >= 100%: clip it to the axis.
        lo = [l if l > 0 else m / 10 for l, m in zip(lo, meas)]
        ax.errorbar(meas, ys, xerr=style.errorbar_yerr(meas, lo, hi), linestyle="none", marker="o", markersize=6,
                    color=st["color"], label="measured (GPU, median)", zorder=5)
        for y_, m in zip(ys, meas):
            ax.annotate(style.human_number(m) + f" {r.unit}", (m, y_), xytext=(0, 9), textcoords="offset points", ha="center",
                        fontsize=8, color="#333333")
    ax.set_xscale("log")
    ax.set_yticks(ys, [w.replace("-", " ") for w in waits])
    ax.invert_yaxis()
    ax.set_ylim(len(waits) - 0.4, -0.7)
    ax.set_xlabel(f"host resumes after kernel A ends ({r.unit}, log scale)")
    handles, _ = ax.get_legend_handles_labels()
    if r.has_pred_range:
        handles.append(range_box_handle(r))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    r.finish(fig, "when the host resumes after the work it needs",
             ["kernel B, on another stream, ends about 2 ms after A: a wait that also covers B resumes ~2000 us late"])
    return fig


def chart_e9(r: Result):
    families = r.distinct("family")
    policies = r.distinct("policy")
    fig, axes = plt.subplots(len(families), 1, figsize=(8, 1.55 * len(families) + 1.2), sharex=False)
    axes = list(axes) if len(families) > 1 else [axes]
    handles = []
    for ax, fam in zip(axes, families):
        rows = [next(iter(r.select(family=fam, policy=p)), None) for p in policies]
        handles = bars_with_predictions(ax, r, [""], OrderedDict((p, [row]) for p, row in zip(policies, rows)),
                                        horizontal=True)
        side = r.meas if r.measured else r.pred
        best = min(side(x) for x in rows if x)
        for i, row in enumerate(rows):
            if row:
                v = side(row)
                # In a column right of the axes, clear of the bars and their error bars.
                ax.text(1.01, -0.4 + 0.8 / len(policies) * (i + 0.5), f"x{v / best:.2f}",
                        transform=ax.get_yaxis_transform(), va="center", fontsize=8, color="#333333")
        ax.set_yticks([])
        ax.set_ylabel(fam, rotation=0, ha="right", va="center")
        ax.set_xlabel(f"makespan ({r.unit})", fontsize=8)
        ax.margins(x=0.02)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    r.finish(fig, "makespan of each policy on four workload families",
             ["x1.00 = the best policy of the family (measured when measured); bars start at zero"])
    fig.tight_layout()
    return fig


def chart_generic(r: Result):
    """Any experiment without its own chart: predicted and measured metric per configuration."""
    labels = [row["config"] for row in r.rows]
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.32 * len(labels) + 1.5)))
    ys = list(range(len(labels)))
    st = style.series_style(0)
    ax.plot([r.pred(x) for x in r.rows], ys, linestyle="none", marker="o", fillstyle="none", markersize=8,
            color=st["color"], label="predicted (simulator)")
    if r.has_pred_range:
        range_boxes(ax, r, ys, [r.pred_range(x) for x in r.rows], 0.45, horizontal=True)
    if r.measured:
        meas = [r.meas(x) for x in r.rows]
        lo, hi = zip(*[r.meas_range(x) for x in r.rows])
        ax.errorbar(meas, ys, xerr=style.errorbar_yerr(meas, lo, hi), linestyle="none", marker="o", color=st["color"],
                    label="measured (GPU, median)")
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"{r.metric_desc} ({r.unit})")
    handles, _ = ax.get_legend_handles_labels()
    if r.has_pred_range:
        handles.append(range_box_handle(r))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    r.finish(fig, r.title)
    return fig


CHARTS = {"E1": chart_e1, "E2": chart_e2, "E3": chart_e3, "E4": chart_e4, "E5": chart_e5, "E6": chart_e6,
          "E7": chart_e7, "E8": chart_e8, "E9": chart_e9}


def main(argv=None) -> int:
    global plt
    ap = argparse.ArgumentParser(description="draw experiment charts (SVG, PDF, PNG) from result CSVs")
    ap.add_argument("dirs", nargs="+", type=Path, help="result folders holding <E>.csv and <E>.json")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="only this experiment (repeatable)")
    ap.add_argument("--quiet-if-no-matplotlib", action="store_true", help=argparse.SUPPRESS)  # streamlab says it
    args = ap.parse_args(argv)
    plt = style.pyplot(quiet_if_missing=args.quiet_if_no_matplotlib)
    for d in args.dirs:
        if not d.is_dir():
            style.fail(f"{d}: not a folder")
        csvs = sorted(p for p in d.glob("*.csv") if not args.only or p.stem in args.only)
        if not csvs:
            style.fail(f"{d}: no result CSV" + (" for " + ", ".join(args.only) if args.only else ""))
        for csv_path in csvs:
            result = Result(csv_path)
            fig = CHARTS.get(result.name, chart_generic)(result)
            for written in style.save(fig, d / result.name):
                print(f"rendered {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
