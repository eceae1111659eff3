"""Files that appear whole or not at all: `atomic_write` and `write_text`.

Every file mptlab writes (run outputs, sweep stores, figures, reports, reproductions) goes
through here: it is written to a hidden temp file in the same folder, flushed (and fsynced
unless not `durable`), then renamed over the target (`os.replace`). A reader never sees half
a file, and an interrupted write leaves the previous file (if any) intact.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, Any


def write_text(path: Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path` atomically; return `path`."""
    return atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any], durable: bool = True) -> Path:
    """Create `path` atomically: `write` fills a temp file in the same folder, which is then
    flushed, fsynced (unless not `durable`) and renamed onto `path`. On any failure the temp
    file is removed.

    The rename alone makes the file all-or-nothing for any reader and across a killed
    process; the fsync adds survival of a power loss, at about a millisecond a file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        # mkstemp creates 0600; give the file the permissions open() would have.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


_UMASK: int | None = None


def _umask() -> int:
    """The process umask, read once (os.umask can only be read by setting it)."""
    global _UMASK
    if _UMASK is None:
        current = os.umask(0)
        os.umask(current)
        _UMASK = current
    return _UMASK
