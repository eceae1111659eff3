"""Where sweep runs execute: a local process pool (default) or a Dask cluster.

Both take `Task`s and yield `Payload`s as runs finish, in completion order. Each run is one
task on one worker process, single-threaded: a run is never split (DESIGN.md). A worker that
dies (killed, out of memory) fails only the runs it held; they come back as failed payloads.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from mptlab.sweeps.worker import Payload, Task, failed_payload, run_task

_PR_SET_PDEATHSIG = 1


def parse_dask_address(address: str) -> tuple[str, int | None]:
    """``"local:4"`` -> ("local", 4); ``"tcp://host:8786"`` -> (address, None).

    Raises ValueError with the accepted forms."""
    if address.startswith("local"):
        _, _, n = address.partition(":")
        try:
            workers = int(n) if n else (os.cpu_count() or 1)
        except ValueError:
            workers = 0
        if workers < 1:
            raise ValueError(
                f"--dask {address!r}: local needs a positive worker count, as in local:4"
            )
        return "local", workers
    if "://" not in address and ":" not in address:
        raise ValueError(
            f"--dask {address!r}: expected a scheduler address such as tcp://host:8786, "
            "or local:N to start a local cluster of N worker processes"
        )
    return address, None


def reach_scheduler(address: str, timeout_s: float = 5.0) -> None:
    """Raise ValueError unless a TCP connection to the scheduler at `address` opens within
    `timeout_s`: an unreachable address is bad input, said before any folder is made (it was
    once reported as "cannot write to <folder>" after 30 s, the folder created)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise ValueError(f"--dask {address!r}: expected host and port, as in tcp://host:8786")
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:
        reason = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise ValueError(f"--dask {address!r}: cannot reach the scheduler ({reason})") from None


def run_local(tasks: Sequence[Task], workers: int) -> Iterator[Payload]:
    """Run `tasks` in a pool of `workers` forked processes."""
    if not tasks:
        return
    # fork: workers start in milliseconds with mptlab already imported. All of them are
    # forked at the first submit, from this thread, before any progress-bar thread exists.
    ctx = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_die_with_parent)
    try:
        pending: dict[Future[Payload], Task] = {pool.submit(run_task, t): t for t in tasks}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                task = pending.pop(fut)
                yield _result(fut, task)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_dask(tasks: Sequence[Task], address: str) -> Iterator[Payload]:
    """Run `tasks` on a Dask cluster: an existing scheduler, or ``local:N`` worker processes."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ImportError("running on Dask needs its distributed scheduler: pip install 'mptlab[dask]'") from None

    target, workers = parse_dask_address(address)
    cluster = None
    if target == "local":
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            scheduler_kwargs={"dashboard": False},
        )
        client = Client(cluster)
    else:
        client = Client(target)
    try:
        # pure=False: two points that happen to be equal are still two runs; the run key
        # names the task so the dashboard shows which run is where.
        futures = {
            client.submit(run_task, t, key=f"mptlab-run-{t.key}-{t.point}", pure=False): t
            for t in tasks
        }
        for fut in as_completed(futures):
            yield _result(fut, futures[fut])
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _result(fut: Any, task: Task) -> Payload:
    """A finished future's payload, or a failed payload when the worker itself failed."""
    try:
        return fut.result()
    except Exception as exc:  # noqa: BLE001 - the worker died or could not unpickle
        return failed_payload(task, f"worker failed: {type(exc).__name__}: {exc}")


def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when the sweep process dies (even by SIGKILL),
    so an interrupted sweep leaves no orphans still running."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass
    # The coordinator handles Ctrl-C; a worker interrupted mid-run would only lose the run.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
