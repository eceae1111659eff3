"""Build the HTML report of a sweep: load the store, make tables and figures, fill the template."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import Any

import pandas as pd

from mptlab import _core
from mptlab.atomic import write_text
from mptlab.figures.labels import label
from mptlab.report.tables import grouped_summary, headline_metrics, runs_table
from mptlab.sweeps.store import Store

REPORT = "report.html"
#: SVG is crisp at any zoom; a figure whose SVG would exceed this (dense scatter, many
#: violins) is embedded as PNG instead to keep the file openable.
MAX_SVG_BYTES = 1_500_000


def build_report(sweep: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write the report of the sweep folder `sweep` to `out` (default: <sweep>/report.html)."""
    from mptlab.figures import publication_style, standard_figures

    store = Store(sweep)
    data = store.load()
    runs = data.runs
    params = [p for p in data.params if p in runs.columns]
    metrics = headline_metrics(runs) if "status" in runs.columns else []
    with publication_style():
        figures = [_figure(stem, fig) for stem, fig in standard_figures(data, params)]
    summaries = [("all parameters (mean ± std over seeds)", grouped_summary(runs, params, metrics))]
    if len(params) > 1:
        summaries += [(f"by {p} (mean ± std over all other parameters and seeds)",
                       grouped_summary(runs, [p], metrics)) for p in params]
    counts = runs["status"].value_counts().to_dict() if "status" in runs.columns else {}
    meta = data.meta
    from mptlab.sweeps.seeds import seed_spread

    seeds_note = seed_spread(runs, params).warning()
    html = _template().render(
        name=data.name,
        description=_description(meta),
        seeds_note=seeds_note,
        version=_core.version(),
        runs_total=len(runs),
        runs_ok=int(counts.get("ok", 0)),
        runs_failed=int(counts.get("failed", 0)),
        params=[(p, dict(meta.get("columns", [])).get(p, "")) for p in params],
        metrics=[(m, label(m)) for m in metrics],
        plan_text=meta.get("plan_text", ""),
        base_text=meta.get("base_text", ""),
        summaries=[(title, _html_table(df)) for title, df in summaries if not df.empty],
        failures=_failures(runs),
        runs_html=_html_table(runs_table(runs, params, metrics)),
        figures=figures,
    )
    path = Path(out) if out is not None else Path(sweep) / REPORT
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, html)
    return path


def _figure(stem: str, fig: Any) -> dict[str, str]:
    """A figure as an <img> data URI (SVG, or PNG when the SVG is too large), then closed."""
    import matplotlib.pyplot as plt

    title = stem.replace("_", " ")
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    mime = "image/svg+xml"
    if buf.tell() > MAX_SVG_BYTES:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150)
        mime = "image/png"
    plt.close(fig)
    uri = f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"
    caption = CAPTIONS.get(stem, "")
    return {"id": stem, "title": caption or title, "caption": caption, "src": uri}


#: What each standard figure shows (the figures module names them).
CAPTIONS = {
    "goodput_bar": "Aggregate goodput per run: mean over seeds, 95 % confidence interval.",
    "goodput_distribution": "Distribution of interval goodput samples per flow (all runs, all intervals).",
    "goodput_timeseries": "Goodput per flow over time, one run per value of the first parameter.",
    "owd_cdf": "CDF of the flows' mean one-way delay.",
    "goodput_heatmap": "Aggregate goodput over the first two parameters (mean over seeds).",
    "goodput_contour": "Aggregate goodput over the first two parameters (mean over seeds).",
    "jain_bar": "Jain's fairness index over all flows: mean over seeds, 95 % confidence interval.",
}


def _html_table(df: pd.DataFrame) -> str:
    df = df.copy()
    for col in df.columns:  # pandas' <NA> for missing integers and strings reads as noise
        if df[col].dtype.kind != "f":
            df[col] = df[col].astype(object).where(df[col].notna(), "")
    return df.to_html(index=False, na_rep="", border=0, classes="data", float_format=lambda v: f"{v:.6g}")


def _failures(runs: pd.DataFrame) -> list[dict[str, Any]]:
    if "status" not in runs.columns:
        return []
    failed = runs[runs["status"] == "failed"]
    return [{"key": r["run_key"], "point": r["point"], "error": r["error"]} for _, r in failed.iterrows()]


def _description(meta: dict[str, Any]) -> str:
    describe = meta.get("describe") or {}
    return str(describe.get("description") or "")


def _template() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("mptlab.report", "."),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("template.html.j2")
