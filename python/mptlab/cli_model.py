"""`mptlab model ...`: the analytic models of mptlab.models (docs/models.md) as rich tables.

Registered on the main `app` by mptlab.cli. Exit codes as everywhere: 0 success, 2 invalid input.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from mptlab.cli import app, fail, out_console

model_app = typer.Typer(
    help="Analytic models: Bianchi's DCF, seed 004's DCF chain, RTT and NewReno (docs/models.md).",
    epilog="Examples:\n\n  mptlab model bianchi --n 5 --phy 80211a\n\n  mptlab model dcf --p 0.2\n\n"
    "  mptlab model rtt --hops 2\n\n  mptlab model newreno5 --l 0.01",
    no_args_is_help=True,
)
app.add_typer(model_app, name="model")


@model_app.command("bianchi", epilog="Examples:\n\n  mptlab model bianchi --n 5 --n 10 --phy fhss --W 32 --m 3 --access rts\n\nSee docs/models.md.")
def bianchi_cmd(
    n: Annotated[Optional[list[int]], typer.Option("--n", min=1, help="Stations (repeat for several; default 2 5 10 20 50).")] = None,
    phy: Annotated[str, typer.Option("--phy", help="PHY set: 80211a (54 Mbit/s, 1000 B) or fhss (Bianchi's Table I).")] = "80211a",
    access: Annotated[str, typer.Option("--access", help="basic or rts.")] = "basic",
    w: Annotated[Optional[int], typer.Option("--W", min=1, help="CWmin + 1 (default: the PHY's).")] = None,
    m: Annotated[Optional[int], typer.Option("--m", min=0, help="Backoff stages (default: the PHY's).")] = None,
) -> None:
    """Bianchi 2000 saturation throughput and collision probability."""
    from mptlab.models import bianchi

    if phy not in bianchi.PHYS:
        fail(f"--phy must be one of {', '.join(bianchi.PHYS)}, not {phy!r}")
    if access not in ("basic", "rts"):
        fail(f"--access must be basic or rts, not {access!r}")
    p = bianchi.PHYS[phy]
    table = Table(title=f"Bianchi saturation, {phy}, {access}, W={w or p.W}, m={p.m if m is None else m}")
    for col in ("n", "tau", "p", "S", "Mbit/s"):
        table.add_column(col, justify="right")
    for k in n or [2, 5, 10, 20, 50]:
        r = bianchi.throughput(k, p, access, w, m)
        table.add_row(str(k), f"{r.tau:.4f}", f"{r.p:.3f}", f"{r.s_norm:.4f}", f"{r.throughput_bps / 1e6:.2f}")
    out_console.print(table)


@model_app.command("dcf", epilog="Examples:\n\n  mptlab model dcf --p 0.05 --p 0.2 --W 16 --m 6 --r 7 --lam 0.3\n\nSee docs/models.md.")
def dcf_cmd(
    p: Annotated[list[float], typer.Option("--p", help="Collision/busy probability in [0, 1) (repeat for several).")],
    w: Annotated[int, typer.Option("--W", min=1, help="W_0 (counter values in stage 0).")] = 16,
    m: Annotated[int, typer.Option("--m", min=0, help="Stages that double the window.")] = 6,
    r: Annotated[int, typer.Option("--r", min=0, help="Retry limit.")] = 7,
    lam: Annotated[Optional[float], typer.Option("--lam", help="Non-saturated: per-step arrival probability in (0, 1].")] = None,
) -> None:
    """Seed 004's DCF chain (Sec. IV): b_{0,0} solved, printed (3)/(4), and eq. (5) N_ts."""
    from mptlab.models import dcf_chain as d

    for x in p:
        if not 0.0 <= x < 1.0:
            fail(f"--p must be in [0, 1), not {x}")
    if lam is not None and not 0.0 < lam <= 1.0:
        fail(f"--lam must be in (0, 1], not {lam}")
    mode = "saturated" if lam is None else f"non-saturated, lam={lam}"
    table = Table(title=f"seed 004 DCF chain, W={w}, m={m}, r={r}, {mode}")
    cols = ["p", "b00 (chain)", "b00 printed (flagged)", "N_ts corrected", "N_ts (W_i-1)/2", "N_ts literal"]
    if lam is not None:
        cols.insert(2, "b(-1,1) (chain)")  # what printed (3) approximates (docs/models.md)
    for col in cols:
        table.add_column(col, justify="right")
    for x in p:
        sol = d.solve_chain(w, m, r, x, lam)
        printed = d.printed_b00_saturated(w, m, r, x) if lam is None else d.printed_b00_nonsaturated(w, m, r, x, lam)
        extra = [] if lam is None else [f"{sol.prob(-1, 1):.4f}"]
        table.add_row(f"{x:g}", f"{sol.b00:.4f}", *extra, f"{printed:.4f}", f"{d.n_ts(w, m, r, x):.2f}",
                      f"{d.n_ts(w, m, r, x, 'corrected-minus'):.2f}", f"{d.n_ts(w, m, r, x, 'literal'):.2f}")
    out_console.print(table)


@model_app.command("rtt", epilog="Examples:\n\n  mptlab model rtt --hops 2 --packets 2 --n-ts 8.5 --t-q-us 100\n\nSee docs/models.md.")
def rtt_cmd(
    hops: Annotated[int, typer.Option("--hops", min=1, help="WiFi hops.")] = 1,
    packets: Annotated[int, typer.Option("--packets", min=1, help="Packets per round (one TCP ACK).")] = 1,
    n_ts: Annotated[Optional[float], typer.Option("--n-ts", min=0.0, help="Backoff slots per hop (eq. (7)); none: eq. (6).")] = None,
    t_q: Annotated[float, typer.Option("--t-q-us", min=0.0, help="Queueing time per hop, us (with --n-ts).")] = 0.0,
    last_5g: Annotated[bool, typer.Option("--last-5g", help="The last hop is a 5G hop (eq. (8)).")] = False,
) -> None:
    """Seed 004's RTT model at 802.11a 54 Mbit/s: Sec. III idle RTT and eqs. (9)/(10), in us."""
    from mptlab.models import rtt

    if t_q and n_ts is None:
        fail("--t-q-us needs --n-ts (eq. (6) has no queueing term)")
    path = [rtt.Hop("wifi", t_q, n_ts, t_q, n_ts) for _ in range(hops)]
    if last_5g:
        path[-1] = rtt.Hop("5g", t_q, None, t_q, None)
    dtt, att = rtt.path_times(path)
    table = Table(title=f"RTT model, {hops} hop(s){' (last 5G)' if last_5g else ''}, 802.11a 54 Mbit/s")
    table.add_column("quantity")
    table.add_column("us", justify="right")
    table.add_row("DTT", f"{dtt:.1f}")
    table.add_row("ATT", f"{att:.1f}")
    table.add_row("RTT eq. (9)", f"{dtt + att:.1f}")
    table.add_row(f"T^{packets} eq. (10)", f"{rtt.txop_batch_time(packets, path):.1f}")
    if n_ts is None and not last_5g:
        table.add_row(f"RTT_{{{packets}-{hops}}} idle (Sec. III)", f"{rtt.rtt_idle(packets, hops):.1f}")
    out_console.print(table)


@model_app.command("newreno5", epilog="Examples:\n\n  mptlab model newreno5 --l 0.01 --l 0.1 --w-min 1 --w-max 20\n\nSee docs/models.md.")
def newreno5_cmd(
    loss: Annotated[list[float], typer.Option("--l", help="Per-packet loss in [0, 1] (repeat for several).")],
    w_min: Annotated[int, typer.Option("--w-min", min=1)] = 1,
    w_max: Annotated[int, typer.Option("--w-max", min=1)] = 20,
    sst_start: Annotated[int, typer.Option("--sst", min=1, help="Initial sst.")] = 16,
    p_over: Annotated[float, typer.Option("--p-over", help="P(next round overflows the period), for CR.")] = 0.0,
) -> None:
    """Seed 004's 5-state NewReno chain: stationary E[w] under Bernoulli loss."""
    from mptlab.models import newreno5

    if w_min > w_max:
        fail(f"--w-min ({w_min}) must not exceed --w-max ({w_max})")
    for x in [*loss, p_over]:
        if not 0.0 <= x <= 1.0:
            fail(f"--l and --p-over must be in [0, 1], not {x}")
    table = Table(title=f"5-state NewReno, w in [{w_min}, {w_max}], sst_start={sst_start}, P_over={p_over:g}")
    for col in ("l", "states", "E\\[w]", "P(loss round)"):
        table.add_column(col, justify="right")
    for x in loss:
        s = newreno5.solve(x, w_min, w_max, sst_start, p_over)
        lossy = sum(q for st, q in zip(s.states, s.pi) if st[2])
        table.add_row(f"{x:g}", str(len(s.states)), f"{s.mean_w:.3f}", f"{lossy:.4f}")
    out_console.print(table)
