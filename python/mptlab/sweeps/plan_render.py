"""Python values -> TOML text: one value inline (for `_core` overrides) and a whole document.

An override value is read by the engine as a TOML value when it parses as one, else taken as a
plain string; every text written here is a TOML value, so a string is always quoted and never
relies on that fallback.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_string(s: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character escaped."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """One key segment: bare when it can be, else quoted."""
    return key if _BARE_KEY.match(key) else toml_string(key)


def toml_float(x: float) -> str:
    """A TOML float (``inf``, ``-inf``, ``nan`` included); always has a ``.`` or an exponent."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def toml_value(value: Any) -> str:
    """One value as TOML inline text: ``"reno"``, ``5``, ``0.5``, ``true``, ``[1, 2]``,
    ``{ kind = "codel", limit = "100p" }``. Raises TypeError for a value TOML cannot hold."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return toml_float(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    raise TypeError(f"cannot write a {type(value).__name__} as a TOML value")


def plain_number(x: float) -> str:
    """A decimal number without exponent and without a trailing ``.0``: ``12.3456``, ``0.00001``,
    ``100``. Used inside unit strings such as ``"12.3456ms"``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    d = Decimal(repr(float(x)))
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text


def dumps_document(table: Mapping[str, Any]) -> str:
    """A whole TOML document (the inline ``[scenario]`` table of a plan) via ``tomli_w``."""
    import tomli_w

    return tomli_w.dumps(dict(table))
