"""Where the matches are played: in this process, in local worker processes, or on a dask cluster.

An :class:`Executor` plays the matches of a schedule with
:func:`~abstractgames.arena.schedule.play_match` and yields each one's record as it finishes, in
any order; the tournament puts the results back in schedule order.
"""

from __future__ import annotations

import abc
import importlib
import os
import pickle
import re
import signal
from collections.abc import Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from types import FrameType
from typing import Any

from ..protocol import AbstractGamesError
from ..registry import registrations, restore_registrations
from ..specs import split_spec
from .errors import ArenaError, MatchInterrupted
from .schedule import MatchTask, play_match

__all__ = [
    "DaskExecutor",
    "Executor",
    "ProcessExecutor",
    "Results",
    "SerialExecutor",
    "default_jobs",
    "make_executor",
]


Results = Generator[tuple[MatchTask, str], None, None]
"""What :meth:`Executor.results` returns: each match with its record, as it finishes."""


class Executor(abc.ABC):
    """Plays matches: :meth:`results` yields each task with its record, in any order."""

    @abc.abstractmethod
    def results(self, tasks: Sequence[MatchTask]) -> Results:
        """Play ``tasks``; yield ``(task, record JSON text)`` as each match finishes.

        Closing the iterator early stops the matches still running.

        Raises:
            ArenaError: a match failed (not by the rules: a bug, a lost worker); the message
                names the match.
            KeyboardInterrupt: Ctrl-C.
        """


def _failed(task: MatchTask, error: BaseException) -> ArenaError:
    what = (
        str(error) if isinstance(error, AbstractGamesError) else f"{type(error).__name__}: {error}"
    )
    return ArenaError(
        f"match {task.number} ({task.players[0]} against {task.players[1]}, seed {task.seed}) "
        f"failed: {what}"
    )


class SerialExecutor(Executor):
    """Plays the matches one after another in this process."""

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        for task in tasks:
            try:
                text = play_match(task)
            except MatchInterrupted:
                raise KeyboardInterrupt from None
            except Exception as error:
                raise _failed(task, error) from error
            yield task, text


_stop: Any = None
"""In a worker process: the event the main process sets to stop the matches."""
_running = False
"""In a worker process: whether a match is being played (Ctrl-C then stops it)."""


_lost: dict[str, str] = {}
"""In a worker process: the registrations that could not be unpickled, with why."""

Shipped = dict[str, dict[str, bytes]]
"""Pickled registrations by kind (``"games"``, ``"players"``) and name."""


def _names(task: MatchTask) -> set[str]:
    """The game and player names a task uses."""
    return {split_spec(spec)[0] for spec in (task.game, *task.players)}


def _ship_registrations(tasks: Sequence[MatchTask]) -> Shipped:
    """This process's registrations, pickled for the workers.

    Raises:
        ArenaError: one that the tasks use cannot be pickled (a lambda, a class in a function).
    """
    used = set().union(*map(_names, tasks))
    shipped: Shipped = {}
    for kind, entries in registrations().items():
        shipped[kind] = {}
        for name, value in entries.items():
            try:
                shipped[kind][name] = pickle.dumps(value)
            except Exception as error:
                if name in used:
                    raise ArenaError(
                        f"{kind[:-1]} {name!r} was registered in this process with an object that "
                        f"cannot be sent to worker processes ({type(error).__name__}: {error}): "
                        "register a class or function defined at the top level of a module, or "
                        "play in this process (jobs=1)"
                    ) from None
    return shipped


def _init_worker(stop: Any, pids: Any, shipped: Shipped) -> None:
    global _stop
    _stop = stop
    signal.signal(signal.SIGINT, _interrupt)
    restored: dict[str, dict[str, Any]] = {}
    for kind, entries in shipped.items():
        restored[kind] = {}
        for name, data in entries.items():
            try:
                restored[kind][name] = pickle.loads(data)
            except Exception as error:
                _lost[name] = f"{type(error).__name__}: {error}"
    restore_registrations(restored)
    pids.put(os.getpid())


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C in a worker: stop the match being played (once); ignored between matches."""
    global _running
    if _running:
        _running = False
        raise KeyboardInterrupt


def _worker_play(task: MatchTask) -> str:
    global _running
    _running = True
    try:
        if _stop is not None and _stop.is_set():
            raise MatchInterrupted(f"match {task.number} was not started")
        for name in sorted(_names(task) & set(_lost)):
            raise ArenaError(
                f"{name!r}, registered in the main process, cannot be loaded in a worker process "
                f"({_lost[name]}): define it in an importable module, or play in one process "
                "(jobs=1)"
            )
        return play_match(task)
    finally:
        _running = False


class ProcessExecutor(Executor):
    """Plays the matches in ``jobs`` local worker processes (started afresh, with ``spawn``).

    Ctrl-C stops the matches being played (the players are closed, external programs quit) and
    the ones not yet started.
    """

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise ArenaError(f"jobs must be at least 1, not {jobs}")
        self.jobs = jobs

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        if not tasks:
            return
        import multiprocessing

        shipped = _ship_registrations(tasks)
        context = multiprocessing.get_context("spawn")
        stop = context.Event()
        pids = context.SimpleQueue()
        pool = ProcessPoolExecutor(
            max_workers=min(self.jobs, len(tasks)),
            mp_context=context,
            initializer=_init_worker,
            initargs=(stop, pids, shipped),
        )
        futures: dict[Future[str], MatchTask] = {}
        try:
            futures = {pool.submit(_worker_play, task): task for task in tasks}
            for future in as_completed(futures):
                task = futures[future]
                try:
                    text = future.result()
                except (MatchInterrupted, KeyboardInterrupt):
                    raise KeyboardInterrupt from None
                except BrokenProcessPool:
                    raise ArenaError(
                        "a worker process died (killed, or out of memory?) during match "
                        f"{task.number} or another one"
                    ) from None
                except Exception as error:
                    raise _failed(task, error) from error
                yield task, text
        finally:
            if not all(future.done() for future in futures):
                stop.set()
                while not pids.empty():
                    with suppress(OSError):
                        os.kill(pids.get(), signal.SIGINT)
            pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """Plays the matches on a dask.distributed cluster (the ``dask`` extra).

    Every worker needs this version of abstractgames installed, and every external program the
    player specs name at the same path. Ctrl-C cancels the matches not yet started; the ones
    running finish on their workers, and their results are dropped.

    Args:
        address: the scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
        timeout: seconds to wait for the connection.
    """

    def __init__(self, address: str, timeout: float = 30.0) -> None:
        self.address = address
        self.timeout = timeout

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise ArenaError(
                "the dask executor needs dask.distributed: pip install 'abstractgames[dask]'"
            ) from None
        try:
            client = distributed.Client(self.address, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise ArenaError(
                f"cannot reach the dask scheduler at {self.address}: {error}"
            ) from None
        futures: list[Any] = []
        try:
            futures = [client.submit(play_match, task, pure=False) for task in tasks]
            owner = {future.key: task for future, task in zip(futures, tasks, strict=True)}
            for future in distributed.as_completed(futures, loop=client.loop):
                task = owner[future.key]
                try:
                    text = future.result()
                except Exception as error:
                    raise _failed(task, error) from error
                yield task, text
        finally:
            with suppress(Exception):
                client.cancel(futures)
            client.close()


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_DASK = re.compile(r"^dask://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(?P<port>\d{1,5})$")


def make_executor(spec: str | None = None, jobs: int | None = None) -> Executor:
    """The executor named by ``spec``: ``"local"`` (the default) or ``"dask://HOST:PORT"``.

    Locally, ``jobs`` processes play at once (default: one per core); one job plays in this
    process. A dask cluster plays as many matches at once as its workers have threads.

    Raises:
        ArenaError: an unknown executor, or ``jobs`` given for a dask cluster.
    """
    if spec is None or spec.strip().lower() == "local":
        count = default_jobs() if jobs is None else jobs
        if count < 1:
            raise ArenaError(f"jobs must be at least 1, not {count}")
        return SerialExecutor() if count == 1 else ProcessExecutor(count)
    found = _DASK.match(spec.strip())
    if found is None:
        raise ArenaError(f"unknown executor {spec!r}: use 'local' or 'dask://HOST:PORT'")
    if jobs is not None:
        raise ArenaError(
            "jobs are for local processes: a dask cluster plays as many matches at once as its "
            "workers have threads"
        )
    return DaskExecutor(f"tcp://{found['host']}:{found['port']}")
