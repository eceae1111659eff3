"""The `mptlab` command line: run, check, list, help."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pyarrow.parquet as pq

from conftest import OUTPUT_FILES, QUICKSTART, mptlab, read_summary


def test_run_writes_all_files_and_no_temp_files(tmp_path):
    out = tmp_path / "qs"
    r = mptlab("run", QUICKSTART, "--seed", "1", "--out", out)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    for name in ("goodput.png", "queue_delay.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pq.read_table(out / "timeseries.parquet")
    assert table.column_names == ["series", "entity", "t_s", "value"]
    assert table.num_rows > 0
    # the one-screen table went to stdout
    assert "flows" in r.stdout and "links" in r.stdout


def test_run_json_records_provenance(tmp_path):
    out = tmp_path / "prov"
    r = mptlab("run", QUICKSTART, "--seed", "5", "--out", out, "--quiet", "--set", "flows.bulk.cc=reno")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    info = json.loads((out / "run.json").read_text())
    for key in ("mptlab_version", "wall_s", "results_s", "started_at", "host", "python", "platform",
                "scenario_path", "seed", "overrides"):
        assert key in info, key
    assert info["seed"] == 5
    assert info["overrides"] == [["flows.bulk.cc", "reno"]]
    assert Path(info["scenario_path"]) == QUICKSTART.resolve()


def test_set_override_is_reflected_in_summary(tmp_path):
    out = tmp_path / "reno"
    r = mptlab("run", QUICKSTART, "--seed", "1", "--out", out, "-q", "--no-plots",
               "--set", "flows.bulk.cc=reno")
    assert r.returncode == 0, r.stderr
    bulk = [f for f in read_summary(out)["flows"] if f["group"] == "bulk"]
    assert bulk, "quickstart has a flow entry named bulk"
    assert all(f["cc"] == "reno" for f in bulk)


def test_no_plots_skips_the_pngs(tmp_path):
    out = tmp_path / "np"
    r = mptlab("run", QUICKSTART, "--out", out, "--quiet", "--no-plots")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["run.json", "summary.json", "timeseries.parquet"]


def test_default_output_folder_is_runs_stem_seed(tmp_path):
    r = mptlab("run", QUICKSTART, "--seed", "4", "--quiet", "--no-plots", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "runs" / "quickstart-seed4" / "summary.json").is_file()


def test_check_reports_counts():
    r = mptlab("check", QUICKSTART)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"ok: \d+ nodes, \d+ links, \d+ flows\n", r.stdout), r.stdout


def test_check_counts_expand_groups(tmp_path):
    scenario = tmp_path / "g.toml"
    scenario.write_text(
        '[run]\nduration = "1s"\n[nodes]\nhosts = ["srv"]\nrouters = ["gw"]\n'
        '[groups.ue]\ncount = 5\nlink = { to = "gw", rate = "10Mbps", delay = "1ms" }\n'
        '[links.up]\nbetween = ["gw", "srv"]\nrate = "100Mbps"\ndelay = "5ms"\n'
        '[flows.f]\nfrom = "ue"\nto = "srv"\ncount = 2\n'
    )
    r = mptlab("check", str(scenario))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok: 7 nodes, 6 links, 10 flows\n", r.stdout


def test_check_json_prints_the_canonical_scenario():
    r = mptlab("check", QUICKSTART, "--json")
    assert r.returncode == 0, r.stderr
    assert isinstance(json.loads(r.stdout), dict)


def test_list_names_the_congestion_controllers_and_metrics():
    r = mptlab("list")
    assert r.returncode == 0, r.stderr
    assert "newreno" in r.stdout and "reno" in r.stdout
    assert "RFC 5681" in r.stdout
    assert "goodput" in r.stdout


def test_list_json_is_the_registry():
    r = mptlab("list", "--json")
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    names = {c["name"] for c in reg["congestion_controllers"]}
    assert {"reno", "newreno"} <= names
    assert reg["metrics"] and all("definition" in m for m in reg["metrics"])


def test_help_texts_have_examples():
    r = mptlab("--help")
    assert r.returncode == 0 and "mptlab run" in r.stdout
    for cmd in ("run", "check", "list", "bench"):
        r = mptlab(cmd, "--help")
        assert r.returncode == 0, r.stderr
        assert "Example" in r.stdout, cmd


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "mptlab"
    assert script.is_file(), "make setup installs the mptlab command into the venv"
    import subprocess

    r = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("mptlab ")
