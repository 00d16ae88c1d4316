"""What a person sees and types at `abstractgames play`, through the terminal's own pieces
(`Session`, `HumanPlayer`, `TerminalObserver`, lines typed by a test): `help`, `rules` and the
commentary fitted to the terminal's width, `resign` confirmed at a terminal, Tab completing
the bare squares the prompt suggests, undo and resume counting the players' moves (not Entropy's
draws), Entropy's game-over line saying what its score means, and the rule on running out of
time, which differs per game."""

from __future__ import annotations

import io
import random
from collections.abc import Sequence

import pytest

from abstractgames import Move, Outcome, State, available_games, get_game, make_player
from abstractgames.players import Player, Resign
from abstractgames.protocol import Game
from abstractgames.records import ClockSettings, MatchRecord
from abstractgames.referee import Referee
from abstractgames.terminal import (
    HELP,
    HELP_INTRO,
    HumanPlayer,
    LineReader,
    Session,
    TerminalObserver,
    help_text,
    make_console,
    paragraphs,
    wrap,
)


class Typed(LineReader):
    """Lines typed by a test; the prompts, questions and completions it was given; the end of
    the input (`EOFError`) when the lines run out."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []
        self.questions: list[str] = []
        self.completions: list[Sequence[str]] = []

    def read(
        self, prompt: str, *, completions: Sequence[str] = (), deadline: float | None = None
    ) -> str:
        self.prompts.append(prompt)
        self.completions.append(completions)
        return self._next()

    def ask(self, prompt: str, *, deadline: float | None = None) -> str:
        self.questions.append(prompt)
        return self._next()

    def _next(self) -> str:
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def terminal(
    *lines: str, width: int = 80, interactive: bool = False
) -> tuple[Session, Typed, io.StringIO]:
    buffer = io.StringIO()
    console = make_console(buffer, colour=False)
    console.width = width
    reader = Typed(*lines)
    return Session(console, interactive=interactive, reader=reader), reader, buffer


def first_turn(game: Game) -> State:
    """The game's start, its chance events played (Entropy's first draw)."""
    state = game.initial_state()
    while state.is_chance():
        state = state.apply(state.chance_outcomes()[0][0])
    return state


def match(
    game: Game, session: Session, bot: str = "greedy", *, seed: int = 1, **options: object
) -> tuple[Referee, HumanPlayer]:
    """A referee of a person (player 1, at `session`) against `bot`, with the terminal's
    commentary."""
    person = HumanPlayer(game, session, allow_undo=True)
    players: tuple[Player, Player] = (person, make_player(bot, game))
    observer = TerminalObserver(session, players, verbose=True)
    return Referee(game, players, seed=seed, observer=observer, **options), person  # type: ignore[arg-type]


def words(text: str) -> list[str]:
    return text.split()


# --- help and rules fit the terminal --------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 60, 40])
def test_help_fits_the_width_and_breaks_no_word(width: int) -> None:
    text = help_text(width)
    assert max(len(line) for line in text.splitlines()) <= width
    said = words(HELP_INTRO) + [w for command, what in HELP for w in [command, *words(what)]]
    assert words(text) == said  # every word whole, in order
    intro = len(wrap(HELP_INTRO, width).splitlines())
    for line in text.splitlines()[intro:]:  # each description in its column
        assert line.startswith("  ") and (line[2] != " " or line[:10] == " " * 10)
    assert any("'hint 3'" in line for line in text.splitlines())  # a command kept on one line


@pytest.mark.parametrize("width", [80, 60])
@pytest.mark.parametrize("name", available_games())
def test_help_and_rules_at_the_prompt_fit_the_width(name: str, width: int) -> None:
    game = get_game(name)
    session, _, buffer = terminal("help", "rules", "moves", "resign", width=width)
    with pytest.raises(Resign):
        HumanPlayer(game, session).choose(first_turn(game), random.Random(1))
    out = buffer.getvalue()
    assert max(len(line) for line in out.splitlines()) <= width, out
    helped = words(help_text(200))
    assert words(out[out.index("Type a move") :])[: len(helped)] == helped
    summary = game.rules_summary()
    assert " ".join(words(summary)) in " ".join(words(out))  # the rules, no word broken
    assert f"{game.title or game.name}\n" in out


def test_rules_keep_their_paragraphs() -> None:
    text = "First line of a sentence\nthat goes on.\n\nA second one.\nAnd a third"
    assert paragraphs(text) == [
        "First line of a sentence that goes on.",
        "A second one.",
        "And a third",
    ]
    assert wrap("a b c", 3) == "a b\nc"
    assert wrap("unbreakable words", 5) == "unbreakable\nwords"  # too long: alone, whole


def test_the_commentary_fits_a_narrow_terminal() -> None:
    game = get_game("entropy")
    session, _, buffer = terminal(width=44)
    players = (make_player("random", game), make_player("random", game))
    observer = TerminalObserver(session, players, verbose=True)
    Referee(game, players, seed=3, observer=observer).play()
    out = buffer.getvalue()
    assert max(len(line) for line in out.splitlines()) <= 44
    said = " ".join(words(out))
    assert "— game 1: player 1 (random) is chaos, player 2 (random) is order" in said
    assert "Result: player 1 (random) wins — player 1 scored" in said


# --- resign asks first at a terminal -------------------------------------------------------------


def test_resign_in_a_two_game_match_asks_first() -> None:
    game = get_game("entropy", size=5)
    session, reader, buffer = terminal("resign", "n", "resign", "y", interactive=True)
    referee, _ = match(game, session)
    record = referee.play()
    assert reader.questions == ["resign the whole match? y/N "] * 2
    assert "not resigned: play on" in buffer.getvalue()
    assert record.result is not None and record.result.winner == 2
    assert record.games[0].ended_by is not None and record.games[0].ended_by.event == "resigned"


def test_resign_asks_in_a_two_game_match_without_the_observer_too() -> None:
    game = get_game("entropy", size=5)
    session, reader, _ = terminal("resign", "no", "a1", interactive=True)
    move = HumanPlayer(game, session).choose(first_turn(game), random.Random(1))
    assert str(move) == "W@a1"
    assert reader.questions == ["resign the whole match? y/N "]


def test_resign_in_one_game_asks_first_too() -> None:
    """At the first move as later: a single game is not ended by one word typed at once."""
    game = get_game("orderchaos")
    session, reader, buffer = terminal("resign", "", "X@c3", interactive=True)
    move = HumanPlayer(game, session).choose(first_turn(game), random.Random(1))
    assert str(move) == "X@c3"
    assert reader.questions == ["resign this game? y/N "]
    assert "not resigned: play on" in buffer.getvalue()
    moves = ["X@a1", "O@b1", "X@c1", "O@d1"]
    session, reader, _ = terminal(*moves, "resign", "yes", interactive=True)
    people = (HumanPlayer(game, session), HumanPlayer(game, session, name="player 2"))
    observer = TerminalObserver(session, people, verbose=True)
    record = Referee(game, people, seed=1, observer=observer).play()
    assert reader.questions == ["resign this game? y/N "]
    assert len(record.games[0].moves) == len(moves)
    assert record.result is not None and record.result.winner == 2


def test_resign_asks_nothing_when_lines_are_piped_in() -> None:
    game = get_game("entropy", size=5)
    session, reader, _ = terminal("resign")
    with pytest.raises(Resign):
        HumanPlayer(game, session).choose(first_turn(game), random.Random(1))
    assert reader.questions == []


# --- Tab completes what the prompt says to type ---------------------------------------------------


def test_tab_completes_the_bare_square_entropys_chaos_types() -> None:
    game = get_game("entropy")
    state = first_turn(game)
    drawn = str(state.legal_moves()[0]).split("@")[0]
    session, reader, buffer = terminal("d4")
    move = HumanPlayer(game, session).choose(state, random.Random(1))
    assert str(move) == f"{drawn}@d4"
    assert f"type a square for {drawn}, such as" in " ".join(words(buffer.getvalue()))
    (offered,) = reader.completions
    assert [w for w in offered if w.startswith("d")] == [f"d{rank}" for rank in range(1, 8)]
    assert f"{drawn}@d4" in offered and "resign" in offered  # the full notation and commands
    assert len(offered) == len(set(offered))


def test_tab_completes_only_what_names_one_move() -> None:
    orderchaos = get_game("orderchaos")
    offered = HumanPlayer(orderchaos, terminal()[0])._completions(first_turn(orderchaos))
    assert "X@c3" in offered and "O@c3" in offered
    assert "c3" not in offered  # X or O: a bare square is no move
    entropy = get_game("entropy", size=5)
    state = first_turn(entropy).apply("W@c3")
    offered = HumanPlayer(entropy, terminal()[0])._completions(state)  # Order: slides
    assert sorted(offered) == sorted(str(m) for m in state.legal_moves())


# --- moves counted, not chance draws --------------------------------------------------------------


def test_undo_counts_the_moves_taken_back_not_the_draws() -> None:
    game = get_game("entropy", size=5)
    session, _, buffer = terminal("a1", "undo", "b1")
    referee, _ = match(game, session)
    record = referee.play()  # the input ends: the match stops, to be continued
    assert not record.finished
    out = buffer.getvalue()
    assert "  took back 2 moves" in out  # Chaos's and Order's; a draw went too
    players = [m.player for m in record.games[0].moves]
    assert players == [None, 1, 2, None]  # b1 after the undo, Order's reply, a draw


def test_resume_counts_the_moves_played_not_the_draws() -> None:
    game = get_game("entropy", size=5)
    session, _, _ = terminal("a1", "b1")
    referee, _ = match(game, session)
    record = referee.play()
    kept = MatchRecord.loads(record.dumps())  # as saved and resumed
    assert [m.player for m in kept.games[0].moves] == [None, 1, 2, None, 1, 2, None]
    session, _, buffer = terminal("resign", width=200)
    referee, _ = match(game, session)
    referee.play(kept)
    assert "resumed after 4 moves" in buffer.getvalue()


# --- the game-over line ---------------------------------------------------------------------------


def test_entropys_game_over_line_says_what_the_score_means() -> None:
    game = get_game("entropy", size=5)
    session, _, buffer = terminal(width=200)
    players = (make_player("random", game), make_player("random", game))
    observer = TerminalObserver(session, players, verbose=False)
    record = Referee(game, players, seed=2, observer=observer).play()
    score = record.games[0].outcome.scores["order"]  # type: ignore[union-attr]
    lines = buffer.getvalue().splitlines()
    assert (
        f"— game 1 over: the board is full and Order scored {score:g} (each palindrome in a "
        "rank or file counts its length); a match goes to the player who scores more as Order"
    ) in lines
    assert "no winner" not in buffer.getvalue() and "chaos 0" not in buffer.getvalue()


def test_other_games_and_other_ends_say_who_won() -> None:
    won = Outcome("order", {"order": 1, "chaos": 0}, "five in a row")
    said = "order wins (five in a row); scores: order 1, chaos 0"
    assert get_game("orderchaos").describe_outcome(won) == said
    dispersed = Outcome("S", {"O": 0, "S": 1}, "S dispersed")
    said = "S wins (S dispersed); scores: O 0, S 1"
    assert get_game("dispersal").describe_outcome(dispersed) == said
    other = Outcome(None, {}, "agreed")
    assert get_game("entropy").describe_outcome(other) == "no winner (agreed)"


# --- running out of time --------------------------------------------------------------------------

PLAYS_ON = (
    "a player out of time does not lose: their moves are made for them for the rest of that game"
)


@pytest.mark.parametrize(
    ("name", "forfeits", "single", "said"),
    [
        ("entropy", False, False, PLAYS_ON),
        ("entropy", False, True, PLAYS_ON),
        ("entropy", True, False, "a player out of time loses the whole match"),
        ("entropy", True, True, "a player out of time loses the game"),
        ("orderchaos", False, False, "a player out of time loses the game"),
        ("orderchaos", True, False, "a player out of time loses the game"),
        ("dispersal", False, False, "a player out of time loses the game"),
        ("dispersal", True, False, "a player out of time loses the game"),
    ],
)
def test_the_time_rule_says_what_a_flag_fall_does(
    name: str, forfeits: bool, single: bool, said: str
) -> None:
    game = get_game(name)
    players = (make_player("random", game), make_player("random", game))
    clock = ClockSettings(60.0)
    referee = Referee(
        game, players, seed=1, clock=clock, time_loss_forfeits=forfeits, single=single
    )
    assert referee.time_rule() == said
    assert Referee(game, players, seed=1, time_loss_forfeits=forfeits).time_rule() is None


@pytest.mark.parametrize("name", available_games())
def test_the_time_rule_is_what_happens(name: str) -> None:
    """A player whose every move takes too long: the game plays on for them where the rule says
    so, else they lose."""

    class Slow(Player):
        spec = "slow"

        def __init__(self, clock: list[float]) -> None:
            self.clock = clock

        def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
            self.clock[0] += 100.0
            return state.legal_moves()[0]

    game = get_game(name)
    now = [0.0]
    players = (Slow(now), make_player("random", game))
    referee = Referee(
        game, players, seed=1, clock=ClockSettings(10.0), single=True, time_source=lambda: now[0]
    )
    rule = referee.time_rule()
    record = referee.play()
    ended_by = record.games[0].ended_by
    if rule == PLAYS_ON:
        assert ended_by is None and any(m.auto for m in record.games[0].moves)
    else:
        assert ended_by is not None and ended_by.event == "out of time"


# --- messages for people (issue 54, item 3) ------------------------------------------------------


def test_order_and_chaos_examples_follow_the_position() -> None:
    """`X@c3` is the example only while c3 is empty: in the role line and in the error for
    `X@c3` itself once c3 is taken."""
    game = get_game("orderchaos")
    state = game.initial_state().apply("X@c3")
    session, _, buffer = terminal("X@c3", "O@a1")
    move = HumanPlayer(game, session).choose(state, random.Random(1))
    assert str(move) == "O@a1"
    said = " ".join(words(buffer.getvalue()))
    assert "such as X@d3" in said and "such as X@c3" not in said
    assert "c3 is occupied" in said


def test_an_illegal_move_says_the_reason_not_the_position() -> None:
    game = get_game("dispersal")
    state = game.initial_state()
    session, _, buffer = terminal("a1-a5", "pass", "b2-b3", "a2-a3")
    HumanPlayer(game, session).choose(state, random.Random(1))
    out = buffer.getvalue()
    assert out.count("not played:") >= 1
    assert state.position() not in out and state.position().split()[0] not in out
    assert "not played: illegal move a1-a5:" in " ".join(words(out))


def test_a_square_alone_asks_x_or_o() -> None:
    game = get_game("orderchaos")
    session, reader, buffer = terminal("c3", "o")
    move = HumanPlayer(game, session).choose(game.initial_state(), random.Random(1))
    assert str(move) == "O@c3"
    assert reader.questions == ["X or O? "]
    session, reader, buffer = terminal("c3", "maybe", "X@d4")
    move = HumanPlayer(game, session).choose(game.initial_state(), random.Random(1))
    assert str(move) == "X@d4"
    assert "not played: type the move again" in buffer.getvalue()


@pytest.mark.parametrize(
    ("lines", "result"),
    [
        (("resign",), "Result: greedy wins — you resigned"),
        ((), "Result: you win — greedy resigned"),
    ],
)
def test_the_result_says_you_and_the_bots_name(lines: tuple[str, ...], result: str) -> None:
    game = get_game("orderchaos")
    session, _, buffer = terminal(*lines)
    person = HumanPlayer(game, session)

    class Resigns(Player):
        spec = "greedy"

        def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
            raise Resign()

    players: tuple[Player, Player] = (person, Resigns())
    if not lines:  # the bot moves first and resigns
        players = (Resigns(), person)
    observer = TerminalObserver(session, players, verbose=True)
    Referee(game, players, seed=1, observer=observer).play()
    assert result in " ".join(words(buffer.getvalue()))
    assert "player 1" not in buffer.getvalue().split("Result:")[1]
