"""The `mptlab` command line: run, check, list, bench (here); sweep, query (cli_sweep.py);
plot, report (cli_report.py); reproduce (cli_reproduce.py); learn (cli_learn.py).

Exit codes: 0 success; 1 the run failed after validation (engine error, cannot write output);
2 invalid input (scenario error, unreadable scenario file, malformed --set, unknown workload) —
in that case one line `error: ...` goes to stderr and nothing is written.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Iterator, NoReturn, Optional

import typer
from rich.console import Console
from rich.table import Table

from mptlab import _core
from mptlab.bench import workloads_help

EXIT_FAILED = 1
EXIT_INVALID = 2

app = typer.Typer(
    name="mptlab",
    help=(
        "mptlab — a deterministic packet-level simulator for multipath transport research: "
        "TCP (SACK; Reno, NewReno, CUBIC, BBR v1, BBRv3, Vegas), UDP, MPTCP (coupled controllers "
        "LIA, OLIA, BALIA, wVegas; multipath schedulers) and QUIC and multipath QUIC (RFC "
        "9000/9002, draft-ietf-quic-multipath) over links with drop-tail, CoDel or RED queues, random "
        "or bursty loss and time-varying capacity; sweeps, a results store, reports, "
        "reproductions of published studies and a learned BLP scheduler threshold.\n\n"
        "A run is a pure function of (scenario, seed): the same scenario file and seed always "
        "give a byte-identical summary.json.\n\n"
        "Start here:\n\n"
        "  mptlab run scenarios/quickstart.toml   simulate, summarize, write runs/\n\n"
        "  mptlab check my.toml                   validate without running\n\n"
        "  mptlab list                            algorithms, queues, units, metrics\n\n"
        "  mptlab bench                           measure simulator speed\n\n"
        "  mptlab sweep plan.toml --out sweeps/x  run a sweep (axes x seeds), resumable\n\n"
        "  mptlab query sweeps/x \"SELECT ...\"     SQL over the results\n\n"
        "  mptlab plot / mptlab report sweeps/x   figures, HTML report\n\n"
        "  mptlab reproduce seed001               a published study next to its numbers\n\n"
        "  mptlab learn blp-threshold             train BLP's learned blocking threshold\n\n"
        "  mptlab model bianchi --n 5             analytic models (Bianchi, seed 004)\n\n"
        "  mptlab emulate my.toml                 the same scenario on real Linux MPTCP (root)\n\n"
        "  mptlab validate scenarios/validate/*   simulator and kernel side by side\n\n"
        "Run 'mptlab COMMAND --help' for the options of each command."
    ),
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

out_console = Console()
err_console = Console(stderr=True)


def out_path(value: str) -> Path:
    """An --out value: refused when empty (`--out ''` once wrote into the current folder)."""
    if not value.strip():
        raise typer.BadParameter("an empty path; give the folder (or file) to write")
    return Path(value)


def fail(message: str, code: int = EXIT_INVALID) -> NoReturn:
    """Print `error: <message>` on stderr (plain text, no markup) and exit."""
    print(f"error: {message}", file=sys.stderr, flush=True)
    raise typer.Exit(code)


@contextmanager
def store_errors(what: str) -> Iterator[None]:
    """Exits for the failures of filling a results store: a store refused (2), an interrupt
    (130: finished runs stay, the same command resumes), a write error (1)."""
    from mptlab.sweeps.store import StoreError

    try:
        yield
    except StoreError as e:
        fail(str(e))
    except KeyboardInterrupt:
        print("interrupted: finished runs are stored; run the same command to resume", file=sys.stderr)
        raise typer.Exit(130) from None
    except OSError as e:
        fail(f"cannot write {what}: {e}", EXIT_FAILED)


def check_dask_address(dask: str | None, workers: int | None = None) -> None:
    """Exit 2 with the reason, before anything is created, when `--dask` is given an address
    that cannot be used (malformed, or a scheduler that does not answer), or together with
    `--workers` (which sizes the local pool only)."""
    if dask is None:
        return
    from mptlab.sweeps.backends import parse_dask_address, reach_scheduler

    try:
        import distributed  # noqa: F401
    except ImportError:
        fail("--dask needs Dask's distributed scheduler, which is not installed: pip install 'mptlab[dask]'")
    if workers is not None:
        fail("--workers sizes the local process pool; with --dask give the workers in the address "
             "(local:N) or start them on the cluster")
    try:
        target, _ = parse_dask_address(dask)
        if target != "local":
            reach_scheduler(target)
    except ValueError as e:
        fail(str(e))


WorkersOption = Annotated[
    Optional[int], typer.Option("--workers", "-j", min=1, help="Local worker processes (default: cores).")
]
DaskOption = Annotated[
    Optional[str],
    typer.Option(
        "--dask",
        metavar="ADDRESS",
        help="Run on Dask: a scheduler address (tcp://host:8786) or local:N for a local "
        "cluster of N worker processes.",
    ),
]

SetOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override one scenario value before validation, by its key path "
        "(repeatable). Example: --set flows.bulk.cc=reno --set run.duration=30s",
    ),
]
ScenarioArg = Annotated[
    str,
    typer.Argument(
        metavar="SCENARIO",
        help="Scenario TOML file (see docs/scenarios.md), or - to read it from stdin.",
        show_default=False,
    ),
]


def _overrides(items: list[str] | None) -> list[tuple[str, str]]:
    from mptlab.source import parse_assignment

    try:
        return [parse_assignment(i) for i in items or []]
    except ValueError as e:
        fail(str(e))


def _load(scenario: str) -> Any:
    from mptlab.source import load

    try:
        return load(Path(scenario) if scenario != "-" else "-")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        fail(f"cannot read scenario {scenario!r}: {reason}")


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab run scenarios/quickstart.toml\n\n"
        "  mptlab run scenarios/quickstart.toml --seed 7 --out runs/qs7\n\n"
        "  mptlab run scenarios/quickstart.toml --set flows.bulk.cc=reno --no-plots\n\n"
        "Output folder: summary.json (metrics; byte-identical for the same scenario and seed), "
        "run.json (provenance), timeseries.parquet, goodput.png, queue_delay.png. "
        "Each file appears atomically. See docs/cli.md and docs/metrics.md."
    )
)
def run(
    scenario: ScenarioArg,
    seed: Annotated[
        Optional[int],
        typer.Option("--seed", min=0, max=2**64 - 1, help="Run seed (default: the scenario's seed, else the engine default)."),
    ] = None,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            parser=out_path,
            metavar="DIR",
            help="Output folder (default: runs/<scenario name>-seed<seed>). "
            "Created only once the scenario is valid; existing files in it are replaced.",
        ),
    ] = None,
    set_: SetOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing on success (no summary table, no progress bar).")
    ] = False,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Do not draw goodput.png and queue_delay.png.")] = False,
) -> None:
    """Validate a scenario, simulate it and write the results.

    Prints a one-screen summary (flows, links, groups) and the output folder.
    Shows progress on stderr when a run takes over a second (terminals only).
    """
    from mptlab import simulate

    overrides = _overrides(set_)
    src = _load(scenario)
    try:
        prep = simulate.prepare(src, seed, overrides)
    except _core.ScenarioError as e:
        fail(str(e))
    prep.extra_provenance["argv"] = ["mptlab", *sys.argv[1:]]
    out_dir = out if out is not None else Path("runs") / f"{src.name}-seed{prep.seed}"
    try:
        res = simulate.execute(prep, out=out_dir, progress=False if quiet else None, plots=not no_plots)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    except OSError as e:
        fail(f"cannot write results to {str(out_dir)!r}: {e}", EXIT_FAILED)
    if not quiet:
        from mptlab.table import render

        out_console.print(render(res.summary))
        info = res.run_info
        out_console.print(
            f"seed {res.seed}: {info['sim_s']:g} simulated s in {info['wall_s']:.2f} wall s "
            f"({info['events']:,} events) + {info['results_s']:.2f} s collecting results; "
            f"results in {out_dir}/",
            highlight=False,
            soft_wrap=True,
        )


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab check scenarios/quickstart.toml\n\n"
        "  mptlab check my.toml --set links.bottleneck.rate=50Mbps\n\n"
        "  mptlab check my.toml --json > canonical.json\n\n"
        "Validation is the same as mptlab run's. See docs/cli.md and docs/scenarios.md."
    )
)
def check(
    scenario: ScenarioArg,
    set_: SetOption = None,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=2**64 - 1, help="Seed to validate with.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the canonical scenario (all defaults filled in) as JSON.")
    ] = False,
) -> None:
    """Validate a scenario without running it.

    Prints 'ok: <n> nodes, <n> links, <n> flows'; on a problem, prints
    'error: <key path>: <reason> (valid: ...)' on stderr and exits with code 2.
    """
    overrides = _overrides(set_)
    src = _load(scenario)
    try:
        text = _core.check(src.text, overrides, seed)
    except _core.ScenarioError as e:
        fail(str(e))
    canonical = json.loads(text)
    if as_json:
        print(json.dumps(canonical, indent=2, sort_keys=True))
        return
    size = json.loads(_core.describe(src.text, overrides, seed))
    print(f"ok: {size['nodes']} nodes, {size['links']} links, {size['flows']} flows")


@app.command(
    "list",
    epilog=(
        "Examples:\n\n"
        "  mptlab list\n\n"
        "  mptlab list --json | jq '.congestion_controllers[].name'\n\n"
        "See docs/congestion-control.md, docs/schedulers.md and docs/metrics.md."
    ),
)
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Print the registry as JSON.")] = False,
) -> None:
    """List algorithms, queues, loss and capacity models, apps, units and metrics.

    Everything a scenario file can name (names are case-insensitive), the
    source of each congestion controller and multipath scheduler, and the
    exact definition of every reported metric.
    """
    reg = json.loads(_core.registry())
    if as_json:
        print(json.dumps(reg, indent=2))
        return
    c = out_console
    c.print(_algorithms("congestion controllers (flows.<name>.cc)", reg.get("congestion_controllers", [])))
    c.print(_algorithms("multipath schedulers (scheduler = ...; see docs/schedulers.md)", reg.get("schedulers", [])))
    catalogue = dict(reg.get("scenario") or {})
    catalogue.pop("congestion_controllers", None)  # shown above
    order = ["sections", "queues", "loss_models", "apps", "protocols", "units"]
    for key in sorted(catalogue, key=lambda k: (order.index(k) if k in order else len(order), k)):
        c.print(_catalogue(SCENARIO_TITLES.get(key, key), catalogue[key]))
    metrics = Table(title="metrics (summary.json; see docs/metrics.md)", title_justify="left", header_style="bold")
    metrics.add_column("name", no_wrap=True)
    metrics.add_column("definition", overflow="fold")
    for m in reg.get("metrics", []):
        metrics.add_row(m.get("name", ""), m.get("definition", ""))
    c.print(metrics)


def _algorithms(title: str, entries: list[dict[str, Any]]) -> Table:
    """One registry of algorithms: name, aliases, one-line summary, source."""
    t = Table(title=title, title_justify="left", header_style="bold")
    for col in ("name", "aliases", "summary", "source"):
        t.add_column(col, overflow="fold")
    for a in entries:
        t.add_row(a.get("name", ""), ", ".join(a.get("aliases") or []), a.get("summary", ""), a.get("source", ""))
    return t


SCENARIO_TITLES = {
    "sections": "scenario file sections, keys and defaults (docs/scenarios.md)",
    "queues": "queues (links.<name>.queue)",
    "loss_models": "loss models (links.<name>.loss)",
    "apps": "applications (flows.<name>.app)",
    "protocols": "protocols (flows.<name>.protocol)",
    "units": "units (multipliers to B, bit/s or ns)",
}


def _catalogue(title: str, value: Any) -> Any:
    """Render one entry of the registry's scenario catalogue, whatever its shape: a list of
    records as a table, nested tables as a tree."""
    from rich.tree import Tree

    title = title.replace("_", " ")
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        cols: list[str] = []
        for v in value:
            cols += [k for k in v if k not in cols]
        t = Table(title=title, title_justify="left", header_style="bold")
        for col in cols:
            t.add_column(col, overflow="fold")
        for v in value:
            t.add_row(*(_cell(v.get(col)) for col in cols))
        return t
    tree = Tree(f"[bold]{title}[/bold]", guide_style="dim")
    _branch(tree, value)
    return tree


def _branch(node: Any, value: Any) -> None:
    from rich.markup import escape

    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict) and v:
                _branch(node.add(f"[cyan]{escape(str(k))}[/cyan]"), v)
            else:
                node.add(f"[cyan]{escape(str(k))}[/cyan]: {escape(_cell(v))}")
    else:
        node.add(escape(_cell(value)))


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"  # TOML spelling
    if isinstance(v, list) and not v:
        return "–"
    if isinstance(v, list):
        return ", ".join(_cell(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    return str(v)


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab bench                                 all workloads\n\n"
        "  mptlab bench W1 --json                       one workload, machine-readable\n\n"
        "  mptlab bench --set run.duration=5s           every workload, 5 simulated seconds\n\n"
        "  mptlab bench --compare main --rounds 4 W1 W3 this build against main, interleaved\n\n"
        "Workloads:\n\n" + workloads_help() + "\n\n"
        "The workload scenarios (scenarios/bench/) ship with mptlab; a checkout in the current "
        "folder or $MPTLAB_ROOT is used first. --compare builds REV once into .bench/<sha>/ "
        "(or $MPTLAB_BENCH_CACHE) and reuses it; each side is built by its own recipe (profile-guided "
        "when it has tools/pgo-profile.sh, as make setup does), and MPTLAB_PGO=0 builds both plainly "
        "to compare the code alone. See docs/cli.md."
    )
)
def bench(
    workloads: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="[WORKLOAD]...", help="Workloads to run (default: all).", show_default=False),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print a JSON list of {workload, sim_s, wall_s, delivered_pkts_per_s, events_per_s, peak_rss_mb} "
            "(with --compare: the comparison rows).",
        ),
    ] = False,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=2**64 - 1, help="Seed for every workload.")] = None,
    sets: Annotated[
        Optional[list[str]],
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            help="Scenario override applied to every workload after its own (repeatable), "
            "e.g. run.duration=5s; sim_s shows the result.",
            show_default=False,
        ),
    ] = None,
    compare_rev: Annotated[
        Optional[str],
        typer.Option(
            "--compare",
            metavar="REV",
            help="Measure this build against git revision REV of the checkout mptlab runs from, "
            "interleaved; print per-workload medians and new/old delivered-packets-per-second ratios.",
            show_default=False,
        ),
    ] = None,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="With --compare: runs of each workload on each build.")
    ] = 4,
) -> None:
    """Measure simulator speed on fixed workloads.

    Each workload runs in a fresh Python process that imports only the
    simulator. Reported: simulated seconds, wall seconds, delivered data
    packets and engine events per wall second, peak resident memory of that
    process (MiB). With --compare REV, the same for two builds, interleaved.
    """
    from mptlab import bench as b

    try:
        chosen = [b.resolve(w) for w in workloads] if workloads else list(b.WORKLOADS.values())
        for w in chosen:
            b.repo_file(w.scenario)  # fail before measuring anything
        overrides = b.parse_sets(sets or [])
    except b.BenchError as e:
        fail(str(e), e.exit_code)
    if compare_rev is not None:
        _bench_compare(compare_rev, chosen, rounds, seed, overrides, as_json)
        return
    rows = []
    for w in chosen:
        try:
            with err_console.status(f"running {w.name} ({w.scenario})", spinner="dots"):
                rows.append(b.row(b.run_workload(w, seed, overrides)))
        except b.BenchError as e:
            fail(str(e), e.exit_code)
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    t = Table(title="mptlab bench", title_justify="left", header_style="bold")
    headers = ("workload", "sim s", "wall s", "delivered pkts/s", "events/s", "peak RSS MiB")
    for col in headers:
        t.add_column(col, justify="left" if col == "workload" else "right")
    for r in rows:
        t.add_row(
            r["workload"],
            _fmt(r["sim_s"], "{:g}"),
            _fmt(r["wall_s"], "{:.2f}"),
            _fmt(r["delivered_pkts_per_s"], "{:,.0f}"),
            _fmt(r["events_per_s"], "{:,.0f}"),
            _fmt(r["peak_rss_mb"], "{:.1f}"),
        )
    out_console.print(t)


def _bench_compare(rev: str, chosen: list[Any], rounds: int, seed: Optional[int], overrides: Any, as_json: bool) -> None:
    """`mptlab bench --compare REV`: build REV (or reuse its cached build), then run the
    workloads of both builds interleaved (mptlab.bench_compare)."""
    import time

    from rich.markup import escape

    from mptlab import bench_compare as c
    from mptlab.bench import BenchError

    try:
        root = c.checkout_root()
        sha = c.resolve_rev(root, rev)
        cache = c.cache_dir(root)
        with err_console.status(f"preparing {rev} ({sha[:10]})", spinner="dots") as st:
            started = time.monotonic()
            old, built = c.build_rev(root, sha, cache, st.update)
        if built:
            err_console.print(f"built {rev} ({sha[:10]}) into {old.tree} in {time.monotonic() - started:.0f} s")
        else:
            err_console.print(f"using the cached build of {rev} ({sha[:10]}) in {old.tree}")
        with err_console.status("preparing the new build", spinner="dots") as st:
            new, head = c.new_build(root, cache, st.update)
        if head is None:
            err_console.print(
                "new = this checkout's installed build (uncommitted changes): two builds from different folders "
                "lay code out differently, which alone has moved single-workload ratios by up to 7 %; commit to "
                "compare two exports built alike"
            )
        else:
            err_console.print(
                f"new = HEAD ({head[:10]}) exported and built like {rev}, each by its own recipe: "
                f"new {c.recipe(new)}, {rev} {c.recipe(old)}"
            )
        with err_console.status("measuring", spinner="dots") as st:
            rows = c.compare(new, old, chosen, rounds, seed, overrides, st.update)
    except BenchError as e:
        fail(str(e), e.exit_code)
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        t = Table(
            title=f"mptlab bench --compare {rev}: new = {'HEAD ' + head[:10] if head else 'this build'}, old = {sha[:10]}, "
                  f"{rounds} interleaved rounds",
            title_justify="left", header_style="bold",
        )
        headers = ("workload", "sim s", "wall s new", "wall s old", "speedup new/old",
                   "range", "peak RSS MiB new", "peak RSS MiB old")
        for col in headers:
            t.add_column(col, justify="left" if col == "workload" else "right")
        for r in rows:
            if not r["comparable"]:
                t.add_row(r["workload"], "not comparable: " + escape(r["reason"]), *[""] * (len(headers) - 2))
                continue
            t.add_row(
                r["workload"],
                _fmt(r["sim_s"], "{:g}"),
                _fmt(r["new_wall_s"], "{:.2f}"),
                _fmt(r["old_wall_s"], "{:.2f}"),
                _fmt(r["speedup"], "{:.3f}"),
                f"{r['speedup_min']:.3f}–{r['speedup_max']:.3f}",
                _fmt(r["new_peak_rss_mb"], "{:.1f}"),
                _fmt(r["old_peak_rss_mb"], "{:.1f}"),
            )
        out_console.print(t)
        err_console.print("speedup: median delivered packets per wall second, new over old (> 1: new is faster)")
    if any(r.get("failed_side") == "new" for r in rows):
        raise typer.Exit(1)


def _fmt(v: Any, spec: str) -> str:
    return "–" if v is None else spec.format(v)


def version_callback(value: bool) -> None:
    if value:
        print(f"mptlab {_core.version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=version_callback, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    pass


def main() -> None:
    """The `mptlab` command. Usage errors (unknown option, missing or malformed argument) are
    one line `error: <message>` and exit 2, like every other refusal (docs/cli.md), instead of
    the multi-line box typer draws."""
    # typer (0.29) carries its own copy of click; its exceptions are the ones raised here.
    try:
        from typer._click import exceptions as cx
    except ImportError:  # an older typer on plain click
        from click import exceptions as cx  # type: ignore[no-redef]

    try:
        code = app(prog_name="mptlab", standalone_mode=False)
    except cx.NoArgsIsHelpError as e:
        # `mptlab` or `mptlab sweep` alone: the help, as before.
        print(e.ctx.get_help() if e.ctx else e.format_message())
        code = 0
    except cx.UsageError as e:
        hint = f" (see '{e.ctx.command_path} -h')" if e.ctx else ""
        message = " ".join(e.format_message().split())
        print(f"error: {message}{hint}", file=sys.stderr, flush=True)
        code = EXIT_INVALID
    except cx.ClickException as e:
        print(f"error: {' '.join(e.format_message().split())}", file=sys.stderr, flush=True)
        code = e.exit_code
    except typer.Abort:
        print("interrupted", file=sys.stderr)
        code = 130
    sys.exit(code if isinstance(code, int) else 0)


# Commands defined in their own modules register themselves on `app`.
from mptlab import cli_emulate, cli_learn, cli_model, cli_report, cli_reproduce, cli_sweep  # noqa: E402,F401

