"""The web app's API through Starlette's test client: every endpoint, bad input, several games at
once, bots that crash or hang, and records that `abstractgames replay` reads."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
try:
    import httpx2  # noqa: F401  # what Starlette's test client uses, without a warning
except ImportError:
    pytest.importorskip("httpx", reason="Starlette's test client needs httpx2 (or httpx)")

from click.testing import CliRunner
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from abstractgames import IllegalMoveError, get_game
from abstractgames.cli import main
from abstractgames.records import MatchRecord
from abstractgames.web import create_app
from abstractgames.web.app import STATIC, WebApp
from tests.conftest import bad_engine
from tests.support.bots import SLOW_BOT, with_proc

Json = dict[str, Any]

CRASHING_BOT = """
from abstractgames.players import Player

class Crash(Player):
    def __init__(self, game):
        self.moves = 0

    def choose(self, state, rng, time_left=None):
        self.moves += 1
        if self.moves == 2:
            raise RuntimeError("the bot broke")
        return state.legal_moves()[0]
"""

HANGING_BOT = """
import time
from abstractgames.players import Player

class Hang(Player):
    def choose(self, state, rng, time_left=None):
        time.sleep(30)
        return state.legal_moves()[0]
"""


@pytest.fixture
def games_dir(tmp_path: Path) -> Path:
    return tmp_path / "games"


@contextmanager
def signed_in(app: Any, **options: Any) -> Iterator[TestClient]:
    """A test client of `app` that opened the page's address with the token, as `serve`
    prints it: the cookie it was given lets its later requests in."""
    with TestClient(app, **options) as test_client:
        page = test_client.get(f"/?token={app.state.token}")
        assert page.status_code == 200 and "<title>" in page.text, page.text
        assert page.history and page.history[0].status_code == 303
        yield test_client


@pytest.fixture
def client(games_dir: Path) -> Iterator[TestClient]:
    with signed_in(create_app(save_dir=games_dir, bot_timeout=2.0)) as test_client:
        yield test_client


def web_of(client: TestClient) -> WebApp:
    web: WebApp = client.app.state.web  # type: ignore[attr-defined]
    return web


def new_game(client: TestClient, **body: Any) -> Json:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: Json = response.json()
    return data


def wait_for(
    client: TestClient, game_id: str, ready: Callable[[Json], bool], seconds: float = 20.0
) -> Json:
    """The game's snapshot once `ready(snapshot)`; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        snapshot: Json = client.get(f"/api/games/{game_id}").json()
        if ready(snapshot):
            return snapshot
        if time.monotonic() > deadline:
            pytest.fail(f"the game never got there: {json.dumps(snapshot)[:1500]}")
        time.sleep(0.02)


def my_turn(snapshot: Json) -> bool:
    return snapshot["awaiting"] is not None or snapshot["status"] in (
        "finished",
        "stopped",
        "failed",
        "between games",
    )


def over(snapshot: Json) -> bool:
    return snapshot["status"] in ("finished", "stopped", "failed")


def play_out(client: TestClient, game_id: str, pick: int = 0) -> Json:
    """Play the game to its end as every person in it, each time the `pick`-th legal move."""
    while True:
        snapshot = wait_for(client, game_id, my_turn)
        if over(snapshot):
            return snapshot
        if snapshot["status"] == "between games":
            assert client.post(f"/api/games/{game_id}/continue", json={}).status_code == 202
            wait_for(client, game_id, lambda s: s["status"] != "between games")
            continue
        legal = snapshot["legal"]
        move = legal[min(pick, len(legal) - 1)]["move"]
        response = client.post(f"/api/games/{game_id}/move", json={"move": move})
        assert response.status_code == 200, response.text
        version = snapshot["version"]
        wait_for(client, game_id, lambda s, v=version: s["version"] > v)


# --- the page -------------------------------------------------------------------------------------


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script type="module" src="/static/app.js">' in page.text
    modules = _page_modules()
    assert {"app.js", "play.js", "match.js", "connection.js", "board.js"} <= modules
    for name, kind in [*((m, "javascript") for m in sorted(modules)), ("style.css", "text/css")]:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"], name
    assert "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere


def _page_modules() -> set[str]:
    """The JavaScript modules the page loads: app.js and everything it imports, transitively."""
    static = Path(STATIC)
    found: set[str] = set()
    waiting = ["app.js"]
    while waiting:
        name = waiting.pop()
        if name in found:
            continue
        found.add(name)
        text = (static / name).read_text(encoding="utf-8")
        for imported in re.findall(r'^import[^;]*?from "\./([\w-]+\.js)";', text, re.M | re.S):
            waiting.append(imported)
    return found


def test_every_module_of_the_page_is_loaded() -> None:
    """No module lies in static/ unused (a split that left a file behind)."""
    static = Path(STATIC)
    assert {path.name for path in static.glob("*.js")} == _page_modules()


def test_the_page_draws_with_the_palette_of_the_svg_boards() -> None:
    from abstractgames.svg import PALETTE
    from abstractgames.web.app import STATIC

    script = (STATIC / "board.js").read_text(encoding="utf-8")
    for colour, (fill, ink) in PALETTE.items():
        assert f'{colour}: ["{fill}", "{ink}"]' in script, colour


def test_the_page_draws_with_the_geometry_and_colours_of_the_svg_boards() -> None:
    import re

    from abstractgames import svg
    from abstractgames.web.app import STATIC

    # board.js's NAME is svg.py's _NAME
    geometry = ["SQUARE", "EDGE", "COORDINATE_MARGIN", "RADIUS", "MARK_INSET", "BASELINE"]
    fonts = ["DISC_FONT", "LETTER_FONT", "COORDINATE_FONT"]
    lines = ["GRID_WIDTH", "FRAME_WIDTH", "DISC_STROKE_WIDTH", "HALO_WIDTH", "MARK_WIDTH"]
    colours = ["BACKGROUND", "BOARD_FILL", "LINE", "COORDINATE_INK", "OUTLINE", "HIGHLIGHT_FILL"]
    shared = [*geometry, *fonts, *lines, *colours, "MARK_STROKE", "HALO"]
    script = (STATIC / "board.js").read_text(encoding="utf-8")
    constants = re.findall(r'^const ([A-Z][A-Z_]*) = ([0-9.]+|"[^"]*");$', script, re.MULTILINE)
    page = {name: json.loads(value) for name, value in constants}
    assert {name: page.get(name) for name in shared} == {
        name: getattr(svg, f"_{name}") for name in shared
    }


def test_the_catalog_lists_every_game_and_player(client: TestClient) -> None:
    catalog = client.get("/api/catalog").json()
    games = {g["name"]: g for g in catalog["games"]}
    assert set(games) >= {"entropy", "orderchaos", "dispersal"}
    assert games["entropy"]["match"] == [["chaos", "order"], ["order", "chaos"]]
    assert games["orderchaos"]["width"] == 6 and games["entropy"]["colours"]["R"] == "red"
    assert {p["name"] for p in catalog["players"]} >= {"greedy", "random", "search", "engine"}
    assert catalog["allow_programs"] is True and catalog["saving"] is True
    assert catalog["person"] == "human" and catalog["suggested"] == ["human", *catalog["bots"]]


# --- playing --------------------------------------------------------------------------------------


def test_a_finished_match_is_shown_finished_only_once_its_file_is_whole(
    client: TestClient, games_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save = MatchRecord.save

    def slow_save(record: MatchRecord, path: Any) -> None:
        if record.finished:
            time.sleep(0.3)  # the page must not see "finished" while the file is being written
        save(record, path)

    monkeypatch.setattr(MatchRecord, "save", slow_save)
    game = new_game(client, game="orderchaos", players=["random", "random"], seed=5)
    final = wait_for(client, game["id"], lambda s: s["status"] == "finished")
    assert MatchRecord.load(final["saved"]).finished


def test_a_whole_game_against_a_bot_is_saved_and_replays(
    client: TestClient, games_dir: Path
) -> None:
    game = new_game(client, game="orderchaos", players=["human", "random"], seed=5)
    assert len(game["id"]) >= 24
    assert game["players"][0] == {"number": 1, "spec": "human", "human": True, "role": "order"}
    final = play_out(client, game["id"])
    assert final["status"] == "finished" and final["result"] is not None
    saved = Path(final["saved"])
    assert saved.parent == games_dir and saved.name.endswith(f"-orderchaos-{final['seed']}.json")
    record = MatchRecord.load(saved)
    assert record.finished and record.players == ("human", "random")
    assert [m.move for m in record.games[0].moves] == [p["move"] for p in final["plies"]]
    result = CliRunner().invoke(main, ["replay", str(saved), "--no-color"])
    assert result.exit_code == 0, result.output
    assert "Result:" in result.output
    download = client.get(f"/api/games/{game['id']}/record")
    assert download.headers["content-disposition"].startswith("attachment")
    assert download.text == saved.read_text(encoding="utf-8")


def test_bad_moves_get_the_message_the_terminal_shows(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"])
    snapshot = wait_for(client, game["id"], my_turn)
    assert client.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"}).status_code == 200
    snapshot = wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
    rules = get_game("orderchaos")
    state = rules.from_position(snapshot["position"]["position"])
    for text in ["X@c3", "X@z9", "hello", "", "Q@a1", "X@c3 extra"]:
        with pytest.raises(IllegalMoveError) as expected:
            state.apply(rules.parse_move(text, state))
        response = client.post(f"/api/games/{game['id']}/move", json={"move": text})
        assert response.status_code == 400, text
        assert response.json() == {"error": str(expected.value)}, text


def test_a_move_when_it_is_not_your_turn_is_a_conflict(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["greedy", "greedy"], pace=5)
    response = client.post(f"/api/games/{game['id']}/move", json={"move": "X@a1"})
    assert response.status_code == 409
    assert "not your turn" in response.json()["error"] or "person" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "entropy:size=6"}, "size"),
        ({"game": "orderchaos", "players": ["human", "nobody"]}, "unknown player"),
        ({"game": "orderchaos", "players": ["human", "search:time=-1"]}, "time"),
        ({"game": "orderchaos", "players": ["human"]}, "2 items"),
        ({"game": "orderchaos", "players": ["human", " "]}, "empty"),
        ({"game": "orderchaos", "clock": "soon"}, "bad clock"),
        ({"game": "orderchaos", "seed": 2**70}, "'seed'"),
        ({"game": "orderchaos", "seed": "7"}, "integer"),
        ({"game": "orderchaos", "pace": -1}, "'pace'"),
        ({"game": "orderchaos", "single": "yes"}, "true or false"),
        ({"game": "orderchaos", "colour": "red"}, "unknown field 'colour'"),
        ({"game": 7}, "string"),
        ({"players": ["human", "greedy"]}, "no 'game'"),
    ],
)
def test_bad_game_requests_get_400_with_the_reason(
    client: TestClient, body: Json, message: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


@pytest.mark.parametrize(
    ("content", "kind", "status", "message"),
    [
        (b"{not json", "application/json", 400, "not valid JSON"),
        (b'{"move": "a1"}', "text/plain", 400, "as JSON"),
        (b"[1, 2]", "application/json", 400, "JSON object"),
        (b'{"move": 5}', "application/json", 400, "string"),
        (b'{"move": "X@a1", "and": 1}', "application/json", 400, "unknown field"),
        (b"\xff\xfe", "application/json", 400, "UTF-8"),
        (b'{"move": ' + b"1" * 100 + b"}", "application/json", 400, "digits"),
        (b"[" * 100_000, "application/json", 413, "larger"),
        (b'{"move": "' + b"x" * 5000 + b'"}', "application/json", 400, "longer"),
    ],
)
def test_malformed_requests_get_a_json_error(
    client: TestClient, content: bytes, kind: str, status: int, message: str
) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"])
    wait_for(client, game["id"], my_turn)
    response = client.post(
        f"/api/games/{game['id']}/move", content=content, headers={"content-type": kind}
    )
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def test_unknown_ids_and_names_are_404(client: TestClient) -> None:
    for method, path in [
        ("GET", "/api/games/nope"),
        ("POST", "/api/games/nope/move"),
        ("POST", "/api/games/nope/undo"),
        ("POST", "/api/games/nope/resign"),
        ("POST", "/api/games/nope/hint"),
        ("POST", "/api/games/nope/continue"),
        ("GET", "/api/games/nope/record"),
        ("GET", "/api/records/nope.json"),
        ("GET", "/api/records/..%2F..%2Fetc%2Fpasswd"),
        ("GET", "/api/records/nope.json/file"),
        ("GET", "/api/tournaments/nope"),
        ("DELETE", "/api/tournaments/nope"),
        ("GET", "/api/tournaments/nope/matches/1"),
        ("GET", "/api/no/such/thing"),
    ]:
        response = client.request(method, path, json={"move": "a1"})
        assert response.status_code == 404, (method, path, response.text)
        assert isinstance(response.json()["error"], str)
    wrong = client.put("/api/games")
    assert wrong.status_code == 405 and "error" in wrong.json()
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/api/games/nope/ws") as socket,
    ):
        socket.receive_json()


def test_requests_from_another_site_are_refused(client: TestClient) -> None:
    response = client.post(
        "/api/games",
        json={"game": "orderchaos", "players": ["human", "engine:rm -rf /"]},
        headers={"origin": "https://evil.example"},
    )
    assert response.status_code == 403 and "another site" in response.json()["error"]
    same = client.get("/api/catalog", headers={"origin": "https://evil.example"})
    assert same.status_code == 200  # reading the catalog changes nothing
    ok = client.post(
        "/api/games",
        json={"game": "orderchaos", "players": ["random", "random"]},
        headers={"origin": "http://testserver"},
    )
    assert ok.status_code == 201


def test_only_this_machine_is_answered_when_serving_it(tmp_path: Path) -> None:
    app = create_app(hosts=["127.0.0.1", "localhost"])
    with signed_in(app, base_url="http://127.0.0.1:8000") as local:
        assert local.get("/api/catalog").status_code == 200
    with TestClient(app, base_url="http://attacker.example:8000") as rebound:
        response = rebound.get("/api/catalog")
        assert response.status_code == 403 and "Host" in response.json()["error"]


def test_programs_are_refused_unless_allowed(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(CRASHING_BOT)
    said = {
        "engine:./mybot": "an external program",
        f"{bot}:Crash": "a bot from a file or module",
        "codecup:./x": "an external program",
    }
    with signed_in(create_app(allow_programs=False)) as client:
        for spec, what in said.items():
            response = client.post(
                "/api/games", json={"game": "orderchaos", "players": ["human", spec]}
            )
            assert response.status_code == 403, spec
            error = response.json()["error"]
            assert "--allow-programs" in error
            assert f" is {what}: " in error and "OutsideCode" not in error  # said in words
            tournament = client.post(
                "/api/tournaments", json={"game": "orderchaos", "players": ["greedy", spec]}
            )
            assert tournament.status_code == 403 and f"is {what}:" in tournament.json()["error"]
        assert client.get("/api/catalog").json()["allow_programs"] is False


def test_several_games_at_once(client: TestClient) -> None:
    watched = [
        new_game(client, game=spec, players=["random", "greedy"], seed=seed)
        for seed, spec in enumerate(["orderchaos", "entropy:size=5", "dispersal"])
    ]
    people = [new_game(client, game="orderchaos", players=["human", "random"]) for _ in range(3)]
    assert len({g["id"] for g in watched + people}) == 6
    listed = {g["id"] for g in client.get("/api/games").json()["games"]}
    assert listed == {g["id"] for g in watched}  # games with people are only for their page

    errors: list[BaseException] = []

    def person(game_id: str, pick: int) -> None:
        try:
            play_out(client, game_id, pick)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=person, args=(g["id"], n)) for n, g in enumerate(people, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    for game in watched + people:
        final = wait_for(client, game["id"], over, seconds=60)
        assert final["status"] == "finished", final["error"]
        MatchRecord.load(final["saved"]).replay()


def test_a_bot_that_crashes_forfeits_its_game(client: TestClient, tmp_path: Path) -> None:
    bot = tmp_path / "crash.py"
    bot.write_text(CRASHING_BOT)
    game = new_game(client, game="orderchaos", players=[f"{bot}:Crash", "random"], seed=1)
    final = wait_for(client, game["id"], over)
    assert final["status"] == "finished"
    assert final["result"]["winner"] == 2
    assert "reported an error: RuntimeError: the bot broke" in final["result"]["reason"]
    assert final["result"]["reason"] in final["notices"]
    record = MatchRecord.load(final["saved"])
    assert record.games[0].ended_by is not None and record.games[0].ended_by.event == "forfeit"
    assert client.get("/api/catalog").status_code == 200  # the server goes on


def test_a_bot_that_hangs_forfeits_at_its_deadline(tmp_path: Path) -> None:
    bot = tmp_path / "hang.py"
    bot.write_text(HANGING_BOT)
    with signed_in(create_app(bot_timeout=0.5)) as client:
        game = new_game(client, game="orderchaos", players=["random", f"{bot}:Hang"])
        final = wait_for(client, game["id"], over, seconds=10)
        assert final["result"]["winner"] == 1
        assert "did not move within 0.5 s" in final["result"]["reason"]


@pytest.mark.slow
def test_an_engine_that_hangs_forfeits_and_is_stopped(client: TestClient, tmp_path: Path) -> None:
    pidfile = tmp_path / "engine.pid"
    spec = bad_engine("sleep", 2, pidfile, timeout=1.0)
    game = new_game(client, game="orderchaos", players=[spec, "random"], seed=3)
    final = wait_for(client, game["id"], over, seconds=20)
    assert final["result"]["winner"] == 2, final
    assert "player 1" in final["result"]["reason"] or "engine" in final["result"]["reason"]
    from tests.conftest import wait_gone

    assert wait_gone(int(pidfile.read_text().split()[0]))


def test_undo_takes_back_your_move_and_the_bots(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"])
    first = wait_for(client, game["id"], my_turn)
    assert first["can_undo"] is False
    response = client.post(f"/api/games/{game['id']}/undo", json={})
    assert response.status_code == 409
    assert response.json()["error"] == "nothing to undo: this is your first move of the game"
    client.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
    second = wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
    assert second["can_undo"] is True
    assert client.post(f"/api/games/{game['id']}/undo", json={}).status_code == 202
    back = wait_for(client, game["id"], lambda s: my_turn(s) and not s["plies"])
    assert back["position"]["position"] == first["position"]["position"]
    assert "took back 2 moves" in back["notices"]


def test_undo_is_refused_between_two_people(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "human"])
    wait_for(client, game["id"], my_turn)
    client.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
    wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 1)
    response = client.post(f"/api/games/{game['id']}/undo", json={})
    assert response.status_code == 409
    assert response.json()["error"] == "undo is only possible in a game against bots"


def test_resigning_ends_the_match(client: TestClient) -> None:
    game = new_game(client, game="entropy:size=5", players=["greedy", "human"], seed=2)
    wait_for(client, game["id"], my_turn)
    response = client.post(f"/api/games/{game['id']}/resign", json={})
    assert response.status_code == 202 and response.json()["player"] == 2
    final = wait_for(client, game["id"], over)
    assert final["result"]["winner"] == 1 and final["result"]["reason"] == "player 2 resigned"
    again = client.post(f"/api/games/{game['id']}/resign", json={})
    assert again.status_code == 409


def test_who_resigns_between_two_people_and_a_bot(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"])
    wait_for(client, game["id"], my_turn)
    response = client.post(f"/api/games/{game['id']}/resign", json={"player": 2})
    assert response.status_code == 400 and "not a person" in response.json()["error"]


def test_a_hint_is_a_legal_move(client: TestClient) -> None:
    game = new_game(client, game="dispersal", players=["human", "greedy"])
    snapshot = wait_for(client, game["id"], my_turn)
    response = client.post(f"/api/games/{game['id']}/hint", json={})
    assert response.status_code == 200, response.text
    hint = response.json()
    legal = {m["move"]: m["squares"] for m in snapshot["legal"]}
    assert hint["move"] in legal and hint["squares"] == legal[hint["move"]]
    assert wait_for(client, game["id"], my_turn)["plies"] == []  # nothing was played
    assert hint["info"]["depth"] >= 1 and hint["info"]["nodes"] > 0
    assert f"search depth {hint['info']['depth']}" in hint["summary"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["orderchaos", "entropy:size=5"])
def test_a_hint_says_what_the_search_found_in_every_game(client: TestClient, name: str) -> None:
    game = new_game(client, game=name, players=["human", "greedy"], clock="60")
    wait_for(client, game["id"], my_turn)
    hint = client.post(f"/api/games/{game['id']}/hint", json={}).json()
    assert hint["seconds"] <= 15  # at most a quarter of the person's clock
    assert hint["info"]["value"] is not None or hint["info"]["mate_in"] is not None
    assert hint["summary"].startswith(("value ", "a forced ")), hint


def test_an_entropy_match_is_two_games_with_the_roles_swapped(client: TestClient) -> None:
    game = new_game(client, game="entropy:size=5", players=["human", "greedy"], seed=4)
    assert game["games_in_match"] == 2
    snapshot = wait_for(client, game["id"], my_turn)
    assert snapshot["players"][0]["role"] == "chaos"
    drops = snapshot["legal"]
    assert {len(m["squares"]) for m in drops} == {1} and len({m["piece"] for m in drops}) == 1
    while snapshot["status"] != "between games":
        move = snapshot["legal"][-1]["move"]  # the last: the pass, for Order
        client.post(f"/api/games/{game['id']}/move", json={"move": move})
        version = snapshot["version"]
        snapshot = wait_for(
            client, game["id"], lambda s, v=version: my_turn(s) and s["version"] > v
        )
    assert snapshot["finished_games"][0]["outcome"]["reason"]
    assert client.post(f"/api/games/{game['id']}/move", json={"move": "pass"}).status_code == 409
    assert client.post(f"/api/games/{game['id']}/continue", json={}).status_code == 202
    second = wait_for(client, game["id"], lambda s: s["game_number"] == 2 and my_turn(s))
    assert second["players"][0]["role"] == "order" and second["players"][1]["role"] == "chaos"
    final = play_out(client, game["id"], pick=10**6)
    assert final["result"]["scores"][0] is not None and final["result"]["scores"][1] is not None
    assert len(MatchRecord.load(final["saved"]).games) == 2


def test_the_clock_runs_out(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"], clock="0.3")
    assert game["clock"] == {"seconds": 0.3, "increment": 0.0}
    final = wait_for(client, game["id"], over)
    assert final["result"]["winner"] == 2
    assert final["result"]["reason"] == "player 1 ran out of time"


def test_the_websocket_sends_every_change(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["human", "greedy"])
    wait_for(client, game["id"], my_turn)
    with client.websocket_connect(f"/api/games/{game['id']}/ws") as socket:
        first = socket.receive_json()
        assert first["awaiting"] == 1 and first["plies"] == []
        client.post(f"/api/games/{game['id']}/move", json={"move": "O@d4"})
        for _ in range(50):
            update = socket.receive_json()
            if len(update["plies"]) == 2 and update["awaiting"] == 1:
                break
        assert update["plies"][0]["move"] == "O@d4" and update["version"] > first["version"]


def test_a_match_between_bots_is_watched_at_its_pace(client: TestClient) -> None:
    game = new_game(client, game="orderchaos", players=["random", "random"], pace=0.2)
    time.sleep(0.5)
    snapshot = client.get(f"/api/games/{game['id']}").json()
    assert 1 <= len(snapshot["plies"]) <= 4 and snapshot["awaiting"] is None


# --- records --------------------------------------------------------------------------------------


def test_saved_games_are_listed_opened_and_downloaded(client: TestClient, games_dir: Path) -> None:
    game = new_game(client, game="dispersal", players=["random", "random"], seed=9)
    final = wait_for(client, game["id"], over)
    listing = client.get("/api/records").json()
    assert listing["directory"] == str(games_dir)
    name = Path(final["saved"]).name
    entry = next(r for r in listing["records"] if r["name"] == name)
    assert (
        entry["game"] == "dispersal"
        and entry["finished"]
        and entry["players"]
        == [
            "random",
            "random",
        ]
    )
    replay = client.get(f"/api/records/{name}").json()
    positions = replay["games"][0]["positions"]
    assert len(positions) == len(replay["games"][0]["plies"]) + 1 == len(final["plies"]) + 1
    assert positions[-1]["position"] == final["position"]["position"]
    assert replay["result"] == final["result"]
    raw = client.get(f"/api/records/{name}/file")
    assert raw.content == Path(final["saved"]).read_bytes()
    assert "attachment" in raw.headers["content-disposition"]


def test_a_record_is_uploaded_and_replayed(client: TestClient) -> None:
    from abstractgames import make_player
    from abstractgames.referee import Referee

    game = get_game("dispersal")
    players = (make_player("random", game), make_player("random", game))
    record = Referee(game, players, seed=11).play()
    replay = client.post(
        "/api/replay", content=record.dumps(), headers={"content-type": "application/json"}
    )
    assert replay.status_code == 200, replay.text
    data = replay.json()
    marked = [p for p in data["games"][0]["positions"] if p["marks"]]
    states = [game.initial_state()]
    for entry in record.games[0].moves:
        states.append(states[-1].apply(entry.move))
    assert [p["position"] for p in data["games"][0]["positions"]] == [s.position() for s in states]
    assert len(marked) == sum(1 for s in states if s.marked_squares())
    broken = json.loads(record.dumps())
    broken["games"][0]["moves"][3]["move"] = "a1-a1"
    response = client.post("/api/replay", json=broken)
    assert response.status_code == 400 and "game 1, move 4" in response.json()["error"]
    assert client.post("/api/replay", json={"format": "nope"}).status_code == 400


def test_a_game_in_progress_is_saved_at_shutdown(client: TestClient) -> None:
    game = new_game(client, game="entropy", players=["human", "greedy"], seed=8)
    wait_for(client, game["id"], my_turn)
    client.post(f"/api/games/{game['id']}/move", json={"move": game["legal"][24]["move"]})
    wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) >= 4)
    saved = web_of(client).shutdown()
    assert len(saved) == 1
    record = MatchRecord.load(saved[0])
    assert not record.finished and len(record.games[0].moves) >= 4
    record.replay()
    snapshot = client.get(f"/api/games/{game['id']}").json()
    assert snapshot["status"] == "stopped"
    refused = client.post("/api/games", json={"game": "orderchaos"})
    assert refused.status_code == 409 and "shutting down" in refused.json()["error"]


# --- tournaments ----------------------------------------------------------------------------------


def test_a_tournament_runs_live_and_ends_with_the_arenas_table(client: TestClient) -> None:
    for body, message in [
        ({"game": "orderchaos", "players": ["random"]}, "2 to 8"),
        ({"game": "orderchaos", "players": ["random", "random"]}, "twice"),
        ({"game": "orderchaos", "players": ["random", "human"]}, "between bots"),
        ({"game": "orderchaos", "players": ["random", "greedy"], "games": 3}, "even"),
        ({"game": "orderchaos", "players": ["random", "nobody"]}, "unknown player"),
    ]:
        response = client.post("/api/tournaments", json=body)
        assert response.status_code == 400 and message in response.json()["error"], body
    response = client.post(
        "/api/tournaments",
        json={"game": "orderchaos", "players": ["random", "greedy"], "games": 2, "seed": 1},
    )
    assert response.status_code == 201, response.text
    tournament_id = response.json()["id"]
    assert response.json()["total"] == 2
    deadline = time.monotonic() + 60
    while (data := client.get(f"/api/tournaments/{tournament_id}").json())["status"] in (
        "starting",
        "running",
    ):
        assert time.monotonic() < deadline, data
        time.sleep(0.1)
    assert data["status"] == "finished", data
    assert data["done"] == 2 and [m["number"] for m in data["matches"]] == [1, 2]
    assert {row["player"] for row in data["standings"]} == {"random", "greedy"}
    assert sum(row["played"] for row in data["standings"]) == 4
    assert "greedy" in data["table"] and "random" in data["table"]
    replay = client.get(f"/api/tournaments/{tournament_id}/matches/1").json()
    assert replay["players"] == data["matches"][0]["players"]
    assert client.get(f"/api/tournaments/{tournament_id}/matches/3").status_code == 404
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert listed[0]["id"] == tournament_id
    assert client.delete(f"/api/tournaments/{tournament_id}").json()["status"] == "finished"


@pytest.mark.slow
def test_a_tournament_is_stopped(client: TestClient) -> None:
    response = client.post(
        "/api/tournaments",
        json={
            "game": "entropy",
            "players": ["search:time=0.3", "search:time=0.2"],
            "games": 20,
        },
    )
    tournament_id = response.json()["id"]
    time.sleep(1.0)
    stopped = client.delete(f"/api/tournaments/{tournament_id}").json()
    assert stopped["status"] == "stopped" and stopped["done"] < stopped["total"]


WORKER_KILLER = """
import os
from abstractgames.players import Player

class Die(Player):
    def choose(self, state, rng, time_left=None):
        os._exit(3)
"""


def spawned_workers() -> list[int]:
    """The processes this one started with multiprocessing's spawn that still run (from /proc):
    the tournaments' worker processes."""
    import os

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command_line = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, parent = stat.rpartition(")")[2].split()[:2]
        if int(parent) == os.getpid() and state not in "ZX" and b"spawn_main" in command_line:
            found.append(int(entry.name))
    return found


def slow_tournament(client: TestClient, tmp_path: Path) -> tuple[str, Path]:
    """A tournament whose second match never ends by itself, once that match is being played:
    its id and the file where the slow bot wrote its process id."""
    bot = tmp_path / "slowbot.py"
    bot.write_text(SLOW_BOT)
    response = client.post(
        "/api/tournaments",
        json={
            "game": "orderchaos",
            "players": ["random", f"inprocess:{bot}:Slow"],
            "games": 4,
            "seed": 1,
        },
    )
    assert response.status_code == 201, response.text
    thinking = tmp_path / "thinking.pid"
    deadline = time.monotonic() + 60
    while not thinking.exists():
        assert time.monotonic() < deadline, "the slow match did not start"
        time.sleep(0.05)
    time.sleep(0.2)
    return response.json()["id"], thinking


@with_proc
def test_a_tournament_is_stopped_at_once_while_a_bot_thinks(
    client: TestClient, tmp_path: Path
) -> None:
    tournament_id, thinking = slow_tournament(client, tmp_path)
    pid = int(thinking.read_text())
    assert spawned_workers() == [pid]  # the bot thinks in the tournament's worker process
    running = client.get(f"/api/tournaments/{tournament_id}").json()
    assert running["status"] == "running" and running["done"] == 1 and running["table"] == ""
    (line,) = running["log"]  # the arena's own line about each match
    slow = running["matches"][0]["names"][1]
    assert line.startswith(f"match 1/4: random vs {slow}: random won (five in a row), ")
    start = time.monotonic()
    stopped = client.delete(f"/api/tournaments/{tournament_id}").json()
    took = time.monotonic() - start
    assert took < 5, f"the stop took {took:.1f} s"
    assert stopped["status"] == "stopped" and stopped["done"] == 1, stopped
    assert spawned_workers() == [] and not Path(f"/proc/{pid}/cmdline").exists()
    directory = Path(stopped["directory"])
    lines = (directory / "state.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 1  # the finished match is kept
    assert [p.name for p in (directory / "records").iterdir()] == [stopped["matches"][0]["file"]]
    assert not (directory / "results.json").exists()
    assert "(1 of 4 games played)" in stopped["table"]
    assert stopped["log"][-1].startswith("stopped after 1 of 4 matches: they are kept in")
    assert [row["played"] for row in stopped["standings"]] == [1, 1]
    replay = client.get(f"/api/tournaments/{tournament_id}/matches/1").json()
    assert replay["players"] == stopped["matches"][0]["players"]
    assert client.delete(f"/api/tournaments/{tournament_id}").json()["status"] == "stopped"


@with_proc
def test_the_tournaments_are_stopped_when_the_server_shuts_down(tmp_path: Path) -> None:
    with signed_in(create_app(save_dir=tmp_path / "games")) as client:
        tournament_id, thinking = slow_tournament(client, tmp_path)
        tournament = web_of(client).tournaments.get(tournament_id)
        assert spawned_workers() == [int(thinking.read_text())]
        start = time.monotonic()
    took = time.monotonic() - start
    assert took < 8, f"the shutdown took {took:.1f} s"
    assert tournament.done.is_set() and tournament.status == "stopped"
    assert spawned_workers() == []
    assert len((tournament.directory / "state.jsonl").read_text().splitlines()) == 2


def test_a_tournament_that_fails_says_why(client: TestClient, tmp_path: Path) -> None:
    bot = tmp_path / "die.py"
    bot.write_text(WORKER_KILLER)
    response = client.post(
        "/api/tournaments",
        # in the arena's worker (in process), so that it is the arena's worker that dies
        json={"game": "orderchaos", "players": [f"inprocess:{bot}:Die", "random"], "games": 2},
    )
    assert response.status_code == 201, response.text
    # a player that the server could not make when the tournament started
    web = web_of(client)
    unknown = web.tournaments.create(get_game("orderchaos"), ["random", "nobody"], 2, 0)
    for tournament_id, reason in [
        (response.json()["id"], "a worker process died (killed, or out of memory?) during match 1"),
        (unknown.id, "unknown player 'nobody'"),
    ]:
        deadline = time.monotonic() + 60
        while (data := client.get(f"/api/tournaments/{tournament_id}").json())["status"] in (
            "starting",
            "running",
        ):
            assert time.monotonic() < deadline, data
            time.sleep(0.05)
        assert data["status"] == "failed" and reason in data["error"], data
        assert data["log"] == [f"failed: {data['error']}"] and data["done"] == 0
    assert spawned_workers() == [] or not Path("/proc/self/stat").exists()


def test_the_ids_are_unguessable(client: TestClient) -> None:
    ids = {
        new_game(client, game="orderchaos", players=["random", "random"])["id"] for _ in range(5)
    }
    assert len(ids) == 5 and all(len(i) >= 24 for i in ids)


def test_a_game_saved_at_shutdown_is_continued(games_dir: Path) -> None:
    with signed_in(create_app(save_dir=games_dir)) as first:
        game = new_game(first, game="orderchaos", players=["human", "greedy"], seed=3)
        wait_for(first, game["id"], my_turn)
        first.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
        before = wait_for(first, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
    (saved,) = games_dir.glob("*.json")
    with signed_in(create_app(save_dir=games_dir)) as second:
        response = second.post("/api/games", json={"resume": saved.name})
        assert response.status_code == 201, response.text
        resumed = wait_for(second, response.json()["id"], my_turn)
        assert resumed["seed"] == 3 and resumed["plies"] == before["plies"]
        assert resumed["position"] == before["position"]
        again = second.post("/api/games", json={"resume": saved.name})
        assert again.status_code == 409 and "being played here already" in again.json()["error"]
        final = play_out(second, resumed["id"])
        assert final["status"] == "finished" and Path(final["saved"]) == saved
        record = MatchRecord.load(saved)
        assert record.finished and record.games[0].moves[0].move == "X@c3"
        done = second.post("/api/games", json={"resume": saved.name})
        assert done.status_code == 409 and "already finished" in done.json()["error"]
        missing = second.post("/api/games", json={"resume": "nothing-here.json"})
        assert missing.status_code == 404


def test_a_program_in_a_record_is_only_started_when_named_again(games_dir: Path) -> None:
    with signed_in(create_app(save_dir=games_dir)) as client:
        game = new_game(client, game="orderchaos", players=["human", "random"], seed=4)
        wait_for(client, game["id"], my_turn)
    (saved,) = games_dir.glob("*.json")
    data = json.loads(saved.read_text())
    data["players"][1] = "engine:./not-run"
    (games_dir / "program.json").write_text(json.dumps(data))
    with signed_in(create_app(save_dir=games_dir)) as client:
        response = client.post("/api/games", json={"resume": "program.json"})
        assert response.status_code == 403 and "an external program" in response.json()["error"]
        named = client.post(
            "/api/games", json={"resume": "program.json", "players": ["human", "random"]}
        )
        assert named.status_code == 201


def test_a_match_left_alone_makes_room_for_a_new_one(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abstractgames.web import sessions

    web_of(client).sessions.max_running = 1
    left = new_game(client, game="orderchaos", players=["human", "greedy"])
    wait_for(client, left["id"], my_turn)
    refused = client.post("/api/games", json={"game": "orderchaos"})
    assert refused.status_code == 409 and "finish one first" in refused.json()["error"]
    monkeypatch.setattr(sessions, "IDLE_SECONDS", 0.0)
    new_game(client, game="orderchaos", players=["human", "greedy"])
    stopped = client.get(f"/api/games/{left['id']}").json()
    assert stopped["status"] == "stopped" and stopped["saved"]


def test_a_game_from_outside_is_played_the_same_way(
    games_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing in the app knows a game: the example plugin's tic-tac-toe plays like the others."""
    from abstractgames import registry
    from abstractgames.registry import games

    monkeypatch.syspath_prepend(
        str(Path(__file__).resolve().parents[2] / "examples" / "plugin_game" / "src")
    )
    from abstractgames_tictactoe.game import TicTacToeGame

    monkeypatch.setattr(games, "_games", dict(games._games))
    registry.register_game("tictactoe", TicTacToeGame)
    with signed_in(create_app(save_dir=games_dir)) as client:
        listed = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
        assert listed["tictactoe"]["width"] == 3 and listed["tictactoe"]["height"] == 3
        game = new_game(client, game="tictactoe", players=["human", "random"], seed=1)
        first = wait_for(client, game["id"], my_turn)
        assert first["legal"][0] == {"move": "a1", "squares": ["a1"], "piece": "X"}
        final = play_out(client, game["id"])
        assert final["status"] == "finished"
        replay = client.get(f"/api/records/{Path(final['saved']).name}").json()
        assert replay["games"][0]["positions"][-1]["position"] == final["position"]["position"]


# --- the token --------------------------------------------------------------------------------


def _requests(app: Any) -> Iterator[tuple[str, str]]:
    """A request (method and path) for every route and method of `app`, and a file of every
    mount: a route added later is in the list without being named here."""
    from starlette.routing import Mount, Route

    for route in app.routes:
        if isinstance(route, Route):
            path = route.path_format.replace("{number}", "1")
            path = re.sub(r"\{\w+\}", "x", path)
            for method in sorted(route.methods or {"GET"}):
                if method != "HEAD":
                    yield method, path
        elif isinstance(route, Mount):
            yield "GET", route.path + "/app.js"


def _sockets(app: Any) -> list[str]:
    from starlette.routing import WebSocketRoute

    return [
        re.sub(r"\{\w+\}", "x", route.path_format)
        for route in app.routes
        if isinstance(route, WebSocketRoute)
    ]


def test_every_route_refuses_a_request_without_the_token() -> None:
    app = create_app()
    token = app.state.token
    requests = list(_requests(app))
    assert ("GET", "/") in requests and ("POST", "/api/games") in requests
    assert ("GET", "/static/app.js") in requests and len(requests) > 20
    wrong = "x" * len(token)
    with TestClient(app) as stranger:
        for method, path in [*requests, ("GET", "/api/no/such/thing")]:
            for headers, status in [
                ({}, 401),
                ({"X-Token": wrong}, 403),
                ({"Authorization": f"Bearer {wrong}"}, 403),
                ({"Authorization": f"Basic {token}"}, 401),  # only as a bearer token
                ({"Cookie": f"abstractgames-token-80={wrong}"}, 403),
                ({"Cookie": f"abstractgames-token-81={token}"}, 401),  # another port's
            ]:
                response = stranger.request(
                    method, path, headers=headers, json={"game": "orderchaos"}
                )
                assert response.status_code == status, (method, path, headers, response.text)
                assert "token" in response.json()["error"], (method, path)
            if path != "/":  # the token in the address is only the page's first visit
                response = stranger.request(method, f"{path}?token={token}")
                assert response.status_code == 401, (method, path)
        assert not web_of(stranger).sessions.watchable()  # nothing was started
        for path in _sockets(app):
            assert path.endswith("/ws")
            for headers in [{}, {"X-Token": wrong}, {"Cookie": f"abstractgames-token-80={wrong}"}]:
                with (
                    pytest.raises(WebSocketDisconnect) as refused,
                    stranger.websocket_connect(path, headers=headers) as socket,
                ):
                    socket.receive_json()
                assert refused.value.code == 1008, (path, headers)
        refused_page = stranger.get(f"/?token={wrong}", follow_redirects=False)
        assert refused_page.status_code == 403 and "set-cookie" not in refused_page.headers


def test_the_token_is_let_in_by_its_cookie_or_a_header() -> None:
    app = create_app()
    token = app.state.token
    assert len(token) >= 43  # 256 bits from secrets, URL-safe
    assert create_app().state.token != token
    with TestClient(app) as client:
        first = client.get(f"/?token={token}", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/"
        cookie = first.headers["set-cookie"]
        assert cookie.startswith(f"abstractgames-token-80={token};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert first.headers["cache-control"] == "no-store"
        hop = client.get(  # opened from a file or another page: the page goes on by itself
            f"/?token={token}", headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False
        )
        assert hop.status_code == 200 and "location.replace" in hop.text
        assert hop.headers["set-cookie"] == cookie and "<nav" not in hop.text
        assert client.get("/").status_code == 200  # the cookie from now on
        assert client.get("/api/catalog").status_code == 200
        with (
            pytest.raises(WebSocketDisconnect) as gone,
            client.websocket_connect("/api/games/nope/ws") as socket,
        ):
            socket.receive_json()
        assert gone.value.code == 4404  # let in, and told there is no such game
        client.cookies.clear()
        script = client  # a script, without the cookie
        assert script.get("/api/catalog").status_code == 401
        for headers in [{"Authorization": f"Bearer {token}"}, {"X-Token": token}]:
            assert script.get("/api/catalog", headers=headers).status_code == 200
        game = script.post(
            "/api/games",
            json={"game": "orderchaos", "players": ["random", "random"]},
            headers={"X-Token": token},
        )
        assert game.status_code == 201
        with script.websocket_connect(
            f"/api/games/{game.json()['id']}/ws", headers={"Authorization": f"Bearer {token}"}
        ) as socket:
            assert socket.receive_json()["id"] == game.json()["id"]


def test_programs_from_the_page_need_the_token(tmp_path: Path) -> None:
    pidfile = tmp_path / "engine.pid"
    bot = tmp_path / "bot.py"
    bot.write_text("raise SystemExit('imported')\n")
    app = create_app()
    body = {"game": "orderchaos", "players": ["human", bad_engine("good", 1, pidfile)]}
    with TestClient(app) as stranger:
        assert stranger.post("/api/games", json=body).status_code == 401
        files = {"game": "orderchaos", "players": [f"{bot}:Bot", "random"]}
        assert stranger.post("/api/games", json=files).status_code == 401
        tournament = {"game": "orderchaos", "players": [f"{bot}:Bot", "random"]}
        assert stranger.post("/api/tournaments", json=tournament).status_code == 401
    time.sleep(0.1)
    assert not pidfile.exists()  # no program was started, no file imported


# --- bounds -----------------------------------------------------------------------------------


def test_a_match_between_bots_that_think_for_a_day_is_stopped(client: TestClient) -> None:
    before = set(threading.enumerate())
    game = new_game(
        client, game="orderchaos", players=["search:time=86400", "search:time=86400"], seed=1
    )
    wait_for(client, game["id"], lambda s: s["thinking"] == 1)
    started = time.monotonic()
    response = client.post(f"/api/games/{game['id']}/stop", json={})
    assert response.status_code == 200, response.text
    assert time.monotonic() - started < 15  # not the day it would think (a loaded CI is slow)
    snapshot = response.json()
    assert snapshot["status"] == "stopped" and snapshot["result"] is None
    record = MatchRecord.load(snapshot["saved"])
    assert not record.finished  # kept, to be continued
    # Before: an interrupt that landed while the bot's thread ran a finaliser (a __del__ the
    # collector called there) was dropped, and the search thought on (one run in five).
    wait_for_bot_threads_to_end(before, "the bot's search still thinks", within=15)
    again = client.post(f"/api/games/{game['id']}/stop", json={})
    assert again.status_code == 409 and "stopped" in again.json()["error"]
    assert client.post("/api/games/nope/stop", json={}).status_code == 404


def test_a_bot_that_runs_past_its_deadline_is_interrupted() -> None:
    from abstractgames.players import Player
    from abstractgames.web.sessions import GuardedBot

    loops = []

    class Busy(Player):
        def choose(self, state: Any, rng: Any, time_left: float | None = None) -> Any:
            while True:  # a loop in Python that never looks at a clock
                loops.append(1)
                del loops[:]
                with suppress(Exception):  # a bot's own catch-all does not swallow the stop
                    sum(range(100))

    game = get_game("orderchaos")
    guarded = GuardedBot(Busy(), 1, threading.Event(), limit=0.2)
    before = set(threading.enumerate())
    with pytest.raises(Exception, match=r"did not move within 0\.2 s"):
        guarded.choose(game.initial_state(), random_source())
    wait_for_bot_threads_to_end(before, "the bot's thread goes on", within=3)


def test_a_stop_before_the_bots_thread_runs_never_interrupts_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load a thread may begin its work long after `start()`: a stop in between must not
    raise the interrupt into threading's own start-up (where it once left the thread half
    registered), and the bot must then not think at all."""
    from abstractgames.players import Player
    from abstractgames.web import sessions
    from abstractgames.web.sessions import GuardedBot

    thought = []
    failures: list[BaseException | None] = []

    class SlowToStart(threading.Thread):
        def run(self) -> None:
            time.sleep(0.3)  # as a loaded machine may delay it, after start() has returned
            super().run()

    class Thinker(Player):
        def choose(self, state: Any, rng: Any, time_left: float | None = None) -> Any:
            thought.append(1)
            return state.legal_moves()[0]

    monkeypatch.setattr(sessions.threading, "Thread", SlowToStart)
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    stop = threading.Event()
    stop.set()
    before = set(threading.enumerate())
    with pytest.raises(EOFError):
        GuardedBot(Thinker(), 1, stop, limit=5).choose(
            get_game("orderchaos").initial_state(), random_source()
        )
    wait_for_bot_threads_to_end(before, "the bot's thread goes on", within=3)
    assert failures == [] and thought == []


def wait_for_bot_threads_to_end(before: set[threading.Thread], message: str, within: float) -> None:
    """Wait until the bots' thinking threads started since `before` have ended: those of other
    tests (a bot asleep in `time.sleep` ends only when it wakes) are not this test's."""
    deadline = time.monotonic() + within
    while any(
        t.name.startswith("abstractgames-bot-") and t not in before for t in threading.enumerate()
    ):
        assert time.monotonic() < deadline, message
        time.sleep(0.02)


def random_source() -> Any:
    import random

    return random.Random(0)


def test_uploads_at_once_are_capped(client: TestClient) -> None:
    from abstractgames.web.app import MAX_UPLOADS

    record = json.dumps({"format": "nope"})
    headers = {"content-type": "application/json"}
    web = web_of(client)
    for _ in range(MAX_UPLOADS):
        assert web.uploads.acquire(blocking=False)  # as many uploads as may be read at once
    try:
        busy = client.post("/api/replay", content=record, headers=headers)
        assert busy.status_code == 503 and "again" in busy.json()["error"]
    finally:
        for _ in range(MAX_UPLOADS):
            web.uploads.release()
    assert client.post("/api/replay", content=record, headers=headers).status_code == 400

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap is counted as it streams
        for _ in range(17):
            yield b" " * (1024 * 1024)

    too_big = client.post("/api/replay", content=chunks(), headers=headers)
    assert too_big.status_code == 413 and "larger than 16,777,216 bytes" in too_big.json()["error"]
    assert client.post("/api/replay", content=record, headers=headers).status_code == 400


def test_without_saving_tournaments_go_to_a_private_directory_removed_at_the_end() -> None:
    import stat
    import tempfile

    app = create_app(save_dir=None)
    with signed_in(app) as client:
        directory = web_of(client).tournaments.directory
        scratch = directory.parent
        assert scratch.parent == Path(tempfile.gettempdir())
        assert scratch.name.startswith("abstractgames-web-") and len(scratch.name) > 18
        assert stat.S_IMODE(scratch.stat().st_mode) == 0o700
        other = create_app(save_dir=None).state.web
        assert other.tournaments.directory != directory  # one for each server
        other.shutdown()
    assert not scratch.exists()


# --- start positions and records brought from elsewhere -------------------------------------------


def test_a_game_starts_from_a_position_string_or_a_diagram(client: TestClient) -> None:
    game = get_game("orderchaos")
    start = game.initial_state().apply("X@a1").apply("O@c3")
    made = new_game(
        client, game="orderchaos", players=["human", "random"], position=start.position()
    )
    assert made["position"]["position"] == start.position()
    first = wait_for(client, made["id"], my_turn)
    assert first["position"]["position"] == start.position() and first["plies"] == []
    from abstractgames.grid import diagram

    text = diagram(start)  # with its side-to-move line
    made = new_game(client, game="orderchaos", players=["human", "random"], position=text)
    assert made["position"]["position"] == start.position(), text
    client.post(f"/api/games/{made['id']}/move", json={"move": "X@f6"})
    after = wait_for(client, made["id"], lambda s: my_turn(s) and len(s["plies"]) >= 2)
    record = MatchRecord.loads(client.get(f"/api/games/{made['id']}/record").text)
    assert record.games[0].start == start.position() and after["plies"][0]["move"] == "X@f6"


@pytest.mark.parametrize(
    ("position", "error"),
    [
        ("not a position", "the start position: "),
        ("XXXXXX/6/6/6/6/6 order", "the game is over"),  # six in a row already
        ("x" * 5000, "longer than 4,000 characters"),
    ],
)
def test_a_bad_start_position_is_a_400_naming_it(
    client: TestClient, position: str, error: str
) -> None:
    response = client.post("/api/games", json={"game": "orderchaos", "position": position})
    assert response.status_code == 400 and error in response.json()["error"], response.text


def test_an_unfinished_record_from_elsewhere_is_continued_here(
    client: TestClient, games_dir: Path
) -> None:
    from abstractgames.referee import Referee
    from abstractgames.registry import make_player

    game = get_game("orderchaos")
    players = (make_player("random", game), make_player("random", game))
    finished = Referee(game, players, seed=3).play()
    started = new_game(client, game="orderchaos", players=["human", "human"], seed=3)
    for count, entry in enumerate(finished.games[0].moves[:6], start=1):
        client.post(f"/api/games/{started['id']}/move", json={"move": entry.move})
        wait_for(client, started["id"], lambda s, n=count: len(s["plies"]) == n)
    unfinished = MatchRecord.loads(client.get(f"/api/games/{started['id']}/record").text)
    unfinished.players = ("human", "greedy")
    text = unfinished.dumps()
    headers = {"content-type": "application/json"}
    made = client.post("/api/games/from-record", content=text, headers=headers)
    assert made.status_code == 201, made.text
    snapshot = wait_for(client, made.json()["id"], my_turn)
    moves = [m.move for m in finished.games[0].moves[:6]]
    assert [p["move"] for p in snapshot["plies"]][:6] == moves
    assert snapshot["players"][1]["spec"] == "greedy"
    refused = client.post("/api/games/from-record", content=finished.dumps(), headers=headers)
    assert refused.status_code == 409, refused.text
    outside = json.loads(text)
    outside["players"] = ["human", "engine:/bin/true"]
    refused = client.post("/api/games/from-record", json=outside)
    assert refused.status_code == 403 and "built-in players" in refused.json()["error"]
    for body in ("{", json.dumps({"format": "nope"})):
        refused = client.post("/api/games/from-record", content=body, headers=headers)
        assert refused.status_code == 400, refused.text
