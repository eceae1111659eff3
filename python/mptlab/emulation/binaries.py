"""Where the emulation's native helpers are: `mptlab-linkemu` (the user-space link emulator, a
workspace crate built by `make setup`) and `mptlab-mpquic` (tquic's multipath QUIC, a crate
outside the workspace built only when a run needs it). An environment variable
(`MPTLAB_LINKEMU`, `MPTLAB_MPQUIC`) names a binary explicitly; otherwise the repository's
release build is used and built with cargo if missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

#: The repository (python/mptlab/emulation -> repository root).
REPO = Path(__file__).resolve().parents[3]


def linkemu() -> Path:
    return _binary("MPTLAB_LINKEMU", REPO / "target" / "release" / "mptlab-linkemu",
                   ["cargo", "build", "--release", "-p", "mptlab-linkemu"])


def mpquic() -> Path:
    manifest = REPO / "crates" / "mptlab-mpquic" / "Cargo.toml"
    return _binary("MPTLAB_MPQUIC", REPO / "crates" / "mptlab-mpquic" / "target" / "release" / "mptlab-mpquic",
                   ["cargo", "build", "--release", "--manifest-path", str(manifest)])


def _binary(env: str, default: Path, build: list[str]) -> Path:
    named = os.environ.get(env)
    if named:
        return Path(named)
    if not default.exists():
        cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
        if not Path(cargo).exists() or not (REPO / "Cargo.toml").exists():
            raise FileNotFoundError(f"{default.name} is not built and cargo or the repository is missing; "
                                    f"set {env} to the binary")
        subprocess.run([cargo, *build[1:]], cwd=REPO, check=True)
    return default
