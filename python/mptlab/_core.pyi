# Type stub for the Rust extension module built from crates/mptlab-py (PyO3).
# Keep in step with crates/mptlab-py/src/lib.rs; the summary types with
# crates/mptlab-sim/src/results/ (schema, units and when a key is null: docs/metrics.md).

from typing import Any, Literal, NotRequired, TypedDict

# --- summary.json (`json.loads(Simulation.summary_json())`) ----------------------------------

class Stats(TypedDict):
    """Distribution of samples; every field 0 when `count` is 0."""
    mean: float
    std: float
    min: float
    max: float
    p50: float
    p95: float
    count: int

class Quantiles(TypedDict):
    """Delay distribution in ms (percentiles from a log-linear histogram; null where only running
    statistics were kept: the queueing delay of a link not measured in detail)."""
    mean: float
    p50: float | None
    p95: float | None
    p99: float | None
    max: float
    count: int

class Jitter(TypedDict):
    """RFC 3550 §6.4.1 jitter samples, ms."""
    mean: float
    p50: float
    p95: float
    max: float

class MptcpPathDetail(TypedDict):
    fast_recoveries: int
    bytes_scheduled: int
    chunks_reinjected: int
    penalties: int
    opened: int
    closed: int

class QuicPathDetail(TypedDict):
    path_id: int
    validated_at_s: float | None
    stats: dict[str, int]
    peer_ack_only_sent: int
    congestion_events: int
    persistent_congestion_events: int

class _PathSummary(TypedDict):
    index: int
    route: list[str]
    priority: int
    backup: bool
    state: Literal["idle", "validating", "active", "closed", "abandoned"]
    srtt_ms_mean: float | None
    srtt_ms_max: float | None
    srtt_ms_final: float | None
    min_rtt_ms: float | None
    final_cwnd_bytes: int
    segments_sent: int
    bytes_sent: int
    retransmissions: int
    rto_count: int
    dropped_packets: int
    drop_rate_per_s: float
    drop_pct: float
    share: float
    bytes_received: int | None

class PathSummary(_PathSummary, total=False):
    """One path of a flow, the same shape for every transport with paths; exactly one of the
    transport-specific keys is present."""
    mptcp: MptcpPathDetail
    quic: QuicPathDetail

class _RetransmitTotals(TypedDict):
    retransmissions: int
    rto_count: int

class RetransmitTotals(_RetransmitTotals, total=False):
    """`flows[].tcp`; the keys below only for TCP flows."""
    fast_recoveries: int
    tlp_probes: int
    tlp_recoveries: int
    srtt_ms_mean: float | None
    min_rtt_ms: float
    final_cwnd_bytes: int
    receiver: dict[str, int]

class ProtocolDelay(TypedDict):
    v_av: float | None
    v_max: float | None
    samples: int
    first_data_ack: dict[str, float | int | None]
    per_handover: Quantiles | None

class HolDegree(TypedDict):
    zeta_av: float | None
    zeta_max: float | None
    samples: int
    negative_samples: int

class _MptcpSummary(TypedDict):
    protocol_delay_ms: ProtocolDelay
    hol_degree_ms: HolDegree
    hol_wait_ms: Quantiles | None
    window_stall_s: float
    window_stalls: int
    chunks_reinjected: int
    opportunistic_retransmits: int
    penalizations: int
    established_at_s: float | None
    closed_at_s: float | None
    reassembly: dict[str, int]

class MptcpSummary(_MptcpSummary, total=False):
    blp: dict[str, Any]
    """Present only with the BLP scheduler."""

class QuicSummary(TypedDict):
    blp: dict[str, Any] | None
    multipath: bool
    handshake_complete_s: float | None
    handshake_confirmed_s: float | None
    streams: int
    stream_bytes_retransmitted: int
    sender: dict[str, int | None]
    receiver: dict[str, dict[str, int | None]]

class FlowSummary(TypedDict):
    name: str
    group: str
    protocol: Literal["tcp", "udp", "mptcp", "quic", "mpquic"]
    cc: str | None
    src: str
    dst: str
    goodput_mbps: Stats
    bytes_delivered: int
    sent_packets: int
    dropped_packets: int
    loss_pct: float
    ack_packets_sent: int
    retransmissions: int | None
    rto_count: int | None
    srtt_ms_mean: float | None
    jitter_ms: Jitter | None
    owd_ms: Quantiles | None
    interarrival_ms: Quantiles | None
    completion_time_s: float | None
    app_blocked_ticks: int
    tcp: RetransmitTotals | None
    scheduler: str | None
    paths: list[PathSummary] | None
    mptcp: MptcpSummary | None
    quic: QuicSummary | None

class LinkProtocolSummary(TypedDict):
    bytes: int
    throughput_mbps: Stats

class LinkGroupSummary(TypedDict):
    """One flow group (scenario flow entry) on one detailed link direction."""
    offered_packets: int
    packets: int
    bytes: int
    drops: int
    throughput_mbps: Stats
    jitter_ms: Stats | None
    subflow_jitter_ms: Stats | None

class LinkMacSummary(TypedDict):
    """MAC transmissions of a Wi-Fi direction (`links[].mac`; null on point-to-point links)."""
    attempts: int
    retries: int
    retry_drops: int

LinkSummary = TypedDict("LinkSummary", {
    "name": str, "from": str, "to": str, "rate_mbps": float, "throughput_mbps": Stats,
    "bytes": int, "packets": int, "offered_packets": int, "queue_drops": int, "channel_drops": int,
    "drops": int, "down_drops": int, "mean_rate_mbps": float | None, "drop_pct": float,
    "queue_delay_ms": Quantiles | None, "queue_pkts_mean": float | None, "queue_pkts_max": int,
    "jitter_ms": Stats | None, "subflow_jitter_ms": Stats | None,
    "by_protocol": dict[str, LinkProtocolSummary], "by_group": dict[str, LinkGroupSummary] | None,
    "mac": LinkMacSummary | None,
})

class GroupSummary(TypedDict):
    name: str
    flows: int
    goodput_mbps_total: float
    goodput_mbps_mean: float
    jain: float | None
    goodput_mbps: Stats
    bytes_delivered: int
    sent_packets: int
    dropped_packets: int
    loss_pct: float
    completion_time_s: Stats | None

class ProtocolSummary(TypedDict):
    sent_packets: int
    dropped_packets: int
    loss_pct: float

class EngineSummary(TypedDict):
    events: int
    packets_created: int
    delivered_data_packets: int

class TunnelBufferSummary(TypedDict):
    limit_packets: int | None
    limit_bytes: int | None
    offered: int
    dropped: int
    max_packets: int
    max_bytes: int
    wait_ms_mean: float
    wait_ms_max: float

class TunnelPathSummary(TypedDict):
    route: list[str]
    priority: int
    backup: bool
    packets_sent: int
    wire_bytes_sent: int
    packets_acked: int
    packets_lost: int
    network_drops: int
    timeouts: int
    congestion_events: int
    inner_bytes: int
    throughput_mbps: Stats
    cwnd_packets: float
    srtt_ms: float | None
    min_rtt_ms: float | None
    cc_state: str

class TunnelEgressSummary(TypedDict):
    arrived: int
    released: int
    reorder: dict[str, Any]

class TunnelSummary(TypedDict):
    name: str
    ingress: str
    egress: str
    protocol: str
    cc: str
    scheduler: str
    buffer: TunnelBufferSummary
    paths: list[TunnelPathSummary]
    secondary_share: float | None
    egress_counters: TunnelEgressSummary

class StationSummary(TypedDict):
    name: str
    frames: int
    attempts: int
    successes: int
    failures: int
    retry_drops: int
    collision_probability: float
    queued: int

class WifiSummary(TypedDict):
    name: str
    stations: list[StationSummary]
    collision_probability: float
    attempts: int
    retry_drops: int

class OwdCdf(TypedDict):
    count: int
    mean: float
    quantiles: list[float]
    """The pooled one-way delay at 0, 1, ..., 100 %, ms."""

class Summary(TypedDict):
    seed: int
    duration_s: float
    scenario: dict[str, Any]
    definitions: dict[str, str]
    flows: list[FlowSummary]
    links: list[LinkSummary]
    groups: list[GroupSummary]
    jain_all_flows: float | None
    protocols: dict[str, ProtocolSummary]
    engine: EngineSummary
    tunnels: NotRequired[list[TunnelSummary]]
    wifi: NotRequired[list[WifiSummary]]
    data_owd_cdf_ms: NotRequired[OwdCdf]
    # Added by mptlab.runner (not by the engine's summary_json): "simulator" or "emulation".
    backend: NotRequired[str]

# --- functions ---------------------------------------------------------------------------------

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

from typing import Any, Literal, NotRequired, TypedDict

class ResolvedRunInfo(TypedDict):
    seed: int
    duration_ns: int
    interval_ns: int
    trace_interval_ns: int

class ResolvedNode(TypedDict):
    name: str
    kind: Literal["host", "router", "station"]

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
    send_buffer: int
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
    tunnel: ResolvedFlowTunnel | None  # paths[0].fwd ends at the tunnel's ingress

class ResolvedFlowTunnel(TypedDict):
    name: str
    after: list[str]  # egress to dst

class ResolvedTunnel(TypedDict):
    name: str
    ingress: str
    egress: str
    protocol: Literal["dccp", "tcp"]
    cc: ResolvedAlgorithm
    scheduler: ResolvedAlgorithm
    paths: list[ResolvedPath]  # fwd: ingress to egress

class ResolvedRun(TypedDict):
    run: ResolvedRunInfo
    nodes: list[ResolvedNode]
    links: list[ResolvedLink]
    flows: list[ResolvedFlow]
    tunnels: list[ResolvedTunnel]

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
        """After `done`: the deterministic summary as JSON text (parses to `Summary`)."""
    def timeseries(self) -> dict[str, list]:
        """Long-format columns: series (str), entity (str), t_s (float), value (float)."""
