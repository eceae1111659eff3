# Type stub for the Rust extension module built from crates/mptlab-py (PyO3).
# Keep in step with crates/mptlab-py/src/lib.rs.

def version() -> str:
    """The mptlab version (Rust workspace version)."""

def registry() -> str:
    """JSON text: {"congestion_controllers": [{name, aliases, summary, source}...],
    "scenario": {catalogue of queues, loss models, apps, protocols, units},
    "metrics": [{name, definition}...]}."""

def check(text: str, overrides: list[tuple[str, str]] = [], seed: int | None = None) -> str:
    """Validate a TOML scenario (with `key.path=value` overrides applied); return the canonical
    scenario as JSON text. Raises ScenarioError."""

def describe(text: str, overrides: list[tuple[str, str]] = [], seed: int | None = None) -> str:
    """Sizes of the resolved run, groups and counts expanded: JSON {"nodes", "links", "flows"}
    ("links" counts duplex links). Raises ScenarioError."""

# --- resolve(): the resolved run as plain data (docs/resolve.md) -------------------------
# The JSON text of `resolve` parses to a `ResolvedRun`. Times are integer ns, rates bit/s,
# sizes bytes.

from typing import Any, Literal, TypedDict

class ResolvedRunInfo(TypedDict):
    seed: int
    duration_ns: int
    interval_ns: int
    trace_interval_ns: int

class ResolvedNode(TypedDict):
    name: str
    kind: Literal["host", "router"]

class ResolvedRed(TypedDict):
    min: dict[str, int]  # {"packets": n} or {"bytes": n}, the unit of the limit
    max: dict[str, int]
    max_p: float
    weight: float
    gentle: bool

class ResolvedQueue(TypedDict):
    kind: Literal["droptail", "codel", "red"]
    limit_packets: int | None  # exactly one of the two limits is set
    limit_bytes: int | None
    target_ns: int | None  # codel only
    interval_ns: int | None  # codel only
    red: ResolvedRed | None  # red only

class ResolvedEvent(TypedDict):
    at_ns: int
    action: Literal["down", "up", "rate"]
    rate_bps: int | None  # "rate" only

# Functional form: one key is "from", a Python keyword.
ResolvedLink = TypedDict(
    "ResolvedLink",
    {
        "name": str,  # a link direction: "x" or "x.rev"
        "reverse": str,
        "from": str,
        "to": str,
        "rate_bps": int,
        "delay_ns": int,
        "queue": ResolvedQueue,
        "loss": dict[str, Any],  # {"model": "none" | "bernoulli" | "gilbert_elliott", ...}
        "capacity": dict[str, Any] | None,  # {"model": "lte" | "trace", ...}, times in ns
        "events": list[ResolvedEvent],
    },
)

class ResolvedAlgorithm(TypedDict):
    name: str
    options: dict[str, Any]

class ResolvedPath(TypedDict):
    fwd: list[str]  # link-direction names, src to dst
    rev: list[str]  # dst to src
    priority: int
    backup: bool

class ResolvedTcp(TypedDict):
    mss: int
    sack: bool
    handshake: bool
    initial_cwnd_segments: int
    min_rto_ns: int
    initial_rto_ns: int
    max_rto_ns: int
    rto: Literal["linux", "rfc6298"]
    delayed_ack: bool
    delayed_ack_every: int
    delayed_ack_timeout_ns: int
    send_buffer: int
    recv_buffer: int
    pacing: bool
    tlp: bool
    join_delay_ns: int | None  # mptcp only

class ResolvedQuic(TypedDict):
    max_udp_payload: int
    max_data: int
    max_stream_data: int
    max_ack_delay_ns: int
    streams: int
    handshake: bool

class ResolvedUdp(TypedDict):
    payload: int

class ResolvedFlow(TypedDict):
    name: str
    group: str
    protocol: Literal["tcp", "udp", "mptcp", "quic"]
    multipath: bool
    src: str
    dst: str
    start_ns: int
    stop_ns: int | None
    app: dict[str, Any]  # {"kind": "bulk" | "cbr" | "poisson" | "file", ...parameters}
    cc: ResolvedAlgorithm | None  # None for udp
    scheduler: ResolvedAlgorithm | None  # mptcp and quic
    paths: list[ResolvedPath]
    tcp: ResolvedTcp | None  # tcp and mptcp
    quic: ResolvedQuic | None
    udp: ResolvedUdp | None

class ResolvedRun(TypedDict):
    run: ResolvedRunInfo
    nodes: list[ResolvedNode]
    links: list[ResolvedLink]
    flows: list[ResolvedFlow]

def resolve(text: str, overrides: list[tuple[str, str]] = [], seed: int | None = None) -> str:
    """The resolved run as JSON text (parses to `ResolvedRun`): nodes, link directions with
    rates, delays, queues, loss, capacity models and events, routes per flow and path as
    link-direction names, flows with their algorithms and transport parameters. The values are
    those the simulator runs with. Raises ScenarioError."""

def blp_model_predict(model_json: str, rows: list[list[float]]) -> list[float]:
    """BLP's learned blocking threshold (BT) for each row of nine features, evaluated by the
    Rust scheduler's evaluator (format `mptlab-blp-threshold/1`, docs/schedulers.md). Raises
    ValueError for an invalid model or a row without nine values."""

def blp_model_predict_proba(model_json: str, rows: list[list[float]]) -> list[list[float]]:
    """Class probabilities of the same model for each row, in the model's `classes` order."""

def blp_feature_names() -> list[str]:
    """The nine feature names BLP measures, in model order."""

class ScenarioError(ValueError):
    """str(e) == "<key.path>: <reason> (valid: a, b, c)"."""

class Simulation:
    def __init__(
        self, text: str, overrides: list[tuple[str, str]] = [], seed: int | None = None
    ) -> None:
        """Validate and build a run. Raises ScenarioError."""
    @property
    def duration_s(self) -> float: ...
    @property
    def now_s(self) -> float:
        """Simulated time reached so far."""
    @property
    def done(self) -> bool: ...
    @property
    def seed(self) -> int:
        """The effective seed."""
    @property
    def events_processed(self) -> int: ...
    @property
    def delivered_data_packets(self) -> int: ...
    def advance(self, until_s: float) -> None:
        """Simulate up to `until_s` (the GIL is released meanwhile)."""
    def summary_json(self) -> str:
        """After `done`: the deterministic summary as JSON text."""
    def timeseries(self) -> dict[str, list]:
        """Long-format columns: series (str), entity (str), t_s (float), value (float)."""
