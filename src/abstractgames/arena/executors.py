"""Where the matches are played: in this process, in local worker processes, or on a dask cluster.

An [`Executor`][] plays the matches of a schedule with [`play_match`][] and yields each one's record
as it finishes, in any order, with the time it took to play ([`Executor.timed_results`][]); the
tournament puts the results back in schedule order. The matches are handed out a few at a time (two
per worker), so a long schedule costs no memory here.

A `KeyboardInterrupt` (Ctrl-C, or SIGTERM and SIGHUP under
[`termination_as_interrupt`][abstractgames.interrupts.termination_as_interrupt]) stops the
matches being played and the ones not yet started; the local worker processes are stopped and
waited for before it goes on, so none is left running. A `threading.Event` given as `stop`
(see [`Executor.timed_results`][]) does the same from another thread, without the interrupt:
the results simply end, which is how a program that runs tournaments in threads (the web app)
stops one.
"""

from __future__ import annotations

import abc
import importlib
import itertools
import math
import os
import pickle
import queue
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from types import FrameType
from typing import Any

from ..interrupts import STOP_SIGNALS, pending_interrupt
from ..protocol import AbstractGamesError
from ..registry import registrations, restore_registrations
from ..specs import split_spec
from ..text import excerpt
from .errors import ArenaError, MatchInterrupted
from .schedule import MatchTask, play_match

__all__ = [
    "DaskExecutor",
    "Executor",
    "ProcessExecutor",
    "Results",
    "SerialExecutor",
    "TimedResults",
    "default_jobs",
    "make_executor",
]


Results = Generator[tuple[MatchTask, str], None, None]
"""What [`Executor.results`][] returns: each match with its record, as it finishes."""
TimedResults = Generator[tuple[MatchTask, str, float | None], None, None]
"""What [`Executor.timed_results`][] returns: each match with its record and the seconds it
took to play (`None` if not known), as it finishes."""

_STOP_POLL = 0.1
"""Seconds between two looks at a `stop` event, and at a stop signal Python dropped
([`pending_interrupt`][abstractgames.interrupts.pending_interrupt]), while the local workers
play."""


def _stopped_by(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


class Executor(abc.ABC):
    """Plays matches: [`results`][] yields each task with its record, in any order."""

    slots: int = 1
    """How many matches it plays at once (for the estimate of the time left)."""

    @abc.abstractmethod
    def results(self, tasks: Sequence[MatchTask]) -> Results:
        """Play `tasks`; yield `(task, record JSON text)` as each match finishes.

        Closing the iterator early stops the matches still running.

        Raises:
            ArenaError: a match failed (not by the rules: a bug, a lost worker); the message
                names the match.
            KeyboardInterrupt: Ctrl-C (or SIGTERM, SIGHUP: see [`abstractgames.interrupts`][]).
        """

    def timed_results(
        self, tasks: Sequence[MatchTask], stop: threading.Event | None = None
    ) -> TimedResults:
        """[`results`][] with the seconds each match took to play.

        By default the time from the previous result (or the start) to this one, which is the
        time of the match where one is played at a time; the executors here time each match
        where it is played.

        `stop`, once set (from any thread), ends the results: no further match is started, and
        the matches being played are stopped as Ctrl-C stops them, but without an interrupt:
        the generator returns. By default it is looked at between two results (a match being
        played is finished first); [`ProcessExecutor`][] interrupts its workers at once, and
        [`DaskExecutor`][] cancels what it handed out within a second. An executor of your own
        that overrides this method takes `stop` too, to be stopped so.
        """
        if _stopped_by(stop):
            return
        with closing(self.results(tasks)) as results:
            start = time.monotonic()
            for task, text in results:
                seconds = time.monotonic() - start
                yield task, text, seconds
                if _stopped_by(stop):
                    return
                start = time.monotonic()


def _untimed(results: TimedResults) -> Results:
    with closing(results):
        for task, text, _ in results:
            yield task, text


def _play_timed(task: MatchTask) -> tuple[str, float]:
    """[`play_match`][], and the seconds it took."""
    start = time.monotonic()
    text = play_match(task)
    return text, time.monotonic() - start


def _what(error: BaseException) -> str:
    if isinstance(error, AbstractGamesError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _failed(task: MatchTask, what: str) -> ArenaError:
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
                raise _failed(task, _what(error)) from error
            yield task, text


# --- local worker processes ---------------------------------------------------------------------

_GRACE = 10.0
"""Seconds the workers have to stop their matches after Ctrl-C before they are killed."""
_NUDGE = 1.0  # seconds between two signals to a worker that has not stopped yet

_stopped = False
"""In a worker process: a signal came, so no further match is started."""
_playing = False
"""In a worker process: whether a match is being played."""
_armed = False
"""In a worker process: whether a signal may still stop the match being played (it does once)."""

_lost: dict[str, str] = {}
"""In a worker process: the registrations that could not be unpickled, with why."""

Shipped = dict[str, dict[str, bytes]]
"""Pickled registrations by kind (`"games"`, `"players"`) and name."""


def _names(task: MatchTask) -> set[str]:
    """The game and player names a task uses."""
    return {split_spec(spec)[0] for spec in (task.game, *task.players)}


def _ship_registrations(tasks: Sequence[MatchTask]) -> Shipped:
    """This process's registrations, pickled for the workers.

    Raises:
        ArenaError: one that the tasks use cannot be pickled (a lambda, a class in a function).
    """
    used: set[str] = set()
    seen: set[tuple[str, ...]] = set()
    for task in tasks:
        if (task.game, *task.players) not in seen:
            seen.add((task.game, *task.players))
            used |= _names(task)
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


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """A signal in a worker: stop the match being played (once), and start no other."""
    global _armed, _stopped
    _stopped = True
    if _playing and _armed:
        _armed = False
        raise KeyboardInterrupt


def _unraisable(unraisable: Any) -> None:
    """A stop raised where Python drops exceptions (in a fork's callbacks, a finaliser) is not
    lost: the next signal (the main process repeats it) raises it again."""
    global _armed
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _stopped:
        _armed = True
        return
    sys.__unraisablehook__(unraisable)


def _worker_main(connection: Any, shipped: Shipped) -> None:
    """A worker process: plays each task the main process sends, until it sends `None` or goes.

    SIGINT, SIGTERM and SIGHUP (Ctrl-C, or the signal sent to the whole process group) stop the
    match being played, whose players are closed as after Ctrl-C; the main process then stops the
    worker. The process starts with the signals blocked (it inherits the mask of `_signals_held`),
    so one that comes while it imports waits for these handlers rather than being a traceback.
    """
    sys.unraisablehook = _unraisable
    for signum in STOP_SIGNALS:
        signal.signal(signum, _interrupt)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    restored: dict[str, dict[str, Any]] = {}
    for kind, entries in shipped.items():
        restored[kind] = {}
        for name, data in entries.items():
            try:
                restored[kind][name] = pickle.loads(data)
            except Exception as error:
                _lost[name] = f"{type(error).__name__}: {error}"
    restore_registrations(restored)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        if task is None:
            return
        try:
            reply = _worker_play(task)
        except KeyboardInterrupt:  # the signal came as the match ended
            reply = ("interrupted", "", None)
        try:
            connection.send(reply)
        except OSError:  # the main process is gone, or stopping
            return


def _worker_play(task: MatchTask) -> tuple[str, str, float | None]:
    """`("done", record, seconds)`, `("interrupted", "", None)` or `("failed", what went
    wrong, None)`."""
    global _armed, _playing
    try:
        _playing = _armed = True
        if _stopped:
            raise MatchInterrupted(f"match {task.number} was not started")
        for name in sorted(_names(task) & set(_lost)):
            raise ArenaError(
                f"{name!r}, registered in the main process, cannot be loaded in a worker process "
                f"({_lost[name]}): define it in an importable module, or play in one process "
                "(jobs=1)"
            )
        return ("done", *_play_timed(task))
    except (MatchInterrupted, KeyboardInterrupt):
        return "interrupted", "", None
    except Exception as error:
        return "failed", _what(error), None
    finally:
        _playing = False


@contextmanager
def _signals_held() -> Iterator[list[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP while worker processes start or stop; deliver them after.

    A signal raised while a process starts could leave it unknown to us, and so running; one
    raised while the workers stop could leave them running too. The signals are blocked (a new
    process inherits this, and unblocks them once its handlers are in place) and, if one reaches
    this process through another thread, recorded: when the block ends, its handler runs as if
    the signal had just come.

    Outside the main thread, where no handler can be set (and where Python raises no signal),
    they are only blocked in this thread: a worker started here still starts with them blocked,
    so a stop that signals it before its handlers are in place is held for them, not lost in
    a traceback.

    Yields the signals held so far (in the main thread), for a loop that wants to stop early.
    """
    blocked = hasattr(signal, "pthread_sigmask")
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS) if blocked else set()
        try:
            yield held
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous = {signum: signal.signal(signum, hold) for signum in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS) if blocked else set()
    try:
        yield held
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # what came meanwhile is held now
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(held):
            handler = previous[signum]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


def _start_the_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, before any signal is held.

    The first process started with `spawn` starts the tracker too, and doing so unblocks SIGINT
    and SIGTERM in the calling thread: inside [`_signals_held`][] that would let a signal through
    while the workers start, and start them with the signals unblocked. Once the tracker runs,
    starting a worker leaves the signal mask alone.
    """
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()


class _Worker:
    """A worker process, the main process's end of its pipe, and the matches sent to it."""

    def __init__(self, context: Any, shipped: Shipped) -> None:
        ours, theirs = context.Pipe(duplex=True)
        self.process = context.Process(
            target=_worker_main, args=(theirs, shipped), name="abstractgames-arena"
        )
        self.connection = ours
        self.tasks: deque[MatchTask] = deque()
        """The matches sent, in order: the first is being played."""
        try:
            self.process.start()
        finally:
            theirs.close()  # so that the worker sees the end of the pipe when we go

    def give(self, task: MatchTask) -> None:
        """Send `task` to play after those already sent."""
        self.tasks.append(task)
        try:
            self.connection.send(task)
        except OSError:
            raise ArenaError(_died(self.tasks[0])) from None

    def retire(self) -> None:
        """Tell the worker to end, once it has nothing more to play."""
        with suppress(OSError):
            self.connection.send(None)

    def stop(self) -> None:
        """Stop the match being played, and close the pipe: the worker then ends."""
        self.interrupt()
        self.connection.close()

    def interrupt(self) -> None:
        """Ctrl-C in the worker, if it plays a match: the match stops, no other starts."""
        if self.tasks and self.process.exitcode is None:
            with suppress(OSError):
                os.kill(self.process.pid, signal.SIGINT)


def _died(task: MatchTask) -> str:
    return f"a worker process died (killed, or out of memory?) during match {task.number}"


def _stop(workers: list[_Worker]) -> None:
    """Stop every worker and wait for it; kill one that does not end within `_GRACE`."""
    from multiprocessing.connection import wait

    for worker in workers:
        worker.stop()
    deadline = time.monotonic() + _GRACE
    while (left := [w for w in workers if w.process.exitcode is None]) and (
        remaining := deadline - time.monotonic()
    ) > 0:
        if not wait([w.process.sentinel for w in left], min(remaining, _NUDGE)):
            for worker in left:
                worker.interrupt()  # in case the first signal was lost
    for worker in workers:
        if worker.process.exitcode is None:
            worker.process.kill()
            worker.process.join()
        worker.process.close()


class ProcessExecutor(Executor):
    """Plays the matches in `jobs` local worker processes (started afresh, with `spawn`).

    Ctrl-C, SIGTERM and SIGHUP stop the matches being played (the players are closed, external
    programs quit) and the ones not yet started; every worker is waited for (and killed if it
    does not end within ten seconds) before the `KeyboardInterrupt` goes on. A `stop` event
    ([`Executor.timed_results`][]) stops them the same way, from any thread: within a tenth of
    a second each worker is signalled as Ctrl-C signals it, and the results end once every
    worker is gone.
    """

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise ArenaError(f"jobs must be at least 1, not {jobs}")
        self.jobs = jobs
        self.slots = jobs

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        return _untimed(self.timed_results(tasks))

    def timed_results(
        self, tasks: Sequence[MatchTask], stop: threading.Event | None = None
    ) -> TimedResults:
        if not tasks or _stopped_by(stop):
            return
        import multiprocessing
        from multiprocessing.connection import wait

        shipped = _ship_registrations(tasks)
        context = multiprocessing.get_context("spawn")
        _start_the_resource_tracker()
        upcoming = iter(tasks)
        workers: list[_Worker] = []
        try:
            with _signals_held():
                for _ in range(min(self.jobs, len(tasks))):
                    workers.append(_Worker(context, shipped))
            for _ in range(2):  # two each: the second waits in the pipe, not for us
                for worker in workers:
                    for task in itertools.islice(upcoming, 1):
                        worker.give(task)
            while (busy := [worker for worker in workers if worker.tasks]) and not _stopped_by(
                stop
            ):
                ready = wait(
                    [w.connection for w in busy] + [w.process.sentinel for w in busy], _STOP_POLL
                )
                if (interrupt := pending_interrupt()) is not None:
                    raise interrupt  # a Ctrl-C that Python dropped (in an import, say)
                for worker in busy:
                    if worker.connection not in ready and worker.process.sentinel not in ready:
                        continue
                    task = worker.tasks.popleft()
                    try:
                        kind, text, seconds = worker.connection.recv()
                    except (EOFError, OSError):
                        raise ArenaError(_died(task)) from None
                    if kind == "interrupted":
                        if _stopped_by(stop):  # signalled by someone else as we stop: no matter
                            return
                        raise KeyboardInterrupt
                    if kind != "done":
                        raise _failed(task, text)
                    for following in itertools.islice(upcoming, 1):
                        worker.give(following)
                    if not worker.tasks:
                        worker.retire()
                    yield task, text, seconds
        finally:
            with _signals_held():  # a second Ctrl-C must not cut the clean-up short
                _stop(workers)


# --- dask.distributed ---------------------------------------------------------------------------

WORKER_TIMEOUT = 60.0
"""How long the dask executor waits, by default, for a worker when the cluster has none."""
_MAX_SECONDS = 86_400.0
_POLL = 1.0  # seconds between two checks of the cluster's workers while no match finishes
_RECOUNT = 5.0  # seconds between two counts of the cluster's threads while matches finish


def _seconds(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArenaError(f"{what} must be a number of seconds, not {excerpt(value)}")
    if not (0 < value <= _MAX_SECONDS and math.isfinite(value)):
        raise ArenaError(
            f"{what} must be more than 0 and at most {_MAX_SECONDS:g} seconds (a day), "
            f"not {value:g}"
        )
    return float(value)


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class DaskExecutor(Executor):
    """Plays the matches on a dask.distributed cluster (the `dask` extra).

    Every worker needs this version of abstractgames installed, and every external program the
    player specs name at the same path. Ctrl-C (SIGTERM, SIGHUP) cancels the matches not yet
    started; the ones running finish on their workers, and their results are dropped. A `stop`
    event ([`Executor.timed_results`][]) does the same from any thread, within a second. A
    signal is acted on between two calls to the dask client (within a second), never inside
    one: raised in the middle of the client's own code, it could be swallowed there or leave
    the client's threads printing tracebacks.

    When the cluster has no worker (at the start, or because all of them left), the executor
    says so through `notify` and waits `worker_timeout` seconds for one; then it gives up
    with an [`ArenaError`][].

    Args:
        address: the scheduler, e.g. `"tcp://10.0.0.5:8786"`.
        timeout: seconds to wait for the connection.
        worker_timeout: seconds to wait for a worker when there is none (default 60).
        notify: where that wait is announced (default: a line on standard error).

    Raises:
        ArenaError: a time that is not a number of seconds between 0 and a day.
    """

    def __init__(
        self,
        address: str,
        timeout: float = 30.0,
        worker_timeout: float = WORKER_TIMEOUT,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.address = address
        self.timeout = _seconds(timeout, "the time to connect to the scheduler")
        self.worker_timeout = _seconds(worker_timeout, "the time to wait for a dask worker")
        self.notify = notify or _to_stderr

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        return _untimed(self.timed_results(tasks))

    def timed_results(
        self, tasks: Sequence[MatchTask], stop: threading.Event | None = None
    ) -> TimedResults:
        if not tasks or _stopped_by(stop):
            return
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
        running: dict[str, tuple[Any, MatchTask]] = {}
        finished: queue.Queue[Any] = queue.Queue()
        # The client's threads were started above, taking the signals; this one holds them and
        # looks at them between two calls to the client (they are delivered when the block ends).
        with _signals_held() as signalled:
            try:
                threads = self.slots = self._threads(
                    client, "waiting for dask workers at", signalled
                )
                counted = time.monotonic()
                upcoming = iter(tasks)
                exhausted = False
                while not _stopped_by(stop) and not signalled:
                    while not exhausted and len(running) < 2 * threads:
                        task = next(upcoming, None)
                        if task is None:
                            exhausted = True
                        else:
                            future = client.submit(_play_timed, task, pure=False)
                            running[future.key] = (future, task)
                            future.add_done_callback(finished.put)
                    if not running:
                        return
                    try:
                        future = finished.get(timeout=_POLL)
                    except queue.Empty:
                        future = None
                    if future is None or time.monotonic() - counted > _RECOUNT:
                        situation = "no dask worker is left at"
                        threads = self.slots = self._threads(client, situation, signalled)
                        counted = time.monotonic()
                    if future is None or future.key not in running:
                        continue
                    _, task = running.pop(future.key)
                    try:
                        text, seconds = future.result()
                    except Exception as error:
                        raise _failed(task, _what(error)) from error
                    yield task, text, seconds
            finally:
                with suppress(Exception):
                    client.cancel([future for future, _ in running.values()])
                with suppress(Exception):
                    client.close()

    def _threads(self, client: Any, situation: str, signalled: Sequence[int] = ()) -> int:
        """The threads of the cluster's workers; when there is none, say so and wait for one
        (a second at a time, so that a signal in `signalled` ends the wait).

        Raises:
            ArenaError: no worker came within [`worker_timeout`][], or the scheduler is lost.
        """
        try:
            threads = sum(client.nthreads().values())
            if threads:
                return int(threads)
            self.notify(
                f"{situation} {self.address}: waiting up to {self.worker_timeout:g} s for one "
                "to join"
            )
            deadline = time.monotonic() + self.worker_timeout
            while not signalled:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ArenaError(
                        f"no dask worker joined the scheduler at {self.address} within "
                        f"{self.worker_timeout:g} s: start workers (dask worker {self.address}), "
                        "or wait longer (--dask-wait)"
                    )
                try:
                    client.wait_for_workers(1, timeout=min(left, _POLL))
                    break
                except TimeoutError:
                    continue
            return max(int(sum(client.nthreads().values())), 1)
        except OSError as error:
            raise ArenaError(f"lost the dask scheduler at {self.address}: {error}") from None


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_DASK = re.compile(r"^dask://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(?P<port>\d{1,5})$")


def make_executor(
    spec: str | None = None, jobs: int | None = None, *, worker_timeout: float | None = None
) -> Executor:
    """The executor named by `spec`: `"local"` (the default) or `"dask://HOST:PORT"`.

    Locally, `jobs` processes play at once (default: one per core); one job plays in this
    process. A dask cluster plays as many matches at once as its workers have threads; it is
    given `worker_timeout` (see [`DaskExecutor`][]).

    Raises:
        ArenaError: an unknown executor, `jobs` given for a dask cluster, or
            `worker_timeout` for local processes.
    """
    if spec is None or spec.strip().lower() == "local":
        if worker_timeout is not None:
            raise ArenaError("the time to wait for workers is for a dask cluster")
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
    address = f"tcp://{found['host']}:{found['port']}"
    if worker_timeout is None:
        return DaskExecutor(address)
    return DaskExecutor(address, worker_timeout=worker_timeout)
