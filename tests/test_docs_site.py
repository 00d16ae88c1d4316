"""The documentation site, built once, read as a reader gets it: the HTML of every page.

One strict build (``mkdocs build --strict``) serves every check of this module: no raw markup
(``Sentinel.`` from a CLI reference that does not match click, Sphinx roles), no reference to
files a reader does not have, examples kept on their lines, every internal link and image
resolving. The examples of the reference pages are checked against real runs: the game records
of docs/record-format.md load and replay, and the engine sessions of docs/engine-protocol.md are
what our referee and engine say today. The browser check (marked ``browser``) takes screenshots
of a few pages with headless Chromium through ``scripts/docs-screenshots``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urljoin, urlsplit

import click
import pytest

try:
    import fcntl
except ImportError:  # Windows: each worker builds the site for itself
    fcntl = None  # type: ignore[assignment]

from abstractgames import get_game, make_player, parse_game_spec
from abstractgames.cli import main
from abstractgames.records import ClockSettings, GameRecord, MatchRecord
from abstractgames.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCREENSHOTS = ROOT / "scripts" / "docs-screenshots"


# --- the build, once --------------------------------------------------------------------------


@dataclass
class Build:
    """The result of ``mkdocs build --strict`` into ``site``."""

    site: Path
    returncode: int
    output: str


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The site, built once a test run: the worker processes of pytest-xdist that run this
    module's tests share one build (7 s of a core each) through a folder of the run, the first
    one to come building it under a lock."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None:
        shared = shared.parent  # the run's folder, above each worker's own
    site, result = shared / "docs-build" / "site", shared / "docs-build.json"
    with open(shared / "docs-build.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
            mkdocs = mkdocs or shutil.which("mkdocs")
            if mkdocs is None:
                pytest.fail(
                    "mkdocs is not installed; install the test extras: pip install -e '.[test]'"
                )
            done = subprocess.run(
                [mkdocs, "build", "--strict", "--site-dir", str(site)],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            said = {"returncode": done.returncode, "output": done.stdout + done.stderr}
            result.write_text(json.dumps(said), encoding="utf-8")
        said = json.loads(result.read_text(encoding="utf-8"))
    return Build(site, said["returncode"], said["output"])


@pytest.mark.slow
def test_docs_build_strict(build: Build) -> None:
    """The site builds with ``--strict``: no warning (a broken link, a missing page, a bad
    reference) passes."""
    assert build.returncode == 0, build.output
    assert (build.site / "index.html").exists()


@dataclass
class Page:
    """One HTML page of the built site, parsed."""

    path: str  # relative to the site, e.g. "cli/index.html"
    html: str
    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # visible text outside <pre>
    inline_code: list[str] = field(default_factory=list)  # <code> outside <pre>
    blocks: list[str] = field(default_factory=list)  # the text of each <pre>

    @property
    def visible(self) -> str:
        return " ".join(self.text + self.blocks)


class _Reader(HTMLParser):
    """Collects a page's ids, links, images, text, inline code and code blocks."""

    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.skip = 0  # inside <script> or <style>
        self.pre: list[str] | None = None
        self.code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in ("id", "name") if tag == "a" else ("id",):
            if values.get(name):
                self.page.ids.add(values[name])
        if tag in ("a", "link") and "href" in values:
            self.page.links.append(values["href"])
        if tag in ("img", "source") and values.get("src"):
            self.page.images.append(values["src"])
        if tag in ("img", "source") and values.get("srcset"):
            self.page.images += [part.split()[0] for part in values["srcset"].split(",")]
        if tag in ("script", "style"):
            self.skip += 1
        elif tag == "pre":
            self.pre = []
        elif tag == "code" and self.pre is None:
            self.code = []
        elif tag == "br" and self.pre is not None:
            self.pre.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip -= 1
        elif tag == "pre" and self.pre is not None:
            self.page.blocks.append("".join(self.pre))
            self.pre = None
        elif tag == "code" and self.code is not None:
            self.page.inline_code.append("".join(self.code))
            self.code = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre is not None:
            self.pre.append(data)
            return
        self.page.text.append(data)
        if self.code is not None:
            self.code.append(data)


@pytest.fixture(scope="module")
def pages(build: Build) -> dict[str, Page]:
    """Every HTML page of the site by its path, parsed (the build must have succeeded)."""
    if build.returncode:
        pytest.fail("the site did not build (see test_docs_build_strict)")
    found = {}
    for file in sorted(build.site.rglob("*.html")):
        path = file.relative_to(build.site).as_posix()
        page = Page(path, file.read_text(encoding="utf-8"))
        _Reader(page).feed(page.html)
        found[path] = page
    return found


def content_pages(pages: dict[str, Page]) -> Iterator[Page]:
    """The pages of the documentation (not the 404 page)."""
    return (page for path, page in pages.items() if path != "404.html")


def where(page: Page, text: str, match: re.Match[str]) -> str:
    """``page: …the text around the match…`` for a message."""
    start, end = max(match.start() - 60, 0), match.end() + 60
    return f"{page.path}: …{' '.join(text[start:end].split())}…"


def find_all(
    pages: dict[str, Page], pattern: re.Pattern[str], *, source: bool = False
) -> list[str]:
    """Where ``pattern`` occurs in the visible text (or, with ``source``, the HTML) of a page."""
    found: list[str] = []
    for page in content_pages(pages):
        text = page.html if source else page.visible
        found += [where(page, text, match) for match in pattern.finditer(text)]
    return found


# --- no raw markup, no internal notes ---------------------------------------------------------


@pytest.mark.slow
def test_no_click_sentinel_leaks(pages: dict[str, Page]) -> None:
    """A default shown as ``Sentinel.UNSET`` means a CLI reference out of step with click."""
    assert find_all(pages, re.compile(r"Sentinel\."), source=True) == []


@pytest.mark.slow
def test_no_raw_sphinx_roles(pages: dict[str, Page]) -> None:
    """``:class:`Game``` is Sphinx markup, which this site does not render."""
    roles = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):")
    assert find_all(pages, roles) == []


@pytest.mark.slow
def test_no_rules_file_a_reader_does_not_have(pages: dict[str, Page]) -> None:
    """The rules pages are the rules: no RULES.md, no RULES page, in the text or in a link."""
    assert find_all(pages, re.compile(r"\bRULES\b")) == []
    assert find_all(pages, re.compile(r"RULES\.md"), source=True) == []


@pytest.mark.slow
def test_no_reference_to_the_projects_rules_sources(pages: dict[str, Page]) -> None:
    """The sources are cited by their published names, never as the project's "seeds".

    Only the project's words for its sources are refused: "seed 003", "the seed's diagrams",
    "seeds/". A seed of random choices (``--seed 7``, "the match seed") is what it says.
    """
    internal = re.compile(r"\bseeds?\s+0\d\d\b|\bthe\s+seed['’]s\b|\bseeds/", re.IGNORECASE)
    assert find_all(pages, internal) == []


# --- examples keep their lines ----------------------------------------------------------------

_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


def page_path(source: Path) -> str:
    """The built page of a Markdown file: ``docs/cli.md`` is ``cli/index.html``."""
    relative = source.relative_to(DOCS).with_suffix("")
    if relative.name == "index":
        return (relative.parent / "index.html").as_posix().removeprefix("./")
    return f"{relative.as_posix()}/index.html"


@pytest.mark.slow
def test_every_multi_line_example_stays_multi_line(pages: dict[str, Page]) -> None:
    """Each fenced block of several lines in a page's Markdown is a code block of the same lines
    in its HTML, never one line."""
    collapsed = []
    for source in sorted(DOCS.rglob("*.md")):
        page = pages.get(page_path(source))
        if page is None:  # a page left out of the site
            continue
        blocks = {_lines(block) for block in page.blocks}
        for match in _FENCE.finditer(source.read_text(encoding="utf-8")):
            body = textwrap.dedent(match["body"])
            lines = _lines(body)
            if len(lines) > 1 and "--8<--" not in body and lines not in blocks:
                collapsed.append(f"{page.path}: the block starting {lines[0]!r}")
    assert collapsed == []


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.rstrip() for line in text.strip("\n").split("\n"))


@pytest.mark.slow
def test_no_doctest_is_collapsed_to_one_line(pages: dict[str, Page]) -> None:
    """A Python prompt ``>>>`` starts a line of a code block: never two on one line, never one in
    running text (a docstring example that lost its line breaks)."""
    collapsed = []
    for page in content_pages(pages):
        for block in page.blocks:
            for line in block.split("\n"):
                if ">>> " in line.lstrip().removeprefix(">>> "):
                    collapsed.append(f"{page.path}: {line.strip()[:100]!r}")
        for text in page.text:
            if re.search(r">>> \S", text):
                collapsed.append(f"{page.path}: {' '.join(text.split())[:100]!r}")
    assert collapsed == []


_DIRECTIVE = re.compile(r"\s*# doctest:.*$")
"""A doctest directive, which the API reference leaves out."""


def docstring_examples() -> Iterator[tuple[str, list[str]]]:
    """``(where, lines)`` of every doctest example of several lines in the package's docstrings."""
    for file in sorted((ROOT / "src" / "abstractgames").rglob("*.py")):
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(
                node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
            ):
                continue
            docstring = ast.get_docstring(node)
            if not docstring or ">>>" not in docstring:
                continue
            for example in re.split(r"\n[ \t]*\n", docstring):
                lines = [_DIRECTIVE.sub("", line).strip() for line in example.split("\n")]
                start = next((i for i, line in enumerate(lines) if line.startswith(">>>")), None)
                if start is not None and len(lines) - start > 1:
                    yield f"{file.relative_to(ROOT)}", lines[start:]


@pytest.mark.slow
def test_docstring_examples_stay_multi_line(pages: dict[str, Page]) -> None:
    """A docstring example of several lines that the API reference shows is a code block with
    its lines, not one line (its first line and its second are lines of one block)."""
    blocks = [block for page in content_pages(pages) for block in page.blocks]
    lines_of = [{line.strip() for line in block.split("\n")} for block in blocks]
    everything = " ".join([*blocks, *(" ".join(page.text) for page in content_pages(pages))])
    collapsed = []
    for where, lines in docstring_examples():
        first, second = lines[0], lines[1]
        shown = [block for block in lines_of if first in block]
        if shown and not any(second in block for block in shown):
            collapsed.append(f"{where}: {first!r} is not followed by {second!r}")
        elif not shown and first in everything:
            collapsed.append(f"{where}: {first!r} does not begin a line of a code block")
    assert collapsed == []


# --- links and images -------------------------------------------------------------------------

_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def resolve(site: Path, page: Page, link: str) -> tuple[Path, str] | None:
    """The file and the anchor an internal link of ``page`` points to; ``None`` if external."""
    if _EXTERNAL.match(link):
        return None
    url = urlsplit(urljoin(f"http://site/{page.path}", link))
    path = unquote(url.path).lstrip("/")
    target = site / path
    if path == "" or path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, unquote(url.fragment)


@pytest.mark.slow
def test_every_internal_link_resolves(build: Build, pages: dict[str, Page]) -> None:
    """Every ``href`` of every page leads to a file of the site, and its ``#anchor`` to an
    element of that page."""
    broken = []
    for page in pages.values():
        for link in page.links:
            resolved = resolve(build.site, page, link)
            if resolved is None:
                continue
            target, anchor = resolved
            if not target.is_file():
                broken.append(f"{page.path}: {link} (no {target.relative_to(build.site)})")
                continue
            if anchor and target.suffix == ".html":
                other = pages.get(target.relative_to(build.site).as_posix())
                if other is None or anchor not in other.ids:
                    broken.append(f"{page.path}: {link} (no #{anchor} there)")
    assert broken == []


@pytest.mark.slow
def test_every_image_exists(build: Build, pages: dict[str, Page]) -> None:
    missing = []
    for page in pages.values():
        for image in page.images:
            resolved = resolve(build.site, page, image)
            if resolved is not None and not resolved[0].is_file():
                missing.append(f"{page.path}: {image}")
    assert missing == []


# --- the command line reference ---------------------------------------------------------------


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks_site", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_shows_defaults_as_help_does() -> None:
    """The reference's defaults are click's own: the ones ``--help`` shows, for every option of
    every command (none of them click's ``UNSET``)."""
    hooks = load_hooks()
    context = main.make_context("abstractgames", [], resilient_parsing=True)
    commands = [(main, context)]
    for name, command in hooks.subcommands(main, context):
        commands.append(
            (command, command.make_context(name, [], parent=context, resilient_parsing=True))
        )
    found = {n: main.get_command(context, n) for n in main.list_commands(context)}
    visible = [n for n, command in found.items() if command is not None and not command.hidden]
    assert len(commands) == 1 + len(visible)
    for command, ctx in commands:
        for param in command.get_params(ctx):
            if not isinstance(param, click.Option) or param.hidden:
                continue
            shown = hooks.shown_default(param, ctx)
            extra = getattr(param, "get_help_extra", None)
            if extra is not None:  # click 8.2 and later
                assert shown == extra(ctx).get("default"), (ctx.command_path, param.name)
            record = param.get_help_record(ctx)
            assert record is not None
            if shown is not None:
                assert f"default: {shown}" in record[1], (ctx.command_path, param.name)


@pytest.mark.slow
def test_the_cli_page_lists_every_command_with_its_usage(pages: dict[str, Page]) -> None:
    page = pages["cli/index.html"]
    context = main.make_context("abstractgames", [], resilient_parsing=True)
    for name in main.list_commands(context):
        command = main.get_command(context, name)
        assert command is not None
        if command.hidden:  # run by the library (the worker of an isolated bot), not by people
            continue
        sub = command.make_context(name, [], parent=context, resilient_parsing=True)
        usage = " ".join([sub.command_path, *command.collect_usage_pieces(sub)])
        assert usage in page.blocks or f"{usage}\n" in page.blocks, usage
        assert f"abstractgames-{name}" in page.ids
    text = page.visible
    for default in ("2000", "greedy", "human", "60.0", "local", "one per core"):
        assert default in text


# --- the record format ------------------------------------------------------------------------

_RECORD = re.compile(r"<!-- record: (?P<name>\S+) -->\n```json\n(?P<json>.*?)\n```", re.DOTALL)


def record_examples() -> dict[str, str]:
    page = (DOCS / "record-format.md").read_text(encoding="utf-8")
    return {match["name"]: match["json"] + "\n" for match in _RECORD.finditer(page)}


def test_the_record_examples_load_and_replay() -> None:
    examples = record_examples()
    assert set(examples) == {"game.json", "resigned.json"}
    for name, text in examples.items():
        record = MatchRecord.loads(text)
        match, finals = record.replay()
        assert len(finals) == len(record.games), name
        assert record.result is not None and match.result() == record.result, name
        assert record.dumps() == text, f"{name} is not as a record is written"


def test_the_first_record_example_is_what_play_writes() -> None:
    """``abstractgames play orderchaos -1 greedy -2 random --seed 0 --record game.json``."""
    game = get_game("orderchaos")
    players = (make_player("greedy", game), make_player("random", game))
    assert Referee(game, players, seed=0).play().dumps() == record_examples()["game.json"]


def test_the_second_record_example_is_a_resignation_with_a_clock() -> None:
    record = MatchRecord.loads(record_examples()["resigned.json"])
    assert record.clock == ClockSettings(300, 2) and record.seed == 7
    assert [move.player for move in record.games[0].moves] == [None, 1, 2, None, 1]
    end = record.games[0].ended_by
    assert end is not None and (end.event, end.player) == ("resigned", 2)


# --- the engine protocol's sessions -----------------------------------------------------------

SPY = r"""
import subprocess, sys, threading
log = open(sys.argv[1], "w", encoding="utf-8")
lock = threading.Lock()
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def answers():
    for line in child.stdout:
        with lock:
            log.write("< " + line)
            log.flush()
        sys.stdout.write(line)
        sys.stdout.flush()
thread = threading.Thread(target=answers)
thread.start()
for line in sys.stdin:
    with lock:
        log.write("> " + line)
        log.flush()
    child.stdin.write(line)
    child.stdin.flush()
    if line.split() == ["quit"]:
        break
child.stdin.close()
child.wait()
thread.join()
"""
"""A program between the referee and an engine that logs both sides: ``> `` the referee's lines,
``< `` the engine's."""


@dataclass(frozen=True)
class Session:
    """A match between our engine (``engine``: the arguments of ``abstractgames engine``) in
    ``seat`` and ``other``, as the page describes it."""

    game: str
    seat: int
    engine: tuple[str, ...]
    other: str
    seed: int
    clock: str | None = None
    start: str | None = None


SESSIONS = {
    "orderchaos": Session("orderchaos", 1, ("--player", "greedy"), "random", 0, clock="60+1"),
    "entropy": Session("entropy:size=5", 2, ("--player", "greedy"), "random", 1),
    "dispersal": Session("dispersal", 2, ("--player", "greedy"), "random", 0),
    "fen": Session(
        "dispersal", 1, ("--player", "greedy"), "random", 0, start="S1O1S/O3O/OSSOS/S4/2OOS O"
    ),
    "refusal": Session("dispersal", 2, ("orderchaos", "--player", "greedy"), "random", 0),
}


def play_session(session: Session, log: Path) -> list[str]:
    """The lines of a real session between our referee and our engine."""
    game = parse_game_spec(session.game)
    engine = [sys.executable, "-m", "abstractgames", "engine", *session.engine]
    spec = "engine:" + shlex.join([sys.executable, "-c", SPY, str(log), *engine])
    players = [make_player(session.other, game), make_player(session.other, game)]
    players[session.seat - 1] = make_player(spec, game)
    clock = None if session.clock is None else ClockSettings.parse(session.clock)
    referee = Referee(game, (players[0], players[1]), seed=session.seed, clock=clock)
    record = None
    if session.start is not None:
        record = referee.new_record()
        record.games.append(GameRecord(number=1, start=session.start))
    referee.play(record)
    return log.read_text(encoding="utf-8").splitlines()


_DIALOGUE = re.compile(
    r"<!-- (?P<kind>example|excerpt): (?P<name>\S+) -->\n(?P<indent>[ ]*)```text\n(?P<body>.*?)\n"
    r"(?P=indent)```",
    re.DOTALL,
)


def page_sessions() -> list[tuple[str, str, list[str]]]:
    """``(kind, name, lines)`` of every session shown on docs/engine-protocol.md."""
    page = (DOCS / "engine-protocol.md").read_text(encoding="utf-8")
    return [
        (m["kind"], m["name"], textwrap.dedent(m["body"]).split("\n"))
        for m in _DIALOGUE.finditer(page)
    ]


_TIMES = re.compile(r"^> go time (?P<time>[\d.]+) timeout (?P<timeout>[\d.]+) ")


def same_session(shown: list[str], real: list[str], clock: bool) -> bool:
    """Whether the page's lines are the real ones (with a clock, the times may differ: each
    ``go`` must give a time and wait it plus the 2 s grace)."""
    if not clock:
        return shown == real
    if len(shown) != len(real):
        return False
    for mine, theirs in zip(shown, real, strict=True):
        times = _TIMES.match(mine)
        if times is None:
            if mine != theirs:
                return False
            continue
        time, timeout = float(times["time"]), float(times["timeout"])
        if abs(timeout - time - 2) > 1e-6 or _TIMES.sub("> go ", mine) != _TIMES.sub(
            "> go ", theirs
        ):
            return False
    return True


def is_excerpt(shown: list[str], real: list[str]) -> bool:
    """Whether the lines of ``shown`` but its ``…`` are lines of ``real``, in order."""
    position = 0
    for line in shown:
        if line == "…":
            continue
        try:
            position = real.index(line, position) + 1
        except ValueError:
            return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="external programs need POSIX")
def test_the_engine_protocol_sessions_are_real(tmp_path: Path) -> None:
    """Every session on the Engine protocol page is what our referee and engine say today."""
    shown = page_sessions()
    assert {name for kind, name, _ in shown if kind == "example"} == {
        "orderchaos",
        "entropy",
        "dispersal",
        "refusal",
    }
    assert {name for kind, name, _ in shown} == set(SESSIONS)
    real = {name: play_session(s, tmp_path / f"{name}.log") for name, s in SESSIONS.items()}
    for kind, name, lines in shown:
        if kind == "example":
            assert same_session(lines, real[name], SESSIONS[name].clock is not None), (
                name + ":\n" + "\n".join(real[name])
            )
        else:
            assert is_excerpt(lines, real[name]), name + ":\n" + "\n".join(real[name])
    first_go = next(line for line in real["orderchaos"] if line.startswith("> go "))
    assert first_go == "> go time 60 timeout 62 seed 0/1/0/player1"


_OUTLINE = re.compile(r"## Writing an engine\n.*?```python\n(?P<code>.*?)\n```", re.DOTALL)

CHOOSE_MOVE = """
from abstractgames import get_game

GAME = get_game("orderchaos")


def choose_move(start, moves):
    state = GAME.initial_state() if start is None else GAME.from_position(start)
    for move in moves:
        state = state.apply(move)
    return str(state.legal_moves()[0])
"""


@pytest.mark.skipif(sys.platform == "win32", reason="external programs need POSIX")
def test_the_outline_of_an_engine_plays_a_match(tmp_path: Path) -> None:
    """The engine outlined on the Engine protocol page, given a ``choose_move``, plays whole
    games of Order and Chaos through our referee, in either seat, and refuses another game."""
    outline = _OUTLINE.search((DOCS / "engine-protocol.md").read_text(encoding="utf-8"))
    assert outline is not None
    engine = tmp_path / "engine.py"
    engine.write_text(CHOOSE_MOVE + "\n" + outline["code"] + "\n", encoding="utf-8")
    spec = "engine:" + shlex.join([sys.executable, str(engine)])
    game = get_game("orderchaos")
    for seat in (1, 2):
        players = [make_player("random", game), make_player("random", game)]
        players[seat - 1] = make_player(spec, game)
        record = Referee(game, (players[0], players[1]), seed=3).play()
        assert record.finished and all(g.ended_by is None for g in record.games), seat
    other = get_game("dispersal")
    record = Referee(other, (make_player(spec, other), make_player("random", other))).play()
    end = record.games[0].ended_by
    assert end is not None and "I only play orderchaos" in end.reason


# --- the browser check ------------------------------------------------------------------------


def load_screenshots() -> ModuleType:
    from importlib.machinery import SourceFileLoader

    loader = SourceFileLoader("docs_screenshots", str(SCREENSHOTS))
    spec = importlib.util.spec_from_loader("docs_screenshots", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_screenshot_script_is_an_executable_with_its_usage() -> None:
    assert SCREENSHOTS.stat().st_mode & 0o111
    module = load_screenshots()
    assert module.__doc__ and "scripts/docs-screenshots" in module.__doc__
    assert module.picture_name("api/core/index.html") == "api-core"
    assert module.picture_name("index.html") == "index"


@pytest.mark.browser
def test_pages_in_a_browser(build: Build, tmp_path: Path) -> None:
    """Three pages, served on 127.0.0.1, in headless Chromium: each gives a full-page PNG."""
    chromium = load_screenshots().find_chromium()
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set CHROMIUM=PATH)")
    if build.returncode:
        pytest.fail("the site did not build (see test_docs_build_strict)")
    out = tmp_path / "shots"
    pages = ["index.html", "cli/", "engine-protocol/"]
    done = subprocess.run(
        [sys.executable, str(SCREENSHOTS), "--site", str(build.site), "--out", str(out), *pages],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("index", "cli", "engine-protocol"):
        picture = (out / f"{name}.png").read_bytes()
        assert picture.startswith(b"\x89PNG\r\n\x1a\n") and len(picture) > 10_000, name
        width, height = _png_size(picture)
        assert width == 1280 and height > 600, (name, width, height)


def _png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG, from its header."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


NS = {"svg": "http://www.w3.org/2000/svg"}
FIG_2 = "S1O1S/O3O/OSSOS/S4/2OOS O"


def pieces(root: ET.Element) -> dict[str, str]:
    found = root.findall(".//svg:g[@class='piece']", NS)
    by_square = {g.attrib["data-square"]: g.attrib["data-piece"] for g in found}
    assert len(by_square) == len(found), "one piece element per square"
    return by_square


def marks(root: ET.Element) -> dict[str, str]:
    found = root.findall(".//svg:rect[@class='mark']", NS)
    return {r.attrib["data-square"]: r.attrib["data-reason"] for r in found}


def squares_of(root: ET.Element, cls: str) -> set[str]:
    return {e.attrib["data-square"] for e in root.findall(f".//*[@class='{cls}']", NS)}


# --- the docs hook --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hook_replaces_markers_outside_code(hooks: ModuleType) -> None:
    page = "\n".join(
        [
            "Text.",
            f'<!-- board dispersal "{FIG_2}" highlight=a4,c4 caption="Fig. 2 <O>" -->',
            "```markdown",
            '<!-- board orderchaos "6/6/6/6/6/6 order" -->',
            "```",
            '    <!-- board entropy row="RBBR" marks=b1,c1 size=30 -->',
        ]
    )
    out = hooks.render_markers(page).split("\n")
    assert out[0] == "Text."
    assert out[1] == '<figure class="board-diagram">'
    assert '<!-- board orderchaos "6/6/6/6/6/6 order" -->' in out
    html = "\n".join(out)
    assert html.count("<figure") == 2 and "<figcaption>Fig. 2 &lt;O&gt;</figcaption>" in html
    assert out[-1] == "    </figure>"  # indented like the marker, e.g. inside an admonition
    figures = [ET.fromstring(f) for f in re.findall(r"<figure.*?</figure>", html, re.DOTALL)]
    first = figures[0].find("svg:svg", NS)
    assert first is not None
    assert marks(first) == {"c5": "isolated"}
    assert squares_of(first, "highlight") == {"a4", "c4"}
    row = figures[1].find("svg:svg", NS)
    assert row is not None and pieces(row) == {"a1": "R", "b1": "B", "c1": "B", "d1": "R"}
    assert set(marks(row)) == {"b1", "c1"} and row.attrib["width"] == "126"
    assert row.find(".//svg:g[@class='coordinates']", NS) is None


@pytest.mark.parametrize(
    "marker",
    [
        '<!-- board chess "8/8/8/8/8/8/8/8 w" -->',
        '<!-- board orderchaos "6/6/6/6/6/6 chaos" -->',
        '<!-- board orderchaos "6/6/6/6/6/6 order" colour=red -->',
        '<!-- board orderchaos "6/6/6/6/6/6 order" highlight=z9 -->',
        '<!-- board entropy row="RQR" -->',
        '<!-- board entropy "7/7/7/7/7/7/7 draw -->',
        "<!-- board entropy -->",
    ],
)
def test_hook_stops_the_build_on_a_bad_marker(hooks: ModuleType, marker: str) -> None:
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=r"games/x\.md, line 2: <!-- board"):
        hooks.render_markers(f"Intro\n{marker}\n", "games/x.md")


# --- the site leads to every way to play, and shows what each guide gives (issue 54, item 5) ----

WAYS_TO_PLAY = {
    "the terminal": "playing/",
    "the browser": "web/",
    "online play": "online/",
    "e-mail play": "mail/",
    "positions": "playing/#start-from-a-position",
}


def links_of(pages: dict[str, Page], path: str) -> set[str]:
    """The site paths a page links to (`playing/`, `playing/#start-from-a-position`)."""
    page = pages[path]
    found = set()
    for link in page.links:
        target = urljoin("https://site/" + page.path, link)
        if target.startswith("https://site/"):
            found.add(target.removeprefix("https://site/").replace("index.html", ""))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("path", ["index.html", "getting-started/index.html"])
def test_home_and_install_lead_to_every_way_to_play(pages: dict[str, Page], path: str) -> None:
    linked = links_of(pages, path)
    missing = [way for way, target in WAYS_TO_PLAY.items() if target not in linked]
    assert missing == [], f"{path} has no link to {', '.join(missing)}"


@pytest.mark.slow
def test_start_here_plays_the_readmes_game(pages: dict[str, Page]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)\n```", readme, re.S)
    assert first is not None
    assert first[1].strip() in [block.strip() for block in pages["index.html"].blocks]


GUIDES = [
    "playing", "web", "online", "server", "club", "mail", "pictures", "arena", "engines", "codecup",
    "testing-kit", "rl", "vector", "add-a-game",
]  # fmt: skip
"""The how-to pages (the Guides of the site's navigation)."""

FILE_LETTERS = re.compile(r"^\s*a( +)b\1c(\1[d-z])*\s*$", re.M)


@pytest.mark.slow
def test_the_guides_are_the_navigations_guides() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    guides = config.split("  - Guides:\n")[1].split("\n  - ")[0]
    assert re.findall(r": (\S+)\.md", guides) == GUIDES


@pytest.mark.slow
@pytest.mark.parametrize("guide", GUIDES)
def test_each_guide_shows_its_result(pages: dict[str, Page], guide: str) -> None:
    """A picture (a screenshot, a board drawn by the docs hook), a board as the terminal draws
    it, or a console session with what the command printed."""
    page = pages[f"{guide}/index.html"]
    pictures = page.images or 'class="board-diagram"' in page.html
    boards = any(FILE_LETTERS.search(block) for block in page.blocks)
    sessions = any(re.search(r"^\$ abstractgames .*\n[^$\s]", block, re.M) for block in page.blocks)
    assert pictures or boards or sessions, f"{guide}: no board, picture or session shows a result"


@pytest.mark.browser
def test_command_blocks_fit_at_1280_and_800_pixels(build: Build) -> None:
    """Every page at 1280 and 800 pixels wide in headless Chromium: no command block (bash, sh,
    a console session) scrolls sideways, every code block keeps room for its copy button, and
    no page is wider than the window."""
    chromium = load_screenshots().find_chromium()
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set CHROMIUM=PATH)")
    if build.returncode:
        pytest.fail("the site did not build (see test_docs_build_strict)")
    sync_api = pytest.importorskip("playwright.sync_api")
    commands = ", ".join(
        f".md-content .language-{language} pre > code" for language in ("bash", "sh", "console")
    )
    check = """(commands) => ({
        cut: Array.from(document.querySelectorAll(commands))
            .filter(code => code.scrollWidth > code.clientWidth + 1)
            .map(code => code.textContent.split('\\n')[0].slice(0, 60)),
        cramped: Array.from(document.querySelectorAll('.md-content pre > code'))
            .filter(code => {
                const button = code.parentElement.querySelector('.md-code__button');
                if (!button || !button.offsetWidth) return false;
                const text = code.getBoundingClientRect().right
                    - parseFloat(getComputedStyle(code).paddingRight);
                return text > button.getBoundingClientRect().left + 1;
            }).length,
        commands: document.querySelectorAll(commands).length,
        wide: document.documentElement.scrollWidth > window.innerWidth,
    })"""
    files = [
        file
        for file in sorted(build.site.rglob("index.html"))
        if not {"assets", "search"} & set(file.relative_to(build.site).parts)
    ]
    problems, seen = [], 0
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            for file in files:
                for width in (1280, 800):
                    # The page's scripts come after its stylesheets, so the layout is final
                    # once the document is parsed; the pictures do not change it. The second
                    # width is the same page resized (as a window is): half the loading.
                    page.set_viewport_size({"width": width, "height": 900})
                    if width == 1280:
                        page.goto(file.as_uri(), wait_until="domcontentloaded")
                    found = page.evaluate(check, commands)
                    seen += found["commands"]
                    where = f"{width} px {file.relative_to(build.site).parent}"
                    problems += [f"{where}: cut {line!r}" for line in found["cut"]]
                    if found["cramped"]:
                        problems.append(f"{where}: {found['cramped']} blocks under the copy button")
                    if found["wide"]:
                        problems.append(f"{where}: the page scrolls sideways")
            page.close()
        finally:
            browser.close()
    assert seen > 100  # the command blocks were found
    assert problems == []
