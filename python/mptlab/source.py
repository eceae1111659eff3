"""Where a scenario comes from: a file, TOML text or stdin, and the `key=value` overrides.

Standard library only (imported by the light `mptlab` top level).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

ScenarioLike = Union[str, "os.PathLike[str]"]

#: Largest scenario file or stdin text read (docs/scenarios.md, "Limits"): 16 MiB. The largest
#: shipped scenario is a few KB; a larger input is refused after reading one byte past the
#: limit, so `mptlab run /dev/zero` stops at once instead of filling memory.
MAX_SCENARIO_BYTES = 16 * 1024 * 1024
Overrides = Union[Mapping[str, Any], Iterable[str], Iterable[tuple[str, Any]], None]


@dataclass(frozen=True)
class ScenarioSource:
    """The TOML text of a scenario and where it came from."""

    text: str
    #: The file it was read from (None: given as text or read from stdin).
    path: Path | None
    #: Short name used for the default output folder: the file stem, "stdin" or "scenario".
    name: str


def load(scenario: ScenarioLike) -> ScenarioSource:
    """Read a scenario given as a path, as TOML text, or as ``"-"`` (stdin).

    A string is TOML text when it contains a newline, or when it is no existing file, does not
    end in ``.toml`` and contains ``=``. Anything else is a path; reading it may raise
    ``OSError`` (``FileNotFoundError``, ``IsADirectoryError``, ...) or ``UnicodeDecodeError``.
    """
    if isinstance(scenario, ScenarioSource):
        return scenario
    if isinstance(scenario, os.PathLike):
        return _read(Path(scenario))
    if not isinstance(scenario, str):
        raise TypeError(f"scenario must be a path or TOML text, not {type(scenario).__name__}")
    if scenario == "-":
        return ScenarioSource(text=_bounded(getattr(sys.stdin, "buffer", sys.stdin), "<stdin>"), path=None, name="stdin")
    if "\n" in scenario:
        return ScenarioSource(text=scenario, path=None, name="scenario")
    path = Path(scenario)
    if path.exists() or scenario.endswith(".toml") or "=" not in scenario:
        return _read(path)
    return ScenarioSource(text=scenario, path=None, name="scenario")


def _read(path: Path) -> ScenarioSource:
    with open(path, "rb") as f:
        text = _bounded(f, str(path))
    return ScenarioSource(text=text, path=path, name=path.stem or "scenario")


def _bounded(stream: Any, name: str) -> str:
    """At most `MAX_SCENARIO_BYTES` of `stream` as UTF-8 text (TOML files are UTF-8 by
    definition, toml.io "Spec"); more raises OSError(EFBIG)."""
    data = stream.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise OSError(errno.EFBIG, f"larger than the limit of {MAX_SCENARIO_BYTES} bytes (16 MiB) for a scenario", name)
    return data if isinstance(data, str) else data.decode("utf-8")


def parse_assignment(item: str) -> tuple[str, str]:
    """``"flows.bulk.cc=reno"`` -> ``("flows.bulk.cc", "reno")``; raises ValueError."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ValueError(f"--set expects KEY=VALUE (for example flows.bulk.cc=reno), got {item!r}")
    return _checked(key, value.strip())


def _checked(key: str, value: str) -> tuple[str, str]:
    """Refuse text that is not UTF-8 (a terminal passes undecodable bytes as surrogates, which
    cannot reach the engine). The engine refuses the rest of what it would read differently
    from what was typed (white space in a key path, extra TOML after the value)."""
    for what, text in (("key", key), ("value", value)):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"--set {what} {text!r} is not valid UTF-8 text") from None
    return key, value


def normalize_overrides(overrides: Overrides) -> list[tuple[str, str]]:
    """Turn a mapping, ``"key=value"`` strings or ``(key, value)`` pairs into the
    ``list[tuple[str, str]]`` the engine takes. Values that are not strings are written the way
    TOML writes them (``True`` -> ``true``)."""
    if overrides is None:
        return []
    items: Iterable[Any] = overrides.items() if isinstance(overrides, Mapping) else overrides
    if isinstance(items, (str, bytes)):
        raise TypeError("overrides must be a mapping or a list of 'key=value' strings, not a string")
    out: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            out.append(parse_assignment(item))
        else:
            key, value = item
            out.append(_checked(str(key).strip(), _value_text(value)))
    return out


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
