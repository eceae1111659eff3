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
