"""Sweep figures (mptlab.figures): every kind draws the expected artists from frames shaped like
the sweep store's, categories come in natural order, files are written atomically and the SVG is
byte-identical across saves, and bad arguments raise ValueError naming the option.

The frames come from real runs: dumbbell.toml for 2 s, cc ∈ {reno, cubic} × bottleneck buffer
∈ {0.5bdp, 2bdp, 10bdp} × seeds {1, 2}, plus one failed run."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection, QuadMesh
from matplotlib.container import BarContainer
from matplotlib.patches import PathPatch

from conftest import REPO

DUMBBELL = REPO / "scenarios" / "dumbbell.toml"
PARAMS = ["cc", "buffer"]
CCS = ["reno", "cubic"]
BUFFERS = ["10bdp", "0.5bdp", "2bdp"]  # deliberately not in natural order
SEEDS = [1, 2]


@dataclass
class Sweep:
    runs: pd.DataFrame
    flows: pd.DataFrame
    links: pd.DataFrame
    timeseries: pd.DataFrame
    params: list[str] = field(default_factory=lambda: list(PARAMS))


def run_frames(points: list[dict], seeds: list[int], params: list[str]) -> Sweep:
    """Run every (point, seed) and assemble the store's four tables."""
    import mptlab

    runs, flows, links, series = [], [], [], []
    for p, values in enumerate(points):
        overrides = {"run.duration": "2s", "flows.bulk.cc": values["cc"],
                     "links.bottleneck.queue.limit": values["buffer"],
                     # a little random loss, so that seeds differ
                     "links.bottleneck.loss": '{ model = "bernoulli", p = 0.001 }'}
        for seed in seeds:
            r = mptlab.run(DUMBBELL, seed=seed, overrides=overrides, plots=False)
            s = r.summary
            key = {"run_key": f"k{p}-{seed}", "point": p, "seed": seed, **{k: values[k] for k in params}}
            fl = s["flows"]
            row = {**key, "status": "ok", "error": None,
                   "goodput_mbps": sum(f["goodput_mbps"]["mean"] for f in fl),
                   "jain": s["jain_all_flows"],
                   "loss_pct": 100 * sum(f["dropped_packets"] for f in fl) / sum(f["sent_packets"] for f in fl),
                   "owd_ms": float(np.mean([(f["owd_ms"] or {}).get("mean", np.nan) for f in fl])),
                   "jitter_ms": float(np.mean([(f["jitter_ms"] or {}).get("mean", np.nan) for f in fl])),
                   "retransmissions": sum(f.get("retransmissions") or 0 for f in fl),
                   "rto_count": sum(f.get("rto_count") or 0 for f in fl)}
            for g in s["groups"]:
                row[f"goodput_mbps__{g['name']}"] = g["goodput_mbps_total"]
            for link in s["links"]:
                row[f"queue_delay_ms__{link['name']}"] = (link["queue_delay_ms"] or {}).get("mean")
            runs.append(row)
            for f in fl:
                # The store's flows table has a per-flow `cc` column; here the swept `cc` (same
                # for the bulk flows) keeps its name.
                flows.append({**key, "flow": f["name"], "group": f["group"], "protocol": f["protocol"],
                              "goodput_mbps": f["goodput_mbps"]["mean"],
                              "jitter_ms": f["jitter_ms"]["mean"], "owd_ms": f["owd_ms"]["mean"],
                              "owd_ms_p95": f["owd_ms"]["p95"], "loss_pct": f["loss_pct"],
                              "srtt_ms": f.get("srtt_ms_mean"), "completion_time_s": f["completion_time_s"],
                              "retransmissions": f.get("retransmissions")})
            for link in s["links"]:
                links.append({**key, "link": link["name"], "throughput_mbps": (link["throughput_mbps"] or {}).get("mean", 0.0),
                              "utilization": (link["throughput_mbps"] or {}).get("mean", 0.0) / link["rate_mbps"],
                              "queue_delay_ms": (link["queue_delay_ms"] or {}).get("mean"), "drop_pct": link["drop_pct"],
                              "jitter_ms": (link["jitter_ms"] or {}).get("mean")})
            ts = r.timeseries.to_pandas()
            series.append(ts.assign(**key)[[*key, "series", "entity", "t_s", "value"]])
    runs.append({"run_key": "failed", "point": len(points), "seed": 1, "status": "failed",
                 "error": "boom", **{k: "broken" for k in params}})
    return Sweep(pd.DataFrame(runs), pd.DataFrame(flows), pd.DataFrame(links),
                 pd.concat(series, ignore_index=True), list(params))


@pytest.fixture(scope="module")
def sweep() -> Sweep:
    points = [{"cc": cc, "buffer": b} for cc in CCS for b in BUFFERS]
    return run_frames(points, SEEDS, PARAMS)


def visible_axes(fig):
    """Data panels (not colour bars, not hidden grid slots)."""
    return [ax for ax in fig.axes if ax.get_visible() and not hasattr(ax, "_colorbar")]


def colorbars(fig):
    return [ax for ax in fig.axes if hasattr(ax, "_colorbar")]


def legend_texts(fig):
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def tick_texts(axis):
    return [t.get_text() for t in axis.get_ticklabels()]


def figures():
    from mptlab import figures as f

    return f


# --- labels and order ---------------------------------------------------------------------


def test_natural_order_sorts_swept_values_by_their_number():
    f = figures()
    assert f.natural_sorted(["10bdp", "0.5bdp", "2bdp", "1bdp"]) == ["0.5bdp", "1bdp", "2bdp", "10bdp"]
    assert f.natural_sorted(["1s", "20ms", "500ms"]) == ["20ms", "500ms", "1s"]
    assert f.natural_sorted(["100Mbps", "1Gbps", "20Mbps"]) == ["20Mbps", "100Mbps", "1Gbps"]
    assert f.natural_sorted(["bulk#10", "cbr", "bulk#2", "bulk#0"]) == ["bulk#0", "bulk#2", "bulk#10", "cbr"]
    assert f.natural_sorted(["20", "3", "100"]) == ["3", "20", "100"]
    assert f.natural_sorted([3, 1.5, 2, None]) == [1.5, 2, 3]


def test_axis_labels_spell_out_units():
    f = figures()
    assert f.label("goodput_mbps") == "goodput (Mbit/s)"
    assert f.label("queue_delay_ms") == "queue delay (ms)"
    assert f.label("t_s") == "time (s)"
    assert f.label("jain") == "Jain's index"
    assert f.label("loss_pct") == "loss (%)"
    assert f.label("goodput_mbps__bulk") == "goodput, bulk (Mbit/s)"
    assert f.label("queue_delay_ms__bottleneck") == "queue delay, bottleneck (ms)"
    assert f.label("rtt_ms") == "RTT (ms)"
    assert f.label("tunnel_share") == "tunnel share"


# --- the kinds ----------------------------------------------------------------------------


def test_bar_chart_has_one_bar_per_x_and_hue_with_ci_from_the_seeds(sweep):
    from mptlab.figures.stats import t975

    fig = figures().draw("bar", sweep.runs, x="cc", y="goodput_mbps", hue="buffer")
    (ax,) = visible_axes(fig)
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(containers) == 3  # one per buffer
    assert sum(len(c.patches) for c in containers) == 6
    assert all(c.errorbar is not None for c in containers)
    assert tick_texts(ax.xaxis) == ["cubic", "reno"]  # the failed run ('broken') is left out
    assert legend_texts(fig) == ["buffer:", "0.5bdp", "2bdp", "10bdp"]
    assert ax.get_ylabel() == "goodput (Mbit/s)"
    # Bar height = mean over seeds; error bar = t_{0.975,1} · s / √2.
    rows = sweep.runs[(sweep.runs.cc == "reno") & (sweep.runs.buffer == "0.5bdp")]["goodput_mbps"]
    bar = containers[0].patches[1]
    assert bar.get_height() == pytest.approx(rows.mean())
    segments = containers[0].errorbar.lines[2][0].get_segments()
    low, high = segments[1][:, 1]
    assert (high - low) / 2 == pytest.approx(t975(1) * rows.std(ddof=1) / np.sqrt(2))


def test_bar_chart_without_error_bars_for_one_seed_or_when_asked(sweep):
    f = figures()
    one_seed = sweep.runs[sweep.runs.seed == 1]
    for fig in (f.draw("bar", one_seed, x="buffer", y="jain"),
                f.draw("bar", sweep.runs, x="buffer", y="jain", error="none")):
        (ax,) = visible_axes(fig)
        (container,) = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert container.errorbar is None
        assert tick_texts(ax.xaxis) == ["0.5bdp", "2bdp", "10bdp"]
        assert ax.get_ylabel() == "Jain's index"
        assert not fig.legends  # no hue, nothing to tell apart


def test_distribution_draws_a_box_and_a_violin_per_group(sweep):
    fig = figures().draw("distribution", sweep.timeseries, x="cc", y="goodput_mbps", hue="buffer")
    (ax,) = visible_axes(fig)
    boxes = [p for p in ax.patches if isinstance(p, PathPatch) and p.get_gid() == "box"]
    violins = [c for c in ax.collections if c.get_gid() == "violin"]
    assert len(boxes) == 6
    assert len(violins) == 6
    assert tick_texts(ax.xaxis) == ["cubic", "reno"]
    assert legend_texts(fig) == ["buffer:", "0.5bdp", "2bdp", "10bdp"]
    # The samples are the goodput interval bins of every flow and seed: the box of
    # (cubic, 0.5bdp) spans the quartiles of exactly those samples.
    ts = sweep.timeseries
    samples = ts[(ts.series == "goodput_mbps") & (ts.cc == "cubic") & (ts.buffer == "0.5bdp")]["value"]
    ys = boxes[0].get_path().vertices[:, 1]
    assert ys.min() == pytest.approx(samples.quantile(0.25))
    assert ys.max() == pytest.approx(samples.quantile(0.75))


def test_distribution_styles_box_violin_and_histogram(sweep):
    f = figures()
    box = f.draw("distribution", sweep.flows, x="buffer", y="goodput_mbps", style="box")
    (ax,) = visible_axes(box)
    assert len([p for p in ax.patches if p.get_gid() == "box"]) == 3
    assert not [c for c in ax.collections if c.get_gid() == "violin"]
    violin = f.draw("distribution", sweep.flows, x="buffer", y="goodput_mbps", style="violin")
    (ax,) = visible_axes(violin)
    assert not [p for p in ax.patches if p.get_gid() == "box"]
    assert len([c for c in ax.collections if c.get_gid() == "violin"]) == 3
    # Histogram: x becomes one panel per value, hue overlays within a panel.
    hist = f.draw("distribution", sweep.timeseries, x="cc", y="goodput_mbps", hue="buffer", style="hist", bins=10)
    axes = visible_axes(hist)
    assert [ax.get_title() for ax in axes] == ["congestion control = cubic", "congestion control = reno"]
    assert legend_texts(hist) == ["buffer:", "0.5bdp", "2bdp", "10bdp"]
    assert axes[0].get_ylabel() == "density"


def test_timeseries_has_a_line_per_flow_and_a_band_over_seeds(sweep):
    fig = figures().draw("timeseries", sweep.timeseries, y="goodput_mbps", facet="buffer")
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == ["buffer = 0.5bdp", "buffer = 2bdp", "buffer = 10bdp"]
    for ax in axes:
        assert [line.get_label() for line in ax.get_lines()] == ["bulk#0", "bulk#1", "cbr"]
        assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 3  # min–max bands
        assert ax.get_ylim()[0] == 0
    assert axes[0].get_ylabel() == "goodput (Mbit/s)"
    assert all(ax.get_xlabel() == "time (s)" for ax in axes)
    assert legend_texts(fig) == ["flow:", "bulk#0", "bulk#1", "cbr"]
    # The line is the mean over seeds (interval bins drawn as steps, the last bin held).
    ts = sweep.timeseries
    rows = ts[(ts.series == "goodput_mbps") & (ts.buffer == "0.5bdp") & (ts.entity == "bulk#0")]
    expected = rows.groupby("t_s")["value"].mean().to_numpy()
    drawn = axes[0].get_lines()[0].get_ydata()
    assert drawn[: len(expected)] == pytest.approx(expected)


def test_timeseries_with_one_seed_or_band_none_draws_no_band(sweep):
    f = figures()
    ts = sweep.timeseries
    one = ts[(ts.seed == 1) & (ts.cc == "reno") & (ts.buffer == "2bdp")]
    for fig in (f.draw("timeseries", one, y="value", series="cwnd_bytes"),
                f.draw("timeseries", ts[ts.cc == "reno"], y="srtt_ms", facet="buffer", band="none")):
        for ax in visible_axes(fig):
            assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
            assert [line.get_label() for line in ax.get_lines()] == ["bulk#0", "bulk#1"]


def test_cdf_has_a_curve_per_hue_group_ending_at_one(sweep):
    fig = figures().draw("cdf", sweep.flows, y="owd_ms", hue="cc")
    (ax,) = visible_axes(fig)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["cubic", "reno"]
    for line, cc in zip(lines, ["cubic", "reno"]):
        v = sweep.flows[sweep.flows.cc == cc]["owd_ms"].dropna()
        assert line.get_ydata()[-1] == 1.0
        assert len(line.get_xdata()) == len(v) + 1
        assert line.get_xdata()[-1] == pytest.approx(v.max())
    assert ax.get_xlabel() == "one-way delay (ms)"
    assert ax.get_ylabel() == "CDF"


def test_heatmap_has_a_cell_per_grid_point_and_a_colour_bar(sweep):
    fig = figures().draw("heatmap", sweep.runs, x="cc", y="buffer", z="goodput_mbps", levels=[80])
    (ax,) = visible_axes(fig)
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    cells = mesh.get_array()
    assert cells.shape == (3, 2)
    assert tick_texts(ax.yaxis) == ["0.5bdp", "2bdp", "10bdp"]
    assert tick_texts(ax.xaxis) == ["cubic", "reno"]
    (cbar,) = colorbars(fig)
    assert cbar.get_ylabel() == "goodput (Mbit/s)"
    means = sweep.runs[sweep.runs.status == "ok"].groupby(["buffer", "cc"])["goodput_mbps"].mean()
    assert cells[0, 1] == pytest.approx(means["0.5bdp", "reno"])
    assert cells[2, 0] == pytest.approx(means["10bdp", "cubic"])
    texts = [t.get_text() for t in ax.texts]
    assert f"{means['10bdp', 'cubic']:.1f}" in texts  # annotated cells


def random_axes_runs(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rtt, share = rng.uniform(10, 200, n), rng.uniform(0, 1, n)
    rows = [{"run_key": f"r{i}-{s}", "status": "ok", "error": None, "point": i, "seed": s,
             "rtt_ms": rtt[i], "tunnel_share": share[i],
             "goodput_mbps": 100 * np.exp(-rtt[i] / 150) * (1 - 0.5 * share[i]) + s}
            for i in range(n) for s in (1, 2)]
    return pd.DataFrame(rows)


def test_contour_over_random_points_with_a_marked_level_and_a_colour_bar():
    runs = random_axes_runs()
    runs["ratio"] = runs["goodput_mbps"] / runs["goodput_mbps"].max()
    fig = figures().draw("contour", runs, x="rtt_ms", y="tunnel_share", z="ratio", levels="0.5")
    (ax,) = visible_axes(fig)
    assert len(colorbars(fig)) == 1
    assert colorbars(fig)[0].get_ylabel() == "ratio"
    assert ax.get_xlabel() == "RTT (ms)"
    assert [t.get_text() for t in ax.texts] and all(t.get_text() == "0.5" for t in ax.texts)
    (points,) = ax.get_lines()
    assert len(points.get_xdata()) == 40  # one dot per sampled point (seeds averaged)


def test_facets_share_one_colour_bar(sweep):
    fig = figures().draw("heatmap", sweep.flows, x="buffer", y="group", z="owd_ms", facet="cc")
    assert len(visible_axes(fig)) == 2
    assert len(colorbars(fig)) == 1
    norms = {(c.norm.vmin, c.norm.vmax) for ax in visible_axes(fig) for c in ax.collections if isinstance(c, QuadMesh)}
    assert len(norms) == 1


# --- files --------------------------------------------------------------------------------


def test_save_writes_png_and_svg_and_the_svg_is_byte_identical_across_saves(sweep, tmp_path):
    f = figures()
    paths = f.save(f.draw("distribution", sweep.timeseries, x="cc", y="goodput_mbps", hue="buffer"), tmp_path / "a" / "dist")
    assert [p.name for p in paths] == ["dist.png", "dist.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_bytes()
    assert svg.startswith(b"<?xml") and b"<dc:date>" not in svg
    again = f.save(f.draw("distribution", sweep.timeseries, x="cc", y="goodput_mbps", hue="buffer"), tmp_path / "b" / "dist")
    assert again[1].read_bytes() == svg
    assert again[0].read_bytes() == paths[0].read_bytes()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["dist.png", "dist.svg"]  # no temp files left


def test_png_is_200_dpi_at_column_width(sweep, tmp_path):
    from PIL import Image

    f = figures()
    png, _ = f.save(f.draw("bar", sweep.runs, x="cc", y="goodput_mbps"), tmp_path / "bar")
    with Image.open(png) as im:
        assert im.size[0] == 3.5 * 200
    png, _ = f.save(f.draw("bar", sweep.runs, x="cc", y="goodput_mbps", facet="buffer"), tmp_path / "bars")
    with Image.open(png) as im:
        assert im.size[0] == 7 * 200


# --- the standard set ---------------------------------------------------------------------


def test_standard_figures_of_a_two_parameter_sweep(sweep, tmp_path):
    f = figures()
    figs = f.standard_figures(sweep, sweep.params)
    assert [stem for stem, _ in figs] == [
        "goodput_bar", "goodput_distribution", "goodput_timeseries", "owd_cdf", "goodput_heatmap", "jain_bar",
    ]
    stems = dict(figs)
    # one run per cc (lowest point, lowest seed) in the time series
    assert [ax.get_title() for ax in visible_axes(stems["goodput_timeseries"])] == [
        "congestion control = cubic", "congestion control = reno"]
    assert all(len(ax.get_lines()) == 3 and not ax.collections for ax in visible_axes(stems["goodput_timeseries"]))
    paths = f.save_all(figs, tmp_path)
    assert len(paths) == 12 and all(p.stat().st_size > 0 for p in paths)


def test_standard_figures_skip_what_the_data_cannot_show(sweep):
    f = figures()
    one_param = Sweep(sweep.runs, sweep.flows, sweep.links, sweep.timeseries, ["buffer"])
    assert [s for s, _ in f.standard_figures(one_param)] == [
        "goodput_bar", "goodput_distribution", "goodput_timeseries", "owd_cdf", "jain_bar"]
    bare = Sweep(sweep.runs, sweep.flows.assign(owd_ms=np.nan), sweep.links, None, sweep.params)  # type: ignore[arg-type]
    assert [s for s, _ in f.standard_figures(bare)] == ["goodput_bar", "goodput_heatmap", "jain_bar"]
    nothing = Sweep(sweep.runs.iloc[0:0], sweep.flows.iloc[0:0], sweep.links.iloc[0:0], sweep.timeseries.iloc[0:0], [])
    assert f.standard_figures(nothing) == []


def test_standard_figures_draw_a_contour_for_random_numeric_axes():
    runs = random_axes_runs()
    data = Sweep(runs, pd.DataFrame(), pd.DataFrame(), None, ["rtt_ms", "tunnel_share"])  # type: ignore[arg-type]
    assert "goodput_contour" in [s for s, _ in figures().standard_figures(data)]


# --- argument errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "table", "args", "message"),
    [
        ("pie", "runs", {"y": "goodput_mbps"}, "kind: unknown kind 'pie' (valid: timeseries, distribution, bar, cdf, heatmap, contour)"),
        ("bar", "runs", {"x": "cc2", "y": "goodput_mbps"}, "x: no column 'cc2' (valid: run_key, point, seed, cc, buffer,"),
        ("bar", "runs", {"x": "cc", "y": "buffer"}, "y: column 'buffer' is not numeric (valid: goodput_mbps"),
        ("bar", "runs", {"x": "cc", "y": "goodput_mbps", "hue": "nope"}, "hue: no column 'nope'"),
        ("bar", "runs", {"x": "cc", "y": "goodput_mbps", "facet": "cc"}, "facet: column 'cc' already plays another role"),
        ("bar", "runs", {"x": "cc", "y": "goodput_mbps", "error": "sem"}, "error: unknown value 'sem' (valid: ci95, std, none)"),
        ("bar", "runs", {"x": "cc", "y": "goodput_mbps", "colour": "red"}, "colour: unknown option for kind 'bar' (valid: cols, error,"),
        ("bar", "runs", {"x": "buffer", "y": "goodput_mbps", "order": "2bdp,1bdp"}, "order: no value '1bdp' in column 'buffer' (valid: 0.5bdp, 2bdp, 10bdp)"),
        ("distribution", "runs", {"x": "cc", "y": "jain", "style": "swarm"}, "style: unknown value 'swarm' (valid: box+violin, box, violin, hist)"),
        ("distribution", "timeseries", {"x": "cc", "y": "value"}, "series: the table holds several series; choose one (valid: cwnd_bytes, goodput_mbps,"),
        ("timeseries", "timeseries", {"y": "value", "series": "goodput"}, "series: no series 'goodput' (valid: cwnd_bytes, goodput_mbps,"),
        ("cdf", "flows", {"x": "cc", "y": "owd_ms"}, "x: not used by kind 'cdf' (the value goes in y; group with hue)"),
        ("heatmap", "runs", {"x": "cc", "y": "buffer"}, "z: kind 'heatmap' needs z (the column shown as colour) (valid: goodput_mbps"),
        ("heatmap", "runs", {"x": "cc", "y": "buffer", "z": "jain", "annotate": "maybe"}, "annotate: expected true or false, got 'maybe'"),
        ("contour", "runs", {"x": "cc", "y": "buffer", "z": "jain"}, "x: kind 'contour' needs numeric values, column 'cc' holds text; use kind 'heatmap'"),
        ("contour", "runs", {"x": "seed", "y": "point", "z": "jain", "cmap": "rainbowz"}, "cmap: unknown colour map 'rainbowz'"),
        ("bar", "runs", {"x": "cc", "y": "goodput_mbps", "width": "huge"}, "width: expected single, double or inches"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_option(sweep, kind, table, args, message):
    with pytest.raises(ValueError) as err:
        figures().draw(kind, getattr(sweep, table), **args)
    assert str(err.value).startswith(message)


def test_contour_with_too_few_points_says_so():
    runs = random_axes_runs(2)
    with pytest.raises(ValueError, match=r"^kind: contour needs at least 3 distinct \(x, y\) points, got 2; use kind 'heatmap'"):
        figures().draw("contour", runs, x="rtt_ms", y="tunnel_share", z="goodput_mbps")


def test_options_are_listed_per_kind():
    f = figures()
    assert set(f.KINDS) == {"timeseries", "distribution", "bar", "cdf", "heatmap", "contour"}
    assert {"error", "width", "order"} <= set(f.options("bar"))
    assert {"z", "levels", "annotate"} <= set(f.options("heatmap"))
    with pytest.raises(ValueError, match="^kind: unknown kind 'pies'"):
        f.options("pies")


def test_seed_can_be_an_axis(sweep):
    fig = figures().draw("heatmap", sweep.runs, x="seed", y="buffer", z="jain")
    (ax,) = visible_axes(fig)
    assert tick_texts(ax.xaxis) == ["1", "2"]
