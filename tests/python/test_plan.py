"""Sweep plan files (mptlab.sweeps.plan): parsing, validation before anything runs, expansion.

Valid example plans live in tests/plans/ and plans/; every file in tests/plans/broken/ begins
with `# expect: <key path> | <words in the message>`.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import tomllib
from pathlib import Path

import pytest

from conftest import REPO

from mptlab import _core
from mptlab._core import ScenarioError
from mptlab.sweeps.plan import RESERVED_COLUMNS, Plan, PlanError, Point, load_plan
from mptlab.sweeps.plan_random import RandomKey, sample
from mptlab.sweeps.plan_render import plain_number, toml_string, toml_value

PLANS_DIR = REPO / "tests" / "plans"
BROKEN = sorted((PLANS_DIR / "broken").glob("*.toml"))
VALID = sorted(PLANS_DIR.glob("*.toml")) + sorted((REPO / "plans").glob("*.toml"))
DUMBBELL = REPO / "scenarios" / "dumbbell.toml"
#: Plans whose points all run (every other valid plan has points that fail on purpose).
FAILING_ON_PURPOSE = {"one-invalid-combination.toml": 1, "rescued-pair.toml": 1}


def plan_text(body: str, base: Path = DUMBBELL) -> str:
    """A plan as TOML text on the dumbbell (base given as an absolute path)."""
    return f'base = "{base.as_posix()}"\n{body}'


def failures(plan: Plan) -> list[tuple[Point, str]]:
    out = []
    for p in plan.points():
        try:
            _core.check(plan.base_text, list(p.overrides), p.seed)
        except ScenarioError as e:
            out.append((p, str(e)))
    return out


# --- the example plans ------------------------------------------------------------------------


def test_there_are_plans():
    assert len(VALID) >= 6 and len(BROKEN) >= 20


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_plan_loads_and_its_points_validate(path):
    plan = load_plan(path)
    points = plan.points()
    assert len(points) == plan.n_runs == plan.describe()["runs"]
    assert [p.index for p in points] == list(range(len(points)))
    assert all(list(p.params) == list(plan.columns) for p in points)
    assert len(failures(plan)) == FAILING_ON_PURPOSE.get(path.name, 0)
    json.dumps(plan.describe())  # JSON-able


def test_buffer_vs_cc_example():
    plan = load_plan(REPO / "plans" / "buffer-vs-cc.toml")
    assert plan.name == "buffer-vs-cc"
    assert plan.columns == {"cc": "flows.bulk.cc", "buffer": "links.bottleneck.queue.limit"}
    assert plan.seeds == (1, 2, 3)
    assert plan.n_runs == 27
    assert ("run.duration", '"10s"') in plan.fixed
    canon = json.loads(_core.check(plan.base_text, list(plan.points()[0].overrides), 1))
    assert canon["run"]["duration"] == "10s"
    assert canon["flows"]["bulk"]["cc"] == "reno"


def test_contour_demo_example():
    plan = load_plan(REPO / "plans" / "contour-demo.toml")
    assert [a.kind for a in plan.axes] == ["list", "random"]
    assert plan.n_runs == 80 and plan.seeds == (None,)
    d = plan.describe()
    assert d["axes"][1]["count"] == 40 and d["axes"][1]["min_distance"] == 0.08


# --- expansion ----------------------------------------------------------------------------------


def test_expansion_order_first_axis_slowest_seeds_innermost():
    plan = load_plan(PLANS_DIR / "grid.toml")
    points = plan.points()
    assert len(points) == 2 * 3 * 3
    got = [(p.params["cc"], p.params["buffer"], p.seed) for p in points]
    want = list(
        itertools.product(["reno", "cubic"], ["0.5bdp", "1bdp", "4bdp"], [1, 2, 3])
    )
    assert got == want
    p = points[4]  # reno, 1bdp, seed 2
    assert p.overrides == (
        ("run.duration", '"2s"'),
        ("flows.bulk.cc", '"reno"'),
        ("links.bottleneck.queue.limit", '"1bdp"'),
    )
    assert p.seed == 2


def test_points_are_deterministic():
    a = load_plan(PLANS_DIR / "random-mixed.toml").points()
    b = load_plan(PLANS_DIR / "random-mixed.toml").points()
    assert a == b


def test_seeds_forms():
    assert load_plan(plan_text("seeds = 4\n")).seeds == (1, 2, 3, 4)
    assert load_plan(plan_text("seeds = [7, 0, 3]\n")).seeds == (7, 0, 3)
    plan = load_plan(plan_text(""))
    assert plan.seeds == (None,)
    assert [p.seed for p in plan.points()] == [None]
    assert plan.points()[0].params == {} and plan.points()[0].overrides == ()


def test_axes_then_zip_then_random_regardless_of_file_order():
    plan = load_plan(
        plan_text(
            """
[[random]]
count = 2
[random.keys]
"links.bottleneck.delay" = { min = 5, max = 50, unit = "ms" }

[[zip]]
"links.access_s1.delay" = ["1ms", "2ms"]
"links.access_d1.delay" = ["3ms", "4ms"]

[axes]
"flows.bulk.cc" = ["reno", "cubic", "bbr"]
"""
        )
    )
    assert [a.kind for a in plan.axes] == ["list", "zip", "random"]
    assert list(plan.columns) == [
        "cc", "links_access_s1_delay", "links_access_d1_delay", "links_bottleneck_delay"
    ]
    assert plan.n_runs == 3 * 2 * 2
    first = plan.points()[:4]
    assert [p.params["cc"] for p in first] == ["reno"] * 4


def test_zip_values_advance_together():
    plan = load_plan(PLANS_DIR / "zip-access.toml")
    points = plan.points()
    assert len(points) == 2 * 3 * 2
    for p in points:
        assert p.params["links_access_s1_delay"] == p.params["links_access_d1_delay"]
    assert [p.params["links_access_s1_delay"] for p in points[:6]] == [
        "1ms", "1ms", "5ms", "5ms", "10ms", "10ms"
    ]
    assert plan.columns["cc"] == "flows.bulk.cc"  # from an unquoted dotted key


def test_zip_group_is_one_axis():
    plan = load_plan(
        plan_text(
            """
[[zip]]
"flows.bulk.cc" = ["reno", "cubic", "bbr"]
"flows.bulk.count" = [1, 2, 3]
"""
        )
    )
    assert plan.n_runs == 3
    assert [(p.params["cc"], p.params["count"]) for p in plan.points()] == [
        ("reno", 1), ("cubic", 2), ("bbr", 3)
    ]


def test_dotted_and_quoted_keys_are_the_same():
    a = load_plan(plan_text('[axes]\n"flows.bulk.cc" = ["reno", "bbr"]\n'))
    b = load_plan(plan_text("[axes]\nflows.bulk.cc = [\"reno\", \"bbr\"]\n"))
    c = load_plan(plan_text("[axes.flows.bulk]\ncc = [\"reno\", \"bbr\"]\n"))
    assert a.points() == b.points() == c.points()


# --- random point sets --------------------------------------------------------------------------


RANDOM_BODY = """
[[random]]
count = {count}
seed = {seed}
{extra}
[random.keys]
"links.bottleneck.delay" = {{ min = 5, max = 100, unit = "ms" }}
"flows.bulk.count" = {{ min = 1, max = 8, integer = true }}
"""


def random_plan(count=30, seed=7, extra=""):
    return load_plan(plan_text(RANDOM_BODY.format(count=count, seed=seed, extra=extra)))


def test_random_same_seed_same_points_other_seed_other_points():
    a, b, c = random_plan(seed=7), random_plan(seed=7), random_plan(seed=8)
    assert a.points() == b.points()
    assert [p.params for p in a.points()] != [p.params for p in c.points()]


def test_random_values_in_range_typed_and_rendered():
    plan = random_plan(count=50)
    for p in plan.points():
        delay, count = p.params["delay"], p.params["count"]
        assert isinstance(delay, float) and 5 <= delay <= 100
        assert float(f"{delay:.6g}") == delay  # 6 significant digits
        assert isinstance(count, int) and 1 <= count <= 8
        ov = dict(p.overrides)
        assert ov["links.bottleneck.delay"] == f'"{plain_number(delay)}ms"'
        assert ov["flows.bulk.count"] == str(count)
        assert "e" not in ov["links.bottleneck.delay"]
    counts = {p.params["count"] for p in plan.points()}
    assert {1, 8} <= counts  # the ends are drawn too


def test_random_log_uniform():
    keys = [RandomKey("x", 1.0, 10_000.0, log=True)]
    values = [v[0] for v in sample(keys, 2000, 3)]
    assert all(1 <= v <= 10_000 for v in values)
    below_100 = sum(v < 100 for v in values) / len(values)
    assert 0.42 < below_100 < 0.58  # half the log range, not 1% of the range


def test_random_integer_ends_equally_likely():
    keys = [RandomKey("n", 1, 4, integer=True)]
    values = [v[0] for v in sample(keys, 4000, 5)]
    shares = [values.count(i) / len(values) for i in (1, 2, 3, 4)]
    assert all(0.2 < s < 0.3 for s in shares), shares


@pytest.mark.parametrize("min_distance", [0.05, 0.15])
def test_random_min_distance_is_honoured(min_distance):
    plan = random_plan(count=25, extra=f"min_distance = {min_distance}")
    coords = [
        ((p.params["delay"] - 5) / 95, (p.params["count"] - 1) / 7)
        for p in plan.points()
    ]
    assert len(coords) == 25
    for a, b in itertools.combinations(coords, 2):
        assert math.dist(a, b) >= min_distance


def test_random_min_distance_grid_matches_brute_force():
    # Four keys use the neighbour grid, seven keys (3**7 > 729 cells) compare with every point;
    # both keep every pair apart.
    for dims in (4, 7):
        keys = [RandomKey(f"k{i}", 0.0, 1.0) for i in range(dims)]
        pts = sample(keys, 60, 1, min_distance=0.3)
        for a, b in itertools.combinations(pts, 2):
            assert math.dist(a, b) >= 0.3


def test_random_min_distance_gives_up_with_a_count():
    with pytest.raises(PlanError) as e:
        random_plan(count=200, extra="min_distance = 0.3")
    assert e.value.key == "random[0].min_distance"
    assert "could only place" in str(e.value) and "of 200 points" in str(e.value)


# --- column names ---------------------------------------------------------------------------


def test_column_names_last_segment_by_default():
    plan = load_plan(plan_text('[axes]\n"flows.bulk.cc" = ["reno"]\n"links.bottleneck.queue.limit" = ["1bdp"]\n'))
    assert plan.columns == {"cc": "flows.bulk.cc", "limit": "links.bottleneck.queue.limit"}


def test_column_names_collisions_use_the_whole_key():
    plan = load_plan(
        plan_text(
            '[axes]\n"links.bottleneck.delay" = ["10ms"]\n"links.access_s1.delay" = ["1ms"]\n'
            '"flows.bulk.cc" = ["reno"]\n'
        )
    )
    assert list(plan.columns) == ["links_bottleneck_delay", "links_access_s1_delay", "cc"]


def test_column_names_from_names_table_and_collision_with_auto_name():
    plan = load_plan(
        plan_text(
            '[axes]\n"flows.bulk.cc" = ["reno"]\n"links.bottleneck.delay" = ["10ms"]\n'
            '[names]\n"flows.bulk.cc" = "delay"\n'
        )
    )
    assert plan.columns == {"delay": "flows.bulk.cc", "links_bottleneck_delay": "links.bottleneck.delay"}


def test_auto_column_name_never_reserved():
    plan = load_plan(plan_text('[axes]\n"run.seed" = [1, 2]\n'))
    assert plan.columns == {"run_seed": "run.seed"}
    assert not set(plan.columns) & set(RESERVED_COLUMNS)


@pytest.mark.parametrize("reserved", RESERVED_COLUMNS)
def test_names_cannot_pick_a_reserved_column(reserved):
    with pytest.raises(PlanError) as e:
        load_plan(plan_text(f'[axes]\n"flows.bulk.cc" = ["reno"]\n[names]\n"flows.bulk.cc" = "{reserved}"\n'))
    assert e.value.key == "names.flows.bulk.cc" and "reserved" in str(e.value)


# --- TOML values ----------------------------------------------------------------------------


NASTY = ['plain', 'q"uote', "back\\slash", "new\nline", "tab\t", "ctl\x01\x7f", "ünï ☃", "", "'"]


@pytest.mark.parametrize(
    "value",
    [*NASTY, 0, -3, 2**63 - 1, 0.5, 1e-05, 1e300, -0.0, True, False, [1, "a", [2.5]],
     {"kind": "codel", "limit": "100p"}, {"weird key": {"a.b": [True]}}, {}, []],
    ids=repr,
)
def test_toml_value_round_trips_through_tomllib(value):
    assert tomllib.loads(f"v = {toml_value(value)}")["v"] == value


def test_toml_float_specials():
    assert tomllib.loads(f"v = {toml_value(float('inf'))}")["v"] == math.inf
    assert math.isnan(tomllib.loads(f"v = {toml_value(float('nan'))}")["v"])


def test_rendered_values_round_trip_through_the_engine():
    base = DUMBBELL.read_text()
    cases = [
        ("flows.bulk.cc", "cubic", ("flows", "bulk", "cc"), "cubic"),
        ("flows.bulk.count", 3, ("flows", "bulk", "count"), 3),
        ("links.bottleneck.delay", "12.5ms", ("links", "bottleneck", "delay"), "12500us"),
        ("links.bottleneck.queue", {"kind": "codel", "target": "3ms"},
         ("links", "bottleneck", "queue", "target"), "3ms"),
        ("links.bottleneck.loss", {"model": "bernoulli", "p": 1e-05},
         ("links", "bottleneck", "loss", "p"), 1e-05),
        ("metrics.jain_groups", {"both": ["bulk", "cbr"]}, ("metrics", "jain_groups", "both"),
         ["bulk", "cbr"]),
        ("flows.bulk.tcp.sack", False, ("flows", "bulk", "tcp", "sack"), False),
    ]
    for key, value, path, want in cases:
        canon = json.loads(_core.check(base, [(key, toml_value(value))], None))
        for part in path:
            canon = canon[part]
        assert canon == want, (key, value)


def test_a_string_is_always_quoted_so_it_stays_a_string():
    # "true" as a plain override would be read as a boolean; quoted it is the string.
    assert toml_value("true") == '"true"' and toml_string("5") == '"5"'


def test_plain_number():
    assert [plain_number(x) for x in (12.3456, 1e-05, 100.0, 3, 2.5e16)] == [
        "12.3456", "0.00001", "100", "3", "25000000000000000"
    ]


def test_inline_scenario_is_rendered_with_tomli_w():
    plan = load_plan(PLANS_DIR / "inline-scenario.toml")
    assert plan.base_path is None and plan.name == "inline"
    assert tomllib.loads(plan.base_text)["links"]["l"]["rate"] == "20Mbps"
    assert plan.describe()["base"] == "[scenario]"
    assert not failures(plan)


# --- [set] and overrides ------------------------------------------------------------------------


def test_set_table_merges_where_the_base_has_a_table_and_replaces_values():
    plan = load_plan(
        plan_text(
            '[set]\nrun = { duration = "5s" }\n"flows.bulk.app" = { kind = "cbr", rate = "5Mbps" }\n'
        )
    )
    assert plan.fixed == (
        ("run.duration", '"5s"'),
        ("flows.bulk.app", '{ kind = "cbr", rate = "5Mbps" }'),
    )
    canon = json.loads(_core.check(plan.base_text, list(plan.points()[0].overrides), None))
    assert canon["run"] == {"duration": "5s", "seed": 1}
    assert canon["flows"]["bulk"]["app"]["kind"] == "cbr"


def test_set_key_that_is_swept_only_completes_the_base():
    plan = load_plan(
        plan_text('[set]\n"flows.bulk.cc" = "cubic"\n[axes]\n"flows.bulk.cc" = ["reno", "bbr"]\n')
    )
    assert [p.overrides for p in plan.points()] == [
        (("flows.bulk.cc", '"reno"'),),
        (("flows.bulk.cc", '"bbr"'),),
    ]


def test_load_plan_overrides_are_fixed_and_replace_set():
    plan = load_plan(PLANS_DIR / "grid.toml", ["run.duration=3s", "flows.bulk.count=1"])
    assert plan.fixed == (("run.duration", "3s"), ("flows.bulk.count", "1"))
    assert plan.points()[0].overrides[:2] == plan.fixed
    plan = load_plan(PLANS_DIR / "grid.toml", {"run.duration": "1s"})
    assert plan.fixed == (("run.duration", "1s"),)


def test_load_plan_override_of_a_swept_key_is_an_error():
    with pytest.raises(PlanError) as e:
        load_plan(PLANS_DIR / "grid.toml", ["flows.bulk.cc=reno"])
    assert e.value.key == "--set flows.bulk.cc" and "swept" in str(e.value)


def test_load_plan_invalid_override():
    with pytest.raises(PlanError) as e:
        load_plan(PLANS_DIR / "grid.toml", ["run.duration=10 parsecs"])
    assert str(e.value).startswith("--set run.duration: unknown time unit")


# --- loading ------------------------------------------------------------------------------------


def test_plan_from_text_path_and_pathlike(monkeypatch):
    path = PLANS_DIR / "grid.toml"
    by_path, by_str = load_plan(path), load_plan(str(path))
    monkeypatch.chdir(PLANS_DIR)
    by_text = load_plan(path.read_text())
    assert by_path.points() == by_str.points() == by_text.points()
    assert by_path.path == path and by_text.path is None
    assert by_text.name == "grid"  # from name =
    assert load_plan(plan_text("")).name == "plan"
    assert load_plan(PLANS_DIR / "zip-access.toml").name == "zip-access"  # the file stem
    assert by_path.text == path.read_text()
    assert by_path.base_text == DUMBBELL.read_text()
    assert by_path.base_path.resolve() == DUMBBELL.resolve()


def test_load_plan_accepts_a_plan():
    plan = load_plan(PLANS_DIR / "grid.toml")
    assert load_plan(plan) is plan


def test_missing_plan_file_is_oserror():
    with pytest.raises(FileNotFoundError):
        load_plan(PLANS_DIR / "no-such-plan.toml")


def test_plan_error_format_and_pickle():
    e = PlanError("axes.flows.bulk.cc", "unknown thing", ["a", "b"])
    assert str(e) == "axes.flows.bulk.cc: unknown thing (valid: a, b)"
    assert isinstance(e, ValueError)
    e2 = pickle.loads(pickle.dumps(e))
    assert str(e2) == str(e) and e2.key == e.key and e2.valid == ("a", "b")


def test_describe():
    d = load_plan(PLANS_DIR / "zip-access.toml").describe()
    assert d["name"] == "zip-access"
    assert d["seeds"] == [1, 2] and d["points"] == 6 and d["runs"] == 12
    assert [(a["kind"], a["size"]) for a in d["axes"]] == [("list", 2), ("zip", 3)]
    assert d["axes"][1]["keys"] == ["links.access_s1.delay", "links.access_d1.delay"]
    assert d["set"] == {"run.duration": '"2s"'}


# --- validation ---------------------------------------------------------------------------------


def test_invalid_combination_is_not_a_plan_error():
    plan = load_plan(PLANS_DIR / "one-invalid-combination.toml")
    [(point, message)] = failures(plan)
    assert point.params == {"duration": "10s", "start": "20s"}
    assert message.startswith("flows.bulk.start: start (20s) must be before the end of the run")


def test_value_invalid_alone_but_valid_with_another_axis_is_not_a_plan_error():
    plan = load_plan(PLANS_DIR / "rescued-pair.toml")
    [(point, message)] = failures(plan)
    assert point.params == {"cc": "newreno", "cc_options": {"hystart": False}}
    assert "has no options" in message


def test_only_single_values_are_checked_not_the_product(monkeypatch):
    calls = []
    real = _core.check

    def counting(text, overrides=(), seed=None):
        calls.append(overrides)
        return real(text, overrides, seed)

    monkeypatch.setattr(_core, "check", counting)
    plan = load_plan(
        plan_text(
            '[axes]\n"flows.bulk.cc" = ["reno", "cubic", "bbr"]\n"flows.bulk.count" = [1, 2, 3, 4]\n'
            '"links.bottleneck.delay" = ["5ms", "10ms", "20ms", "40ms", "80ms"]\n'
        )
    )
    assert plan.n_runs == 60
    assert len(calls) == 1 + 3 + 4 + 5  # the base, then each value once


def expectation(path: Path) -> tuple[str, str]:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect:"), f"{path.name}: first line must be '# expect: <key> | <words>'"
    key, word = (part.strip() for part in first.split(":", 1)[1].split("|", 1))
    return key, word


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_plan_is_rejected_with_one_message(path):
    key, word = expectation(path)
    with pytest.raises(PlanError) as e:
        load_plan(path)
    message = str(e.value)
    assert key in message and word.lower() in message.lower(), message
    assert message.startswith(e.value.key + ": ")
    assert "\n" not in message.strip()


def test_engine_valid_list_is_kept_on_the_plan_error():
    with pytest.raises(PlanError) as e:
        load_plan(PLANS_DIR / "broken" / "unknown_cc.toml")
    assert e.value.key == "axes.flows.bulk.cc[1]"
    assert e.value.reason == "unknown congestion controller `foo`"
    assert "bbr" in e.value.valid and "cubic" in e.value.valid
