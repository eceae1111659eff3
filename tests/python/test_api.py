"""The Python API: mptlab.run / mptlab.check / Result."""

from __future__ import annotations

import pyarrow as pa
import pytest

import mptlab
from conftest import BROKEN_DIR, OUTPUT_FILES, QUICKSTART

SUMMARY_KEYS = {
    "seed", "duration_s", "scenario", "definitions", "flows", "links", "groups",
    "jain_all_flows", "protocols", "engine",
}
FLOW_KEYS = {
    "name", "group", "protocol", "cc", "src", "dst", "goodput_mbps", "bytes_delivered",
    "sent_packets", "dropped_packets", "loss_pct", "retransmissions", "rto_count", "jitter_ms",
    "owd_ms", "completion_time_s", "srtt_ms_mean",
}
LINK_KEYS = {
    "name", "from", "to", "rate_mbps", "throughput_mbps", "bytes", "packets", "drops",
    "drop_pct", "queue_delay_ms", "queue_pkts_mean",
}


def test_version_is_the_engine_version():
    assert mptlab.__version__ == mptlab._core.version()
    assert mptlab.__version__


def test_run_returns_summary_dict_with_documented_keys(quickstart_result):
    s = quickstart_result.summary
    assert isinstance(s, dict)
    assert SUMMARY_KEYS <= s.keys()
    assert s["seed"] == 1 == quickstart_result.seed
    assert s["flows"], "quickstart has flows"
    for f in s["flows"]:
        assert FLOW_KEYS <= f.keys(), FLOW_KEYS - f.keys()
        assert {"mean", "std", "min", "max", "p50", "p95", "count"} <= f["goodput_mbps"].keys()
    for link in s["links"]:
        assert LINK_KEYS <= link.keys(), LINK_KEYS - link.keys()
    assert set(s["engine"]) >= {"events", "delivered_data_packets"}
    assert s["engine"]["delivered_data_packets"] > 0


def test_run_returns_long_format_arrow_timeseries(quickstart_result):
    ts = quickstart_result.timeseries
    assert isinstance(ts, pa.Table)
    assert ts.column_names == ["series", "entity", "t_s", "value"]
    assert ts.schema.field("t_s").type == pa.float64()
    assert ts.schema.field("value").type == pa.float64()
    assert ts.num_rows > 0
    df = ts.to_pandas()
    series = set(df["series"])
    assert {"goodput_mbps", "queue_delay_ms"} <= series, series
    flow_names = {f["name"] for f in quickstart_result.summary["flows"]}
    assert set(df.loc[df["series"] == "goodput_mbps", "entity"]) <= flow_names
    assert (df["t_s"] >= 0).all()
    wide = quickstart_result.series("goodput_mbps")
    assert set(wide.columns) <= flow_names


def test_run_without_out_writes_nothing(quickstart_result):
    assert quickstart_result.out is None


def test_run_with_out_writes_the_output_folder(tmp_path):
    out = tmp_path / "nested" / "run"
    res = mptlab.run(QUICKSTART, seed=2, out=out)
    assert res.out == out
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    assert res.run_info["seed"] == 2


def test_run_accepts_toml_text_and_overrides(quickstart_result):
    text = QUICKSTART.read_text()
    res = mptlab.run(text, seed=1, overrides={"flows.bulk.cc": "reno"})
    bulk = [f for f in res.summary["flows"] if f["group"] == "bulk"]
    assert bulk and all(f["cc"] == "reno" for f in bulk)


def test_check_returns_the_canonical_scenario():
    canonical = mptlab.check(QUICKSTART)
    assert isinstance(canonical, dict) and canonical


def test_scenario_error_is_a_value_error_naming_the_key():
    assert issubclass(mptlab.ScenarioError, ValueError)
    broken = sorted(BROKEN_DIR.glob("*.toml"))
    assert broken, f"no broken scenarios in {BROKEN_DIR}"
    key = broken[0].read_text().splitlines()[0].split(":", 1)[1].split("|")[0].strip()
    with pytest.raises(mptlab.ScenarioError) as e:
        mptlab.check(broken[0])
    assert key in str(e.value)


def test_unknown_cc_is_rejected_with_the_valid_names():
    with pytest.raises(mptlab.ScenarioError) as e:
        mptlab.check(QUICKSTART, overrides=["flows.bulk.cc=no-such-cc"])
    msg = str(e.value)
    assert "flows.bulk.cc" in msg and "newreno" in msg and "valid" in msg


def test_missing_scenario_file_raises_oserror():
    with pytest.raises(FileNotFoundError):
        mptlab.check("no/such/file.toml")


def test_heavy_modules_are_imported_lazily():
    import subprocess
    import sys

    code = (
        "import sys, mptlab; "
        "heavy = [m for m in ('pyarrow', 'pandas', 'matplotlib', 'typer') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
