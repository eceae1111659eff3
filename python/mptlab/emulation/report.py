"""The sim-vs-real report of `mptlab validate` (issue 24): tables, figures, CSV, Markdown, HTML.

    from mptlab.emulation.compare import compare
    from mptlab.emulation.report import Case, stack_timeseries, write_report
    case = Case("two-paths", "mptcp-two-paths.toml", compare("two-paths", sims, emus),
                sim_timeseries=stack_timeseries({1: out1.timeseries, 2: out2.timeseries}))
    write_report("validate-out", [case])          # -> validate-out/report.html

Writes into the folder: `comparison.csv` (every row of every case), `report.md` (one table per
case, then the ratios outside 0.9–1.1 with their known causes), `report.html` (the same, with
the figures embedded as data URIs and the sweep report's stylesheet, so it opens offline), and
per case `<case>_bars.png/.svg` (flow goodput and path shares, simulator next to Linux, mean
over seeds with ± one standard deviation) and, when both backends' time series are given,
`<case>_goodput.png/.svg` (goodput over time, one panel per flow, both backends overlaid; a
band spans the seeds). Every file is written atomically (mptlab.atomic).
"""

from __future__ import annotations

import base64
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mptlab.atomic import write_text
from mptlab.emulation.compare import HIGH, LOW
from mptlab.figures import draw, layout, publication_style, save, style
from mptlab.figures.labels import label

REPORT_HTML = "report.html"
REPORT_MD = "report.md"
COMPARISON_CSV = "comparison.csv"
#: How the two backends are named in tables and legends (simulator first, in blue).
SIM = "simulator"
REAL = "Linux (emulation)"
#: The flag of a ratio outside LOW–HIGH.
FLAG = "✗"
#: Metrics drawn in the bar chart: (metric, y-axis label).
BAR_METRICS = (("goodput_mbps", label("goodput_mbps")), ("share", "path share"))
#: Embed a figure as PNG instead of SVG above this size (as the sweep report does).
MAX_SVG_BYTES = 1_500_000

#: A time-series table: pandas, pyarrow, or the columns `RunOutput.timeseries` holds.
Timeseries: TypeAlias = pd.DataFrame | pa.Table | Mapping[str, Sequence[Any]]


@dataclass(frozen=True)
class Case:
    """One validated scenario: its name, scenario file name, `compare`'s frame and,
    optionally, each backend's long-format time series (series, entity, t_s, value, and a
    `seed` column when several seeds are stacked: `stack_timeseries`)."""

    name: str
    scenario: str
    comparison: pd.DataFrame
    sim_timeseries: Timeseries | None = None
    emu_timeseries: Timeseries | None = None


def stack_timeseries(by_seed: Mapping[int, Timeseries]) -> pd.DataFrame:
    """The time series of several runs in one frame, with a `seed` column."""
    frames = [_frame(ts).assign(seed=seed) for seed, ts in by_seed.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def write_report(out_dir: str | os.PathLike[str], cases: Sequence[Case]) -> Path:
    """Write comparison.csv, report.md, report.html and the figures of `cases` into
    `out_dir` (created if needed); return the path of report.html."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / COMPARISON_CSV, comparison_csv(cases))
    figures = {case.name: write_figures(out, case) for case in cases}
    write_text(out / REPORT_MD, markdown(cases, figures))
    return write_text(out / REPORT_HTML, html(cases, figures))


def comparison_csv(cases: Sequence[Case]) -> str:
    """Every row of every case's comparison, as CSV (missing values empty)."""
    frames = [c.comparison for c in cases if not c.comparison.empty]
    if not frames:
        return ""
    return str(pd.concat(frames, ignore_index=True).to_csv(index=False, float_format="%.10g"))


# ---- tables -------------------------------------------------------------------------------


def display_table(comparison: pd.DataFrame) -> pd.DataFrame:
    """The rows as a person reads them: metric (with unit), entity, sim and real as
    "mean ± std", the ratio real/sim, the flag (✗ outside LOW–HIGH) and, on flagged rows, the
    note on the known cause (every row's note is in comparison.csv)."""
    rows = [
        {
            "metric": f"{r.metric!s} ({r.unit!s})" if r.unit else str(r.metric),
            "entity": r.entity,
            "sim": _mean_std(r.sim_mean, r.sim_std),
            "real": _mean_std(r.emu_mean, r.emu_std),
            "real/sim": _ratio_text(r.ratio),
            "flag": FLAG if _outside(r) else "",
            "note": r.note if _outside(r) else "",
        }
        for r in comparison.itertuples(index=False)
    ]
    return pd.DataFrame(rows, columns=["metric", "entity", "sim", "real", "real/sim", "flag", "note"])


def outside(comparison: pd.DataFrame) -> pd.DataFrame:
    """Rows whose ratio exists and lies outside LOW–HIGH."""
    mask = [_outside(r) for r in comparison.itertuples(index=False)]
    return comparison[mask] if len(comparison) else comparison


def markdown(cases: Sequence[Case], figures: Mapping[str, Sequence[Path]] | None = None) -> str:
    """report.md: per case a table and the list of ratios outside LOW–HIGH with their notes."""
    lines = [
        "# Simulator vs real Linux MPTCP",
        "",
        f"Ratios are real over simulator (emulation mean / simulator mean, over seeds); {FLAG} marks a ratio "
        f"outside {LOW:g}–{HIGH:g}, with the known cause of the difference. Missing values (–) are what a "
        "backend cannot report. All rows, with every note: comparison.csv.",
    ]
    for case in cases:
        lines += ["", f"## {case.name}", "", f"Scenario `{case.scenario}`; {_seeds_text(case.comparison)}.", ""]
        lines += _markdown_table(display_table(case.comparison))
        lines += ["", f"### outside {LOW:g}–{HIGH:g}", ""]
        off = outside(case.comparison)
        if off.empty:
            lines.append("none")
        lines += [f"- {r.entity} {r.metric}: {r.ratio:.3g} — {r.note}" for r in off.itertuples(index=False)]
        for path in (figures or {}).get(case.name, []):
            if path.suffix == ".png":
                lines += ["", f"![{path.stem.replace('_', ' ')}]({path.name})"]
    return "\n".join(lines) + "\n"


def _markdown_table(table: pd.DataFrame) -> list[str]:
    if table.empty:
        return ["No metric was reported by either backend."]
    head = "| " + " | ".join(table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return [head, rule, *body]


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


# ---- figures ------------------------------------------------------------------------------


def write_figures(out: Path, case: Case) -> list[Path]:
    """The case's figures as PNG and SVG in `out`; return the paths written."""
    stem = _file_stem(case.name)
    written: list[Path] = []
    with publication_style():
        bars = bars_figure(case.comparison)
        if bars is not None:
            written += save(bars, out / f"{stem}_bars")
        goodput = goodput_figure(case.sim_timeseries, case.emu_timeseries)
        if goodput is not None:
            written += save(goodput, out / f"{stem}_goodput")
    return written


def bars_figure(comparison: pd.DataFrame) -> Figure | None:
    """Grouped bars, simulator next to Linux: flow goodput in one panel, path shares in the
    other (mean over seeds, error bar ± one standard deviation when there are two seeds or
    more). None when the comparison has neither metric."""
    panels = [(m, text, _bar_rows(comparison, m)) for m, text in BAR_METRICS]
    panels = [p for p in panels if not p[2].empty]
    if not panels:
        return None
    with publication_style():
        width = style.DOUBLE_COLUMN_IN if len(panels) > 1 else style.SINGLE_COLUMN_IN
        fig = style.new_figure(width, style.PANEL_HEIGHT_IN)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, (_, text, rows) in zip(axes, panels, strict=True):
            _bar_panel(ax, rows, text)
        handles = [Patch(facecolor=style.color(j), edgecolor="black", linewidth=0.5) for j in range(2)]
        fig.legend(handles, [SIM, REAL], loc="outside upper center", ncols=2)
    return fig


def _bar_rows(comparison: pd.DataFrame, metric: str) -> pd.DataFrame:
    if comparison.empty:
        return comparison
    rows = comparison[comparison["metric"] == metric]
    return rows[rows["sim_mean"].notna() | rows["emu_mean"].notna()]


def _bar_panel(ax: Any, rows: pd.DataFrame, ylabel: str) -> None:
    offsets, slot = layout.dodge(2)
    names = [str(e).removeprefix("flow:") for e in rows["entity"]]
    for j, side in enumerate(("sim", "emu")):
        means = rows[f"{side}_mean"].to_numpy(dtype=float)
        stds = rows[f"{side}_std"].to_numpy(dtype=float)
        keep = [i for i, m in enumerate(means) if math.isfinite(m)]
        errs = [stds[i] if math.isfinite(stds[i]) else 0.0 for i in keep]
        ax.bar([i + offsets[j] for i in keep], [means[i] for i in keep], width=slot * 0.9,
               color=style.color(j), edgecolor="black", linewidth=0.5,
               yerr=errs if any(errs) else None,
               error_kw={"elinewidth": 0.8, "capsize": 2, "capthick": 0.8, "ecolor": "black"})
    layout.category_axis(ax, names)
    layout.value_grid(ax, "y")
    ax.set_ylabel(ylabel)


def goodput_figure(sim: Timeseries | None, emu: Timeseries | None) -> Figure | None:
    """Goodput over time of both backends overlaid, one panel per flow (mptlab.figures'
    timeseries kind: steps per interval, a min–max band over seeds). None unless at least one
    backend has a goodput series."""
    parts = [_goodput_rows(ts, name) for ts, name in ((sim, SIM), (emu, REAL)) if ts is not None]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return None
    frame = pd.concat(parts, ignore_index=True)
    present = [name for name in (SIM, REAL) if (frame["backend"] == name).any()]
    return draw("timeseries", frame, y="goodput_mbps", hue="backend", facet="flow", hue_order=present)


def _goodput_rows(ts: Timeseries, backend: str) -> pd.DataFrame:
    frame = _frame(ts)
    if frame.empty or "series" not in frame.columns:
        return pd.DataFrame()
    rows = frame[frame["series"] == "goodput_mbps"]
    rows = rows.drop(columns=["series"]).rename(columns={"value": "goodput_mbps", "entity": "flow"})
    return rows.assign(backend=backend)


def _frame(ts: Timeseries) -> pd.DataFrame:
    if isinstance(ts, pd.DataFrame):
        return ts
    if isinstance(ts, pa.Table):
        return ts.to_pandas()
    return pd.DataFrame({k: list(v) for k, v in ts.items()})


def _file_stem(name: str) -> str:
    """A case name as a file name (anything but letters, digits, '.', '-' and '_' becomes '_')."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "case"


# ---- HTML -----------------------------------------------------------------------------------


def html(cases: Sequence[Case], figures: Mapping[str, Sequence[Path]]) -> str:
    """report.html: the Markdown report's content with the figures embedded, styled like the
    sweep report (its stylesheet is read from mptlab.report's template, not copied)."""
    from mptlab import _core
    from mptlab.report.render import _html_table

    sections = [
        {
            "name": case.name,
            "scenario": case.scenario,
            "seeds": _seeds_text(case.comparison),
            "table": _html_table(display_table(case.comparison)),
            "outside": [(r.entity, r.metric, f"{r.ratio:.3g}", r.note)
                        for r in outside(case.comparison).itertuples(index=False)],
            "figures": [_embed(p) for p in _embeddable(figures.get(case.name, []))],
        }
        for case in cases
    ]
    return _template().render(css=_house_css(), version=_core.version(), cases=sections, low=f"{LOW:g}",
                              high=f"{HIGH:g}", flag=FLAG, csv=COMPARISON_CSV)


def _embeddable(paths: Sequence[Path]) -> list[Path]:
    """Per figure the SVG, or the PNG when the SVG exceeds MAX_SVG_BYTES."""
    svgs = [p for p in paths if p.suffix == ".svg"]
    out = []
    for svg in svgs:
        png = svg.with_suffix(".png")
        out.append(png if svg.stat().st_size > MAX_SVG_BYTES and png.exists() else svg)
    return out


def _embed(path: Path) -> dict[str, str]:
    mime = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    uri = f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
    kind = path.stem.rsplit("_", 1)[-1]
    return {"id": path.stem, "src": uri, "file": path.name, "caption": CAPTIONS.get(kind, "")}


#: Captions by figure kind (the stem's last part).
CAPTIONS = {
    "bars": "Flow goodput and path shares: simulator next to Linux, mean over seeds, error bar ± one std.",
    "goodput": "Goodput per flow over time, both backends overlaid; the band spans the seeds (min–max).",
}


def _house_css() -> str:
    """The stylesheet of the sweep report's template (mptlab/report/template.html.j2)."""
    from importlib.resources import files

    text = files("mptlab.report").joinpath("template.html.j2").read_text(encoding="utf-8")
    match = re.search(r"<style>(.*?)</style>", text, re.DOTALL)
    return match.group(1) if match else ""


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mptlab {{ version }}">
<title>Simulator vs real Linux MPTCP — mptlab validation report</title>
<style>{{ css | safe }}
  table.data td:last-child { white-space: normal; text-align: left; min-width: 24rem; }
</style>
</head>
<body>
<header>
  <h1>Simulator vs real Linux MPTCP</h1>
  <p class="muted">Ratios are real over simulator (emulation mean / simulator mean, over seeds);
    <span class="bad">{{ flag }}</span> marks a ratio outside {{ low }}–{{ high }}; – is a value a backend
    cannot report. All rows, with every note: <code>{{ csv }}</code> · mptlab {{ version }}</p>
  <nav>{% for c in cases %}<a href="#case-{{ loop.index }}">{{ c.name }}</a>{% endfor %}</nav>
</header>
{% for c in cases %}
<section id="case-{{ loop.index }}">
<h2>{{ c.name }}</h2>
<p class="muted">Scenario <code>{{ c.scenario }}</code>; {{ c.seeds }}.</p>
{% for f in c.figures %}
<figure id="fig-{{ f.id }}" class="figure">
  <img class="figure" src="{{ f.src }}" alt="{{ f.caption or f.file }}">
  <figcaption>{{ f.caption }} ({{ f.file }})</figcaption>
</figure>
{% endfor %}
<div class="scroll">{{ c.table | safe }}</div>
<h3>Outside {{ low }}–{{ high }}</h3>
{% if c.outside %}
<ul>
{% for entity, metric, ratio, note in c.outside %}<li><code>{{ entity }}</code> {{ metric }}:
  <span class="bad">{{ ratio }}</span> — {{ note }}</li>
{% endfor %}
</ul>
{% else %}
<p class="ok">none</p>
{% endif %}
</section>
{% endfor %}
</body>
</html>
"""


def _template() -> Any:
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.from_string(_TEMPLATE)


# ---- formatting -----------------------------------------------------------------------------


def _outside(row: Any) -> bool:
    return not row.within and _finite(row.ratio)


def _finite(value: Any) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def _mean_std(mean: Any, std: Any) -> str:
    if not _finite(mean):
        return "–"
    if not _finite(std):
        return _number(mean, 4)
    return f"{_number(mean, 4)} ± {_number(std, 2)}"


def _number(value: float, digits: int) -> str:
    """`digits` significant digits; whole numbers from 10⁴ up with thousands separators
    (byte counts read as 9,691,264, not 9.691e+06)."""
    if abs(value) >= 1e4:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def _ratio_text(ratio: Any) -> str:
    return f"{ratio:.3g}" if _finite(ratio) else "–"


def _seeds_text(comparison: pd.DataFrame) -> str:
    if comparison.empty:
        return "no metrics"
    sim, emu = int(comparison["sim_n"].max()), int(comparison["emu_n"].max())
    return f"{sim} simulator run{'s' if sim != 1 else ''}, {emu} emulated run{'s' if emu != 1 else ''}"
