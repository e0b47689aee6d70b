"""Shared look and file handling for every streamlab chart (experiments, sweeps, anything else).

Import it before pyplot is used:

    import streamlab_style as style
    plt = style.pyplot()                 # matplotlib with the Agg backend and the house style
    fig, ax = plt.subplots(figsize=style.FIGSIZE)
    ...
    style.save(fig, out_dir / "E2")      # E2.svg, E2.pdf, E2.png, each written atomically

What the style guarantees, so charts from different scripts read alike:
  * DejaVu Sans (Debian fonts-dejavu-core), sizes readable at column width;
  * the Okabe-Ito colour-blind-safe palette, each series also gets its own marker (colour is never the
    only cue) via `series_style(i)`;
  * predicted (simulator) values are dashed lines / hollow markers, measured (GPU) values solid lines /
    filled markers (`PREDICTED`, `MEASURED`);
  * titles wrapped at word boundaries (`wrap`), never inside a word;
  * deterministic files: no dates in SVG/PDF metadata and a fixed SVG id salt, so re-rendering unchanged
    data gives byte-identical files.

Exit codes shared by the scripts: 0 done, 2 bad input (missing or malformed CSV), 3 matplotlib missing.
"""

from __future__ import annotations

import csv
import math
import os
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Iterable, Sequence

EXIT_INPUT = 2
EXIT_NO_MATPLOTLIB = 3

# Okabe & Ito (2008) qualitative palette, black moved last (it is the colour of annotations).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
FIGSIZE = (8.0, 4.8)        # inches; 100 dpi PNG -> 800 x 480 px at scale 1
PNG_DPI = 150
ANNOTATION = "#555555"

# How each side of a comparison is drawn.
MEASURED = {"linestyle": "-", "fillstyle": "full"}
PREDICTED = {"linestyle": "--", "fillstyle": "none"}


def fail(message: str, code: int = EXIT_INPUT) -> "NoReturn":  # type: ignore[name-defined]
    """One line in the project's error format, then exit with `code`."""
    print(f"streamlab: error: {message}", file=sys.stderr)
    sys.exit(code)


def pyplot(quiet_if_missing: bool = False):
    """matplotlib.pyplot with the Agg backend (no display needed) and the house style applied. Without
    matplotlib: exit EXIT_NO_MATPLOTLIB, with a message unless the caller reports it itself."""
    try:
        import matplotlib
    except ImportError:
        if quiet_if_missing:
            sys.exit(EXIT_NO_MATPLOTLIB)
        fail("charts need matplotlib (Debian: apt install python3-matplotlib) for "
             f"{sys.executable}", EXIT_NO_MATPLOTLIB)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 12,
        "axes.titleweight": "bold",
        "axes.labelsize": 10,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.color": "#dddddd",
        "grid.linewidth": 0.7,
        "axes.axisbelow": True,
        "legend.frameon": False,
        "legend.fontsize": 9,
        "lines.linewidth": 1.8,
        "lines.markersize": 6,
        "errorbar.capsize": 3,
        "figure.dpi": 100,
        "savefig.dpi": PNG_DPI,
        "savefig.bbox": "tight",
        "savefig.pad_inches": 0.08,
        "svg.hashsalt": "streamlab",   # stable element ids
        "svg.fonttype": "path",        # text as outlines: the SVG looks the same without DejaVu installed
        "pdf.fonttype": 42,            # TrueType in PDF: selectable text
    })
    return plt


def series_style(i: int) -> dict:
    """Colour and marker of the i-th series (wraps around)."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)]}


def wrap(text: str, width: int = 70) -> str:
    """Wraps at spaces only: words (and hyphenated words) are never broken."""
    return "\n".join(textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False))


def save(fig, stem: Path, formats: Sequence[str] = ("svg", "pdf", "png")) -> list[Path]:
    """Writes `stem`.svg/.pdf/.png atomically (temporary file in the same folder, then rename) and closes
    the figure. Metadata carry no date, so unchanged data give unchanged files."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = stem.with_suffix("." + fmt)
        metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(fmt, {})
        fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", dir=target.parent)
        os.close(fd)
        try:
            fig.savefig(tmp, format=fmt, metadata=metadata)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(target)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return written


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV as dicts; a missing or empty file is an input error."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if not rows:
        fail(f"{path}: no rows")
    return rows


def num(row: dict, column: str) -> float:
    """The cell as a float; NaN when the column is absent or the cell empty (the CSV's 'no value')."""
    cell = row.get(column, "")
    if cell is None or cell == "":
        return math.nan
    try:
        return float(cell)
    except ValueError:
        fail(f"column '{column}': '{cell}' is not a number")


def finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def errorbar_yerr(centre: Sequence[float], lo: Sequence[float], hi: Sequence[float]):
    """matplotlib's yerr (2 x N, non-negative) from interval bounds; NaN bounds give no bar."""
    below = [c - l if math.isfinite(c) and math.isfinite(l) else 0.0 for c, l in zip(centre, lo)]
    above = [h - c if math.isfinite(c) and math.isfinite(h) else 0.0 for c, h in zip(centre, hi)]
    return [[max(b, 0.0) for b in below], [max(a, 0.0) for a in above]]


def source_line(meta: dict) -> str:
    """'measured: NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0, 2026-11-21 | predicted: ...' from a
    result's "meta" object."""
    if meta.get("measured"):
        parts = [meta.get("device_name", "GPU")]
        if meta.get("driver"):
            parts.append("driver " + meta["driver"])
        if meta.get("cuda_version"):
            parts.append("CUDA " + meta["cuda_version"])
        if meta.get("date"):
            parts.append(meta["date"][:10])
        left = "measured: " + ", ".join(parts)
    else:
        left = "simulator only (not measured on a GPU)"
    profile = meta.get("profile", "")
    profile = profile.split(" (")[0]
    return left + (" | predicted: simulator, profile " + profile if profile else "")


def layered(i: int) -> tuple[float, float]:
    """(marker size, line width) of the i-th of several series drawn over each other: each later one is
    smaller and thinner, so where series coincide the earlier ones still show around it."""
    return max(7.5 - 1.6 * i, 3.5), max(3.2 - 0.7 * i, 1.0)


def footnote(fig, lines: Sequence[str], width: int = 125) -> None:
    """Small grey lines under everything already on the figure (axes, tick labels, legends below the axes).
    Lays the figure out first so the text never overlaps what is there."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    lowest = min(a.get_window_extent(renderer).y0 for a in fig.get_children() if a.get_visible()
                 and hasattr(a, "get_window_extent"))
    for ax in fig.axes:
        lowest = min(lowest, ax.get_tightbbox(renderer).y0)
    for legend in fig.legends:
        lowest = min(lowest, legend.get_window_extent(renderer).y0)
    y = lowest / fig.bbox.height - 0.015
    fig.text(0.01, y, "\n".join(wrap(l, width) for l in lines if l), fontsize=8, color=ANNOTATION,
             ha="left", va="top")


def legend_outside(ax, handles: list, **kw):
    """The legend to the right of the axes, so it never covers data."""
    return ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), **kw)


def human_number(v: float) -> str:
    """3 significant digits without exponent notation below a million: 2019, 4.7, 0.0271."""
    if not math.isfinite(v):
        return "n/a"
    if abs(v) >= 100:
        return f"{v:,.0f}".replace(",", "\u2009")
    return f"{v:.3g}"
