"""The web app in a real headless Chromium: play by clicking, watch, replay, at phone width.

The server is `abstractgames serve` itself, on 127.0.0.1; the browser is Debian's `chromium`
(or the one `CHROMIUM` names) driven by Playwright's Python package. Without either, the tests
skip and say why. With `ABSTRACTGAMES_SCREENSHOTS=docs/images` they write the documentation's
pictures (`web-play.png`, `web-watch.png`, `web-replay.png`, `web-phone.png`) there; otherwise
into a temporary directory.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from abstractgames import IllegalMoveError, get_game, make_player, parse_game_spec
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="no playwright (pip install playwright; no browser download)"
)
pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from tests.conftest import StopAt  # noqa: E402
from tests.web.test_server import call, kept_records, server, split  # noqa: E402

Json = dict[str, Any]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-data")


@pytest.fixture(scope="module")
def url(data: Path, browser: Any) -> Iterator[str]:
    with server(data) as (process, address, _):
        yield address
        process.terminate()
        process.communicate(timeout=30)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and "Failed to load resource" not in m.text  # a 4xx answer
            else None
        ),
    )
    yield opened
    context.close()
    assert not errors, errors


def game_id(page: Any) -> str:
    page.wait_for_function("location.hash.startsWith('#/play/')")
    return str(page.evaluate("location.hash")).split("/")[2]


def until(url: str, game: str, ready: Callable[[Json], bool], seconds: float = 20) -> Json:
    deadline = time.monotonic() + seconds
    while True:
        snapshot: Json = call(url, f"/api/games/{game}")
        if ready(snapshot):
            return snapshot
        assert time.monotonic() < deadline, snapshot
        time.sleep(0.05)


def my_turn(snapshot: Json) -> bool:
    return snapshot["awaiting"] is not None or snapshot["status"] != "playing"


def start(page: Any, url: str, game: str, first: str, second: str, **more: str) -> str:
    """Fill in the form for a new game, start it, and return its id."""
    page.goto(url + "#/play")
    page.select_option("#new-game", game.partition(":")[0])
    for key, value in more.items():
        page.fill(f"#param-{key}", value)
    page.fill("#new-p1", first)
    page.fill("#new-p2", second)
    page.click("form.game-form button[type=submit]")
    return game_id(page)


def board_pieces(page: Any) -> dict[str, str]:
    """The pieces the page draws, by square."""
    found: dict[str, str] = page.eval_on_selector_all(
        ".board .piece",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.square, n.dataset.piece]))",
    )
    return found


def cells_by_square(snapshot: Json) -> dict[str, str]:
    width = snapshot["game"]["width"]
    files = "abcdefghijklmnopqrstuvwxyz"
    return {
        f"{files[i % width]}{i // width + 1}": piece
        for i, piece in enumerate(snapshot["position"]["cells"])
        if piece != "."
    }


def wait_for_board(page: Any, snapshot: Json) -> None:
    expected = cells_by_square(snapshot)
    deadline = time.monotonic() + 10
    while board_pieces(page) != expected:
        assert time.monotonic() < deadline, (board_pieces(page), expected)
        time.sleep(0.05)


def wait_for_turn(page: Any, snapshot: Json) -> None:
    """Wait until the page shows `snapshot`, squares to click included."""
    wait_for_board(page, snapshot)
    if snapshot["awaiting"] is not None and any(m["squares"] for m in snapshot["legal"]):
        page.wait_for_selector(".board .sq.clickable")


def test_a_whole_order_and_chaos_game_by_clicking(
    page: Any, url: str, data: Path, shots: Path
) -> None:
    game = start(page, url, "orderchaos", "human", "random")
    while True:
        snapshot = until(url, game, my_turn)
        wait_for_turn(page, snapshot)
        if snapshot["status"] == "finished":
            break
        count = len(snapshot["plies"])
        page.locator(".board .sq.clickable").first.click()
        chooser = page.locator(".chooser button[data-move]")
        chooser.first.wait_for()
        moves = sorted(chooser.evaluate_all("nodes => nodes.map(n => n.dataset.move)"))
        assert [move[0] for move in moves] == ["O", "X"]
        chooser.first.click()
        until(url, game, lambda s, n=count: len(s["plies"]) > n)
    page.locator(".banner .result").wait_for()
    result = snapshot["result"]
    assert page.inner_text(".banner .result") == headline(result, "random")
    winners = page.eval_on_selector_all(".card.winner", "nodes => nodes.map(n => n.dataset.player)")
    assert winners == ([] if result["winner"] is None else [str(result["winner"])])
    listed = page.inner_text(".move-list").split()
    moves = [p["move"] for p in snapshot["plies"]]
    assert [word for word in listed if "@" in word] == moves
    assert not list((data / "games").glob("*.json"))  # kept in the server's database
    (record,) = kept_records(data)
    record.replay()
    assert [m.move for m in record.games[0].moves] == moves
    page.click(".banner .rematch-button")  # the same game, the players in each other's seats
    page.wait_for_function(
        f"location.hash.startsWith('#/play/') && !location.hash.endsWith('{game}')"
    )
    rematch = until(url, game_id(page), my_turn)
    assert [p["spec"] for p in rematch["players"]] == ["random", "human"]
    assert rematch["game"]["spec"] == "orderchaos" and rematch["clock"] is None


def test_the_move_box_waits_for_the_server_to_say_whose_turn_it_is(page: Any, url: str) -> None:
    """Until the first snapshot comes, a move typed would go nowhere: the box and its button are
    disabled (they were enabled, and a move typed then was lost)."""
    game = start(page, url, "orderchaos", "human", "random")
    until(url, game, my_turn)
    page.route_web_socket(re.compile(r"/ws$"), lambda socket: None)  # open, and silent
    page.route(re.compile(r"/api/games/"), lambda route: None)  # no answer either
    page.reload()
    page.wait_for_selector(".move-text")
    assert page.is_disabled(".move-text") and page.is_disabled(".move-form button")
    page.unroute_all(behavior="ignoreErrors")


def headline(result: Json, bot: str) -> str:
    """What the banner says to the one person who played `bot`."""
    if result["winner"] is None:
        who = "A draw"
    else:
        who = "You won" if result["winner"] == 1 else f"You lost: {bot} wins"
    return f"{who} — {result['reason']}"


def test_the_form_opens_on_entropy_and_shows_the_board_of_the_game_chosen(
    page: Any, url: str
) -> None:
    page.goto(url + "#/play")
    page.wait_for_selector(".preview-board svg")
    assert page.input_value("#new-game") == "entropy"  # nothing chosen before in this browser
    squares = ".preview-board .sq"
    assert page.locator(squares).count() == 49
    page.fill("#param-size", "5")
    page.wait_for_function(f"document.querySelectorAll('{squares}').length === 25")
    page.select_option("#new-game", "dispersal")
    page.wait_for_function(f"document.querySelectorAll('{squares}').length === 25")
    assert page.locator(".preview-board .piece").count() == 14
    form = page.locator(".new-game").bounding_box()
    preview = page.locator(".preview").bounding_box()
    assert preview["x"] > form["x"] + form["width"] - 1  # the right half of the page is used


def test_a_game_starts_from_a_position_typed_in_the_form(page: Any, url: str) -> None:
    start = "X5/1O4/6/6/6/4OX order"  # a diagram pasted would do too
    page.goto(url + "#/play")
    page.select_option("#new-game", "orderchaos")
    page.click(".start-from summary")
    page.fill("#new-position", start)
    page.fill("#new-p2", "random")
    page.click("form.game-form button[type=submit]")
    game = game_id(page)
    snapshot = until(url, game, my_turn)
    assert (
        snapshot["plies"] == []
        and snapshot["start"] == get_game("orderchaos").from_position(start).position()
    )
    wait_for_turn(page, snapshot)
    assert board_pieces(page) == {"a6": "X", "b5": "O", "e1": "O", "f1": "X"}
    assert "e.g. " in page.get_attribute(".move-text", "placeholder")
    assert "@" in page.get_attribute(".move-text", "placeholder")  # this game's notation
    page.goto(url + "#/play")
    page.select_option("#new-game", "orderchaos")
    page.click(".start-from summary")
    page.fill("#new-position", "XXXXXX/6/6/6/6/6 order")
    page.click("form.game-form button[type=submit]")
    error = page.locator(".form-error")
    error.wait_for()
    assert error.inner_text().startswith("the start position: ")


def test_entropy_marks_its_palindromes_and_keeps_the_match_score(page: Any, url: str) -> None:
    made = call(
        url,
        "/api/games",
        {"game": "entropy:size=5", "players": ["greedy", "random"], "seed": 4, "pace": 0.0},
    )
    page.goto(url + f"#/play/{made['id']}")
    final = until(url, made["id"], lambda s: s["status"] == "finished", seconds=60)
    wait_for_board(page, final)
    marks = page.eval_on_selector_all(".board .mark", "nodes => nodes.map(n => n.dataset.square)")
    state = parse_game_spec("entropy:size=5").from_position(final["position"]["position"])
    names = sorted(f"{'abcde'[sq % 5]}{sq // 5 + 1}" for sq in state.marked_squares())
    assert sorted(marks) == names and names
    points = [0, 0]
    for finished in final["finished_games"]:
        for seat in (0, 1):
            points[seat] += finished["outcome"]["scores"][finished["roles"][seat]]
    assert final["result"]["scores"] == points
    assert page.inner_text(".tally") == f"Match: greedy {points[0]}, random {points[1]}"
    assert (
        page.evaluate("getComputedStyle(document.querySelector('.position')).fontVariantNumeric")
        == "slashed-zero"
    )


def test_an_unfinished_record_from_a_file_is_continued_here(
    page: Any, url: str, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    person = StopAt(3)
    person.spec = "human"
    record = Referee(game, (person, make_player("random", game)), seed=9).play()
    path = tmp_path / "from-a-friend.json"
    record.save(path)
    page.goto(url + "#/replay")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("location.hash === '#/replay/file'")
    page.click("button.continue-game")
    game_id(page)
    page.wait_for_selector(".board .sq.clickable")
    assert len(board_pieces(page)) == 4


def test_entropy_by_clicking_dragging_and_passing(page: Any, url: str, shots: Path) -> None:
    game = start(page, url, "entropy", "human", "greedy")
    for square in ("d4", "c5", "e3"):
        snapshot = until(url, game, my_turn)
        wait_for_turn(page, snapshot)
        drawn = snapshot["legal"][0]["piece"]
        assert page.locator(".to-place").inner_text().strip().endswith(drawn)
        page.click(f".board .sq[data-square={square}]")
        count = len(snapshot["plies"])
        after = until(url, game, lambda s, n=count: my_turn(s) and len(s["plies"]) > n + 2)
        assert cells_by_square(after).get(square) == drawn or any(
            p["move"] == f"{drawn}@{square}" for p in after["plies"]
        )

    game = start(page, url, "entropy", "greedy", "human")  # Order in game 1
    snapshot = until(url, game, my_turn)
    wait_for_turn(page, snapshot)
    slide = next(m for m in snapshot["legal"] if len(m["squares"]) == 2)
    source, target = slide["squares"]
    page.click(f".board .sq[data-square={source}]")
    targets = page.locator(".board .target-dot, .board .target-ring").count()
    assert targets == sum(1 for m in snapshot["legal"] if m["squares"][:1] == [source])
    page.click(f".board .sq[data-square={target}]")
    snapshot = until(url, game, lambda s: my_turn(s) and len(s["plies"]) >= 5)
    assert snapshot["plies"][2]["move"] == slide["move"]
    wait_for_turn(page, snapshot)

    slide = next(m for m in snapshot["legal"] if len(m["squares"]) == 2)
    source, target = slide["squares"]
    start_box = page.locator(f".board .sq[data-square={source}]").bounding_box()
    end_box = page.locator(f".board .sq[data-square={target}]").bounding_box()
    page.mouse.move(start_box["x"] + 20, start_box["y"] + 20)
    page.mouse.down()
    page.mouse.move(end_box["x"] + 10, end_box["y"] + 10, steps=5)
    page.mouse.move(end_box["x"] + 20, end_box["y"] + 20)
    page.mouse.up()
    snapshot = until(url, game, lambda s: my_turn(s) and len(s["plies"]) >= 8)
    assert snapshot["plies"][5]["move"] == slide["move"]
    wait_for_turn(page, snapshot)

    page.click("button.free-move[data-move=pass]")
    snapshot = until(url, game, lambda s: my_turn(s) and len(s["plies"]) >= 11)
    assert snapshot["plies"][8]["move"] == "pass"
    wait_for_turn(page, snapshot)
    sources = [m["squares"][0] for m in snapshot["legal"] if m["squares"]]
    busiest = max(set(sources), key=sources.count)
    page.click(f".board .sq[data-square={busiest}]")
    assert page.locator(".board .target-dot").count() == sources.count(busiest)
    page.screenshot(path=str(shots / "web-play.png"))
    page.click(f".board .sq[data-square={busiest}]")  # again: the counter is put back
    assert page.locator(".board .target-dot").count() == 0

    page.fill(".move-text", "a1-a1")
    page.press(".move-text", "Enter")
    message = page.locator(".message.error")
    message.wait_for()
    rules = get_game("entropy")
    state = rules.from_position(snapshot["position"]["position"])
    with pytest.raises(IllegalMoveError) as refused:
        state.apply(rules.parse_move("a1-a1", state))
    assert message.inner_text() == f"not played: {refused.value}"


def test_dispersal_shows_the_legal_destinations(page: Any, url: str) -> None:
    game = start(page, url, "dispersal", "human", "random")
    snapshot = until(url, game, my_turn)
    wait_for_turn(page, snapshot)
    move = snapshot["legal"][0]
    source, target = move["squares"]
    page.click(f".board .sq[data-square={source}]")
    expected = {m["squares"][1] for m in snapshot["legal"] if m["squares"][0] == source}
    assert page.locator(".board .target-dot").count() == len(expected)
    page.click(f".board .sq[data-square={target}]")
    snapshot = until(url, game, lambda s: my_turn(s) and len(s["plies"]) >= 2)
    assert snapshot["plies"][0]["move"] == move["move"]
    wait_for_board(page, snapshot)
    page.click(".board .sq[data-square=c3]")  # an empty square: no move starts there
    assert "no legal move on c3" in page.inner_text(".message")


def dispersal_record_with_a_check() -> MatchRecord:
    game = get_game("dispersal")
    for seed in range(50):
        players = (make_player("random", game), make_player("random", game))
        record = Referee(game, players, seed=seed).play()
        state = game.initial_state()
        for entry in record.games[0].moves:
            state = state.apply(entry.move)
            if state.marked_squares() and not state.is_terminal():
                return record
    pytest.fail("no random game of dispersal with a check")


def test_replay_with_the_buttons_and_the_keys(page: Any, url: str, data: Path, shots: Path) -> None:
    record = dispersal_record_with_a_check()
    path = data / "games" / "20240101-000000-dispersal-checks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save(path)
    game = get_game("dispersal")
    states = [game.initial_state()]
    for entry in record.games[0].moves:
        states.append(states[-1].apply(entry.move))

    page.goto(url + "#/replay")
    page.click(f"a[title='{path.name}']")
    page.wait_for_selector(".replay-view .board svg")
    position = page.locator(".position-string")
    assert position.input_value() == states[0].position()
    page.click(".stepper .forward")
    page.click(".stepper .forward")
    assert position.input_value() == states[2].position()
    page.click(".stepper .back")
    assert position.input_value() == states[1].position()
    page.keyboard.press("End")
    assert position.input_value() == states[-1].position()
    page.keyboard.press("ArrowLeft")
    assert position.input_value() == states[-2].position()
    page.keyboard.press("Home")
    assert position.input_value() == states[0].position()
    checked = next(i for i, s in enumerate(states) if s.marked_squares() and not s.is_terminal())
    page.click(f".replay-moves button[data-ply='{checked}']")
    assert position.input_value() == states[checked].position()
    marks = page.eval_on_selector_all(".board .mark", "nodes => nodes.map(n => n.dataset.square)")
    names = sorted(f"{'abcde'[sq % 5]}{sq // 5 + 1}" for sq in states[checked].marked_squares())
    assert sorted(marks) == names
    href = page.get_attribute(".record-links a", "href")
    assert href == f"/api/records/{path.name}/file"
    page.screenshot(path=str(shots / "web-replay.png"))

    page.goto(url + "#/replay")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("location.hash === '#/replay/file'")
    page.wait_for_selector(".replay-view .position-string")
    assert page.locator(".position-string").input_value() == states[0].position()


def test_a_saved_game_is_continued_from_its_replay(page: Any, url: str, data: Path) -> None:
    game = get_game("orderchaos")
    person = StopAt(3)
    person.spec = "human"
    record = Referee(game, (person, make_player("random", game)), seed=6).play()
    assert not record.finished and len(record.games[0].moves) == 4
    path = data / "games" / "20240101-000000-orderchaos-unfinished.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save(path)
    page.goto(url + f"#/replay/{path.name}")
    page.click("button.continue-game")
    game_id(page)
    page.wait_for_selector(".board .sq.clickable")
    assert len(board_pieces(page)) == 4
    assert page.locator(".move-list li").count() == 2


def test_watch_a_tournament_live(page: Any, url: str, shots: Path) -> None:
    page.clock.install()  # the page's own timers, run on below: time flows as usual until then
    page.goto(url + "#/watch")
    page.select_option("#t-game", "entropy")
    page.fill("#t-players", "random\ngreedy")
    page.click("form.tournament-form button[type=submit]")
    page.wait_for_function("location.hash.startsWith('#/watch/t/')")
    page.wait_for_function(
        "document.querySelector('.arena-table') && !document.querySelector('.arena-table').hidden",
        timeout=60_000,
    )
    assert page.locator(".standings tbody tr").count() == 2
    assert page.locator(".matches tbody tr").count() == 2
    page.wait_for_selector(".tournament-view .board .piece")
    shown = (  # the last match's moves are shown one after another, to its end
        "document.querySelector('.latest-title').textContent.startsWith('Match 2')"
        " && document.querySelector('.latest-move').textContent.includes('game 2')"
        " && document.querySelector('.latest-move').textContent.includes(' — ')"
    )
    deadline = time.monotonic() + 30
    while not page.evaluate(shown):  # the page's clock runs on, each timer fired in its turn,
        assert time.monotonic() < deadline  # without the real seconds between moves
        page.clock.run_for(2000)
    page.wait_for_function(shown, timeout=30_000)
    page.screenshot(path=str(shots / "web-watch.png"), full_page=True)


def test_a_match_between_bots_is_watched(page: Any, url: str) -> None:
    page.goto(url + "#/watch")
    page.select_option("#bots-game", "orderchaos")
    page.fill("#bots-pace", "0.05")
    page.click("form.bots-form button[type=submit]")
    game = game_id(page)
    final = until(url, game, lambda s: s["status"] == "finished", seconds=30)
    wait_for_board(page, final)
    page.locator(".banner .result").wait_for()
    assert page.locator(".move-form").is_hidden()


def test_a_match_between_bots_that_think_for_a_day_is_stopped_from_the_page(
    page: Any, url: str
) -> None:
    page.goto(url + "#/watch")
    page.select_option("#bots-game", "orderchaos")
    page.fill("#bots-p1", "search:time=86400")
    page.fill("#bots-p2", "search:time=86400")
    page.click("form.bots-form button[type=submit]")
    game = game_id(page)
    until(url, game, lambda s: s["thinking"] == 1)
    page.click(".stop-match-button")
    final = until(url, game, lambda s: s["status"] == "stopped", seconds=5)
    assert final["result"] is None and final["saved"]
    page.wait_for_function("document.querySelector('.status').textContent.includes('stopped')")
    assert page.locator(".stop-match-button").is_hidden()


def test_the_page_is_only_shown_with_the_token(browser: Any, url: str) -> None:
    base, token = split(url)
    context = browser.new_context()
    try:
        stranger = context.new_page()
        refused = stranger.goto(base + "/#/play")
        assert refused is not None and refused.status == 401
        assert "token" in stranger.content() and stranger.locator("nav").count() == 0
        wrong = stranger.goto(f"{base}/?token={'x' * len(token)}#/play")
        assert wrong is not None and wrong.status == 403
        stranger.goto(url + "#/watch")  # the address serve printed: a cookie, then the page
        stranger.locator("form.bots-form").wait_for()
        assert stranger.evaluate("location.search") == ""  # the token is not left in sight
        assert stranger.evaluate("location.hash") == "#/watch"
        assert stranger.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
        stranger.goto(base + "/#/replay")  # the cookie lets the page in from now on
        stranger.locator("nav").wait_for()
    finally:
        context.close()
    from abstractgames.web.server import _opener

    opener = _opener(url + "#/watch")  # as --open opens it: a file, then the address
    context = browser.new_context()
    try:
        opened = context.new_page()
        opened.goto(opener.as_uri())  # another site started it: no redirect carries the cookie
        opened.locator("form.bots-form").wait_for()
        assert opened.evaluate("location.search") == ""
    finally:
        context.close()
        shutil.rmtree(opener.parent)


def test_at_phone_width_nothing_sticks_out(browser: Any, url: str, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        phone.goto(url + "#/play")
        phone.wait_for_selector(".game-form")
        width = "document.documentElement.scrollWidth"
        assert phone.evaluate(width) <= 390
        phone.select_option("#new-game", "orderchaos")
        phone.fill("#new-p2", "greedy")
        phone.click("form.game-form button[type=submit]")
        game = game_id(phone)
        snapshot = until(url, game, my_turn)
        wait_for_turn(phone, snapshot)
        phone.click(".board .sq[data-square=c3]")
        phone.locator(".chooser button[data-move]").first.wait_for()
        assert phone.evaluate(width) <= 390
        box = phone.locator(".board svg").bounding_box()
        assert box["width"] >= 300
        phone.screenshot(path=str(shots / "web-phone.png"))
        phone.keyboard.press("Escape")
        phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        call(url, f"/api/games/{game}/resign", {})
        phone.locator(".banner .result").wait_for()
        banner = phone.locator(".banner").bounding_box()  # in sight without scrolling to it
        assert banner["y"] >= -1 and banner["y"] + banner["height"] <= 845  # (sub-pixel rounding)
        assert phone.inner_text(".banner .result").startswith("You lost: greedy wins")
        assert phone.evaluate(width) <= 390
    finally:
        context.close()
