"""`mptlab report` and `mptlab plot` on a real small sweep; the report rendered in headless
Chromium (Debian's chromium + chromium-driver, installed by `make setup`)."""

from __future__ import annotations

import html as html_lib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mptlab.sweeps.plan import load_plan
from mptlab.sweeps.runner import run_sweep

ROOT = Path(__file__).resolve().parents[2]
PLANS = ROOT / "tests" / "plans"
ARTEFACTS = ROOT / "target" / "test-artefacts"
STANDARD = ["goodput_bar", "goodput_distribution", "goodput_timeseries", "owd_cdf", "goodput_heatmap", "jain_bar"]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "one-invalid"
    # four runs, one of them an invalid combination: the report must show the failure too
    run_sweep(load_plan(PLANS / "one-invalid-combination.toml"), out, workers=2)
    return out


def _mptlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mptlab", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_report_is_one_self_contained_file_with_plan_tables_and_figures(sweep_dir: Path) -> None:
    res = _mptlab("report", str(sweep_dir))
    assert res.returncode == 0, res.stderr
    html = (sweep_dir / "report.html").read_text(encoding="utf-8")
    # self-contained: nothing fetched from anywhere
    assert not re.search(r"""(src|href)=["'](https?:|//)""", html)
    assert "<script" not in html
    for stem in STANDARD:
        assert f'id="fig-{stem}"' in html, stem
    assert html.count('src="data:image/svg+xml;base64,') == len(STANDARD)
    # plan, parameters, summary grouped by the axes, the failed run and its message
    assert html_lib.unescape('&#34;flows.bulk.start&#34; = [&#34;0s&#34;, &#34;20s&#34;]') in html_lib.unescape(html)
    assert "before the end of the run" in html
    assert "3 ok" in html and "1 failed" in html
    assert "by duration" in html and "by start" in html


def test_report_renders_in_headless_chromium_without_console_errors(sweep_dir: Path) -> None:
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        if os.environ.get("CI"):
            pytest.fail("chromium and chromedriver must be installed (make setup installs them)")
        pytest.skip("chromium/chromedriver not installed; run `make setup` as root")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    report = sweep_dir / "report.html"
    if not report.exists():
        assert _mptlab("report", str(sweep_dir)).returncode == 0
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,4000",
                "--disable-dev-shm-usage", "--no-first-run"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        browser.get(report.as_uri())
        assert browser.title.startswith("one-invalid-combination")
        images = browser.find_elements(By.CSS_SELECTOR, "figure img")
        assert len(images) == len(STANDARD)
        # every figure decoded and laid out at a real size
        sizes = browser.execute_script(
            "return Array.from(document.querySelectorAll('figure img'))"
            ".map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width]);"
        )
        assert all(done and nat > 100 and shown > 100 for done, nat, shown in sizes), sizes
        assert len(browser.find_elements(By.CSS_SELECTOR, "table.data")) >= 3
        assert "before the end of the run" in browser.find_element(By.ID, "failures").text
        errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
        assert errors == [], errors
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTEFACTS / "report.png"))
    finally:
        browser.quit()


def test_plot_command_draws_any_kind_from_a_sweep(sweep_dir: Path, tmp_path: Path) -> None:
    res = _mptlab("plot", str(sweep_dir), "--kind", "bar", "--x", "duration", "--y", "goodput_mbps",
                  "--hue", "start", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "bar-goodput_mbps-by-duration.png").stat().st_size > 1000
    assert (tmp_path / "bar-goodput_mbps-by-duration.svg").stat().st_size > 1000
    # interval samples from the time series, as in seed 000's distributions
    res = _mptlab("plot", str(sweep_dir), "--kind", "distribution", "--table", "timeseries",
                  "--y", "goodput_mbps", "--x", "duration", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "distribution-goodput_mbps-by-duration.svg").exists()
    res = _mptlab("plot", str(sweep_dir), "--kind", "bar", "--x", "start", "--y", "jain",
                  "--opt", "error=std", "--opt", "width=double", "--name", "jain", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "jain.png").exists()
    bad = _mptlab("plot", str(sweep_dir), "--kind", "bar", "--x", "start", "--y", "jain",
                  "--opt", "error=sem", "--out", str(tmp_path))
    assert bad.returncode == 2 and "error" in bad.stderr and "ci95" in bad.stderr
    bad = _mptlab("plot", str(sweep_dir), "--kind", "bar", "--x", "nope", "--y", "goodput_mbps", "--out", str(tmp_path))
    assert bad.returncode == 2 and "nope" in bad.stderr and "valid" in bad.stderr
    bad = _mptlab("plot", str(sweep_dir), "--kind", "pie", "--y", "goodput_mbps", "--out", str(tmp_path))
    assert bad.returncode == 2 and "heatmap" in bad.stderr
