"""The marks of the suite are automatic (tests/conftest.py): a test that uses the browser is marked
`browser` by its fixture, a test measured as slow is marked `slow` from tests/slow_tests.txt, and
an unmarked test that takes too long fails, so that `pytest -m "not slow and not browser"` stays
quick without anyone remembering a mark."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parent.parent


class FakeItem:
    """What the guard reads of a test: its id and its marks."""

    def __init__(self, *marks: str) -> None:
        self.nodeid = "tests/test_x.py::test_x"
        self.marks = marks

    def iter_markers(self, name: str) -> Iterator[Any]:
        return iter([name] if name in self.marks else [])


def run_guarded(
    item: FakeItem, monkeypatch: pytest.MonkeyPatch, cpu: float, wall: float, load: float = 0.5
) -> None:
    """Runs the guard around a test that took `cpu` seconds of CPU and `wall` on the clock."""
    cpus, walls = iter([0.0, cpu]), iter([0.0, wall])  # then 0: this test's own guard passes
    monkeypatch.setattr(conftest, "cpu_seconds", lambda: 0.0)
    monkeypatch.setattr(conftest, "own_cpu_seconds", lambda: next(cpus, 0.0))
    monkeypatch.setattr(conftest, "wall_seconds", lambda: next(walls, 0.0))
    monkeypatch.setattr(conftest, "load_per_core", lambda: load)
    monkeypatch.setattr(conftest, "TIMES", None)
    monkeypatch.setattr(conftest.sys, "gettrace", lambda: None)
    monkeypatch.setattr(conftest, "PROFILE", "fast")
    hook: Any = conftest.pytest_runtest_call
    wrapper = hook(item)
    next(wrapper)
    with pytest.raises(StopIteration):
        wrapper.send(None)


def test_an_unmarked_test_over_a_second_of_cpu_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"took 2\.0 s of CPU.*slow_tests\.txt"):
        run_guarded(FakeItem(), monkeypatch, cpu=2.0, wall=2.1)


def test_an_unmarked_test_that_waits_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"10\.0 s on the clock"):
        run_guarded(FakeItem(), monkeypatch, cpu=0.1, wall=10.0)


def test_a_quick_test_and_a_marked_slow_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    run_guarded(FakeItem(), monkeypatch, cpu=0.3, wall=0.4)
    run_guarded(FakeItem("slow"), monkeypatch, cpu=30.0, wall=60.0)
    run_guarded(FakeItem("browser"), monkeypatch, cpu=30.0, wall=60.0)


def test_a_loaded_machine_stretches_the_clock_limit_not_the_cpu_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six processes a core: a test that waited 20 s on the clock but used little CPU is not
    failed for a busy machine; its CPU time still is checked."""
    run_guarded(FakeItem(), monkeypatch, cpu=0.2, wall=20.0, load=6.0)
    with pytest.raises(pytest.fail.Exception, match="of CPU"):
        run_guarded(FakeItem(), monkeypatch, cpu=2.0, wall=20.0, load=6.0)


def test_another_threads_cpu_is_not_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread an earlier test left running (a server's bot) spins while this test sleeps:
    the process used 0.6 s of CPU, the test none."""
    monkeypatch.setattr(conftest, "CPU_LIMIT", 0.3)
    monkeypatch.setattr(conftest, "TIMES", None)
    monkeypatch.setattr(conftest, "PROFILE", "fast")
    monkeypatch.setattr(conftest.sys, "gettrace", lambda: None)
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        before = conftest.cpu_seconds()
        hook: Any = conftest.pytest_runtest_call
        wrapper = hook(FakeItem())
        next(wrapper)
        time.sleep(0.6)
        with pytest.raises(StopIteration):
            wrapper.send(None)
        assert conftest.cpu_seconds() - before > 0.3  # the spinner's
    finally:
        stop.set()
        spinner.join()


def test_the_garbage_collectors_cpu_is_not_the_tests() -> None:
    garbage = []
    for _ in range(200_000):
        pair: list[Any] = []
        pair.append(pair)  # a cycle: only the collector frees it
        garbage.append(pair)
    del garbage, pair
    thread, own = time.thread_time(), conftest.own_cpu_seconds()
    gc.collect()
    thread, own = time.thread_time() - thread, conftest.own_cpu_seconds() - own
    assert thread > 0.01 and own < thread / 2


def test_the_thorough_profile_and_a_tracer_are_not_guarded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conftest, "PROFILE", "thorough")
    assert not conftest.is_guarded(FakeItem())  # type: ignore[arg-type]
    monkeypatch.setattr(conftest, "PROFILE", "fast")
    monkeypatch.setattr(conftest.sys, "gettrace", lambda: print)
    assert not conftest.is_guarded(FakeItem())  # type: ignore[arg-type]
    monkeypatch.setattr(conftest.sys, "gettrace", lambda: None)
    assert conftest.is_guarded(FakeItem())  # type: ignore[arg-type]


def test_the_slow_list_is_one_test_id_a_line() -> None:
    ids = conftest.slow_ids()
    assert len(ids) > 100
    for nodeid in ids:
        path = nodeid.split("::", 1)[0]
        assert (ROOT / path).is_file(), nodeid
        assert nodeid == nodeid.strip() and "\t" not in nodeid


@pytest.mark.slow
def test_the_quick_subset_leaves_out_the_browser_and_the_listed_tests(
    request: pytest.FixtureRequest,
) -> None:
    """The tests the README's quick command keeps (`-m "not slow and not browser"`, which reads
    the marks the collection gave): no test that uses the browser fixture (those of
    test_online_browser.py borrow it without a mark of their own), and no listed one. Read from
    this session's own collection, which is the whole suite's when the suite runs."""
    items = request.session.items
    if len(items) < 1000:
        pytest.skip("checked where the whole suite is collected")
    collected = {
        item.nodeid
        for item in items
        if item.get_closest_marker("slow") is None and item.get_closest_marker("browser") is None
    }
    assert len(collected) > 1000
    assert not [n for n in collected if n.startswith("tests/web/test_online_browser.py")]
    assert not [n for n in collected if n.startswith("tests/web/test_browser.py")]
    assert not collected & conftest.slow_ids()
