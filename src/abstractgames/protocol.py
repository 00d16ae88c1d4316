"""The shared game protocol: every game implements it, every player, referee and tool uses it.

A [`Game`][] describes a game and its parameters and makes states; a [`State`][] is one
immutable position with everything needed to continue the game from it. Moves are small immutable
values whose `str()` is their canonical notation (see [Notation and rulings](../notation.md)).
Randomness in a game is never hidden: a state whose `to_move` is [`CHANCE`][] lists the possible
outcomes of a chance event with their probabilities, and whoever drives the game (a referee, a bot,
a test) picks one.

Games are found by name through [`abstractgames.registry`][] (`abstractgames.get_game`).

Examples:
    >>> import abstractgames
    >>> game = abstractgames.get_game("orderchaos")
    >>> state = game.initial_state().apply("X@c3")
    >>> state.to_move
    'chaos'
    >>> state.position()
    '6/6/6/2X3/6/6 chaos'
"""

from __future__ import annotations

import abc
import inspect
import operator
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from .specs import format_options, keyword_defaults
from .text import excerpt, value_excerpt

__all__ = [
    "CHANCE",
    "AbstractGamesError",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidParameterError",
    "InvalidPositionError",
    "Match",
    "MatchError",
    "MatchResult",
    "Move",
    "Outcome",
    "SingleGameMatch",
    "State",
    "UnknownGameError",
    "check_int_param",
    "check_seat",
    "random_move",
]

CHANCE = "chance"
"""The value of `state.to_move` at a chance node (e.g. a draw from Entropy's bag)."""


class AbstractGamesError(Exception):
    """Base class of every error this library raises on purpose."""


class UnknownGameError(AbstractGamesError, ValueError):
    """A game name that is not registered."""


class InvalidParameterError(AbstractGamesError, ValueError):
    """A game parameter that the game does not have, or a value it does not accept."""


class InvalidPositionError(AbstractGamesError, ValueError):
    """A position string that does not describe a valid position of the game."""


class IllegalMoveError(AbstractGamesError, ValueError):
    """A move that may not be played in the given state."""


class InvalidMoveError(IllegalMoveError):
    """Move text that is not valid notation for the game (a special case of an illegal move)."""


class MatchError(AbstractGamesError, ValueError):
    """A match event that cannot happen now, e.g. recording a game after the match is over."""


class Move:
    """Base class of all moves. Moves are immutable, hashable, and `str(move)` is canonical."""

    __slots__ = ()


def _frozen_scores(scores: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(scores))


@attrs.frozen(repr=False)
class Outcome:
    """How a finished game ended (immutable; outcomes are shared between states).

    Attributes:
        winner: the winning role, or `None` for a draw (or a game without a winner).
        scores: a read-only number for each role, e.g. `{"order": 1, "chaos": 0}`.
        reason: a short human-readable explanation, e.g. `"five in a row"`.
    """

    winner: str | None
    scores: Mapping[str, float] = attrs.field(converter=_frozen_scores, hash=False)
    reason: str

    def __repr__(self) -> str:
        return (
            f"Outcome(winner={self.winner!r}, scores={dict(self.scores)!r}, reason={self.reason!r})"
        )


class Game(abc.ABC):
    """A game with fixed parameters: it makes states and reads notation.

    Subclasses set [`name`][], [`roles`][] and [`max_length`][], and implement the abstract
    methods. Two games are equal when they have the same name and parameters.
    """

    name: str
    """The registered name, e.g. `"orderchaos"`."""
    title: str = ""
    """The game's name for people, e.g. `"Order and Chaos"` (default: [`name`][])."""
    roles: tuple[str, ...]
    """The players' roles in turn order, e.g. `("order", "chaos")`."""
    max_length: int
    """An upper bound on the number of plies (chance events included) of any game."""
    board_width: int = 0
    """Squares per rank of the board that [`State.cells`][] describes (0: no board)."""
    piece_colours: Mapping[str, str] = MappingProxyType({})
    """The colour name (e.g. `"red"`) of each piece letter that has one, for pictures."""
    num_distinct_actions: int = 0
    """How many integer actions a player's moves map to: `0 .. num_distinct_actions - 1`
    (0: the game has no integer actions; see [`action_of`][])."""
    max_chance_outcomes: int = 0
    """How many integer actions chance outcomes map to, `0 .. max_chance_outcomes - 1`."""
    observation_shape: tuple[int, ...] = ()
    """The shape of [`State.observation_tensor`][] (`()`: the game has no observations)."""
    returns_range: tuple[float, float] = (-1.0, 1.0)
    """The lowest and highest value [`State.returns`][] can give a role."""

    @property
    def params(self) -> dict[str, Any]:
        """The parameters this game was made with (all of them, defaults included)."""
        return {}

    @property
    def spec(self) -> str:
        """The game and its non-default parameters as one token, e.g. `"entropy:size=5"`."""
        defaults = keyword_defaults(type(self))
        extra = {k: v for k, v in self.params.items() if defaults.get(k) != v}
        return f"{self.name}:{format_options(extra)}" if extra else self.name

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The position at the start of a game."""

    @abc.abstractmethod
    def from_position(self, text: str) -> State:
        """Parse a position string (see [Notation](../notation.md)); raise
        [`InvalidPositionError`][]."""

    @abc.abstractmethod
    def parse_move(self, text: str, state: State) -> Move:
        """Read move notation in the context of `state`; raise [`InvalidMoveError`][].

        Parsing does not check legality (`state.apply` does), except where the state is needed to
        read the text at all.
        """

    def action_of(self, move: Move) -> int:
        """The integer action of `move`: a player's moves map to `0 .. num_distinct_actions - 1`,
        chance outcomes to `0 .. max_chance_outcomes - 1` (as in OpenSpiel).

        The encoding is fixed for a game and its parameters, documented on the game's page, and
        does not change between versions. It does not depend on the state: a move has one action.

        Raises:
            InvalidMoveError: `move` is not a move of this game (or of its size).
            NotImplementedError: the game has no integer actions.
        """
        raise NotImplementedError(f"{self.spec} has no integer actions")

    def move_of(self, action: int, state: State) -> Move:
        """The move that `action` stands for in `state` (the inverse of [`action_of`][]).

        At a chance node `action` is a chance outcome's; elsewhere, a player's. The state is
        needed where an action leaves part of the move to the position (e.g. the colour of the
        counter Entropy's Chaos places). Whether the move is legal is for `state.apply` to say.

        Raises:
            InvalidMoveError: `action` is not an integer in range, or names no move in `state`.
            NotImplementedError: the game has no integer actions.
        """
        raise NotImplementedError(f"{self.spec} has no integer actions")

    def check_action(self, action: object, state: State) -> int:
        """`action` as an `int` if it is one in the range `state` calls for, else raise
        [`InvalidMoveError`][] saying why (a helper for [`move_of`][])."""
        chance = state.to_move == CHANCE
        limit = self.max_chance_outcomes if chance else self.num_distinct_actions
        kind = "chance outcome" if chance else "action"
        try:
            if isinstance(action, bool):
                raise TypeError
            number = operator.index(action)  # type: ignore[arg-type]  # int or numpy integer
        except TypeError:
            raise InvalidMoveError(
                f"{'a' if chance else 'an'} {kind} is an integer, not {value_excerpt(action)}"
            ) from None
        if not 0 <= number < limit:
            raise InvalidMoveError(
                f"{kind} {value_excerpt(number)} is not in 0..{limit - 1} of {self.spec}"
            )
        return number

    def check_role(self, role: object) -> str:
        """`role` if it is one of [`roles`][], else raise [`InvalidParameterError`][]."""
        if role not in self.roles:
            raise InvalidParameterError(
                f"{value_excerpt(role)} is not a role of {self.spec}; the roles are "
                + ", ".join(self.roles)
            )
        return str(role)

    def new_match(self, *, time_loss_forfeits: bool = False) -> Match:
        """A fresh match between player 1 and player 2 under this game's match rules.

        The default is one game, player 1 in `roles[0]`; a game whose rules play several games
        (e.g. two with the roles swapped) returns its own [`Match`][]. `time_loss_forfeits`
        selects the rule where running out of time loses the whole match (correspondence play),
        for games whose live rules make moves for a player out of time instead.
        """
        return SingleGameMatch(self)

    def timeout_move(self, state: State) -> Move | None:
        """The move made for a player out of time in a live game, or `None` if they lose."""
        return None

    def side_line(self, state: State) -> str:
        """The line below a text diagram of `state` that says who is to move (see
        [`abstractgames.grid.diagram`][]); [`side_field`][] reads it back.

        By default the last field of the position string and `to move`, e.g. `"O to move"`
        or `"order to move"`: right for a game whose position string ends with the role to
        move, as one of [`roles`][]. A game whose last field says more (Entropy's phase)
        overrides both methods.
        """
        return f"{state.position().rsplit(maxsplit=1)[-1]} to move"

    def side_field(self, line: str) -> str:
        """The last field of a position string that a side-to-move line stands for (the
        inverse of [`side_line`][]), e.g. `"O"` for `"O to move"`.

        By default the line is a role (in any case) alone or followed by `to move` (or
        `to play`, `is to move`; words may follow, as in `"O to move and win"`), and the
        field is the role as [`roles`][] spells it.

        Raises:
            InvalidPositionError: the line says no side of this game; the message gives the
                lines that do.
        """
        words = _side_words(line)
        by_word = {role.lower(): role for role in self.roles}
        if words and words[0].lower() in by_word and _says_to_move(words[1:]):
            return by_word[words[0].lower()]
        choices = " or ".join(f"'{role} to move'" for role in self.roles)
        raise InvalidPositionError(
            f"'{excerpt(line)}' does not say who is to move in {self.spec}: write {choices}"
        )

    def goal(self, role: str) -> str:
        """What `role` plays for, in a few words for people, e.g. `"fill the board without
        five in a row"`; `""` (nothing to say) by default. The terminal shows it to a person."""
        return ""

    def rules_summary(self) -> str:
        """The rules in a few short lines for people (the terminal's `rules` command).

        By default the first paragraph of the game class's own docstring (`""` without one).
        """
        doc = inspect.cleandoc(type(self).__doc__ or "")
        return doc.split("\n\n")[0].replace("\n", " ").strip()

    def describe_outcome(self, outcome: Outcome) -> str:
        """How a finished game ended, in a line for people (the terminal's game-over line).

        By default who won (or `no winner`), the outcome's reason and each role's score, e.g.
        `"order wins (five in a row); scores: order 1, chaos 0"`. A game whose scores need
        explaining (Entropy's Order score, which decides its match) says what they mean.
        """
        winner = "no winner" if outcome.winner is None else f"{outcome.winner} wins"
        scores = ", ".join(f"{role} {score:g}" for role, score in outcome.scores.items())
        return f"{winner} ({outcome.reason}){'; scores: ' + scores if scores else ''}"

    def move_kinds(self, state: State) -> tuple[str, ...]:
        """The kinds of move the player to move in `state` can type, each with an example in
        notation, e.g. `("a slide such as d4-d7", "pass")`; none (`()`) by default.

        A front end lists them to say what to type; a game whose turns differ (Entropy's Order
        slides, its Chaos places) names only the mover's kinds.
        """
        return ()

    def benchmarks(self, rng: random.Random) -> dict[str, Callable[[], int]]:
        """Game-specific speed measurements for `abstractgames bench`, beyond random games.

        Returns `{name: run}`: `run()` does a fixed batch of work and returns how many items it
        processed; the name says what an item is, e.g. `"boards scored"`. Prepare the inputs
        (with `rng`) before returning, so that `run` times only the work itself.
        """
        return {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.name == other.name and self.params == other.params

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"get_game({self.name!r}{', ' if args else ''}{args})"


class State(abc.ABC):
    """One immutable position of a game.

    States compare equal when they describe the same position (what `position()` prints), and are
    hashable. `apply` returns a new state and never changes the one it is called on.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def game(self) -> Game:
        """The game this state belongs to."""

    @property
    @abc.abstractmethod
    def to_move(self) -> str | None:
        """The role to move, [`CHANCE`][] at a chance node, or `None` when the game is over."""

    @abc.abstractmethod
    def legal_moves(self) -> tuple[Move, ...]:
        """All legal moves in a stable canonical order; at a chance node, the possible outcomes."""

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        """At a chance node, `((move, probability), ...)` in the order of `legal_moves()`."""
        raise IllegalMoveError(f"{self.position()} is not a chance node")

    @abc.abstractmethod
    def apply(self, move: Move | str) -> State:
        """The state after `move` (a move or its notation); raise [`IllegalMoveError`][]."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """`None` while the game goes on, else how it ended."""

    @abc.abstractmethod
    def position(self) -> str:
        """The position string (see [Notation](../notation.md)); `game.from_position` reads it back
        equal."""

    def legal_actions(self) -> tuple[int, ...]:
        """The integer actions of `legal_moves()`, sorted (chance outcomes' at a chance node)."""
        action_of = self.game.action_of
        return tuple(sorted(action_of(move) for move in self.legal_moves()))

    def chance_actions(self) -> tuple[tuple[int, float], ...]:
        """At a chance node, `((action, probability), ...)` sorted by action."""
        action_of = self.game.action_of
        return tuple(sorted((action_of(move), p) for move, p in self.chance_outcomes()))

    def apply_action(self, action: int) -> State:
        """The state after the move whose integer action is `action` (see [`Game.action_of`][])."""
        return self.apply(self.game.move_of(action, self))

    def returns(self) -> dict[str, float]:
        """What each role gets from the game, for learning: all zero until the game is over.

        By default the winner gets 1, the loser -1 and a draw 0 for both (zero-sum); a game
        whose result is a score documents its own, within [`Game.returns_range`][].
        """
        outcome = self.outcome()
        roles = self.game.roles
        if outcome is None or outcome.winner is None:
            return dict.fromkeys(roles, 0.0)
        return {role: 1.0 if role == outcome.winner else -1.0 for role in roles}

    def observation(self, role: str) -> list[float]:
        """The position as `role` sees it: a flat list of floats in `[0, 1]`, in the row-major
        order of [`Game.observation_shape`][] (planes of the board, then of facts such as the
        side to move). What is hidden from `role` is not in it.

        Raises:
            InvalidParameterError: `role` is not one of the game's roles.
            NotImplementedError: the game has no observations.
        """
        raise NotImplementedError(f"{self.game.spec} has no observations")

    def observation_tensor(self, role: str) -> Any:
        """[`observation`][] as a `numpy.ndarray` of `float32` in
        [`Game.observation_shape`][] (needs numpy, e.g. from the `rl` extra)."""
        try:
            import numpy as np
        except ImportError:
            raise ImportError(
                "observation_tensor needs numpy: pip install 'abstractgames[rl]'"
            ) from None
        values = np.asarray(self.observation(role), dtype=np.float32)
        return values.reshape(self.game.observation_shape)

    def cells(self) -> str:
        """One character per square in index order (a1 first), `"."` for an empty square."""
        raise NotImplementedError(f"{type(self).__name__} has no board to show")

    def describe(self) -> tuple[str, ...]:
        """Short facts about the position for people (a score, a check…); none by default."""
        return ()

    def marked_squares(self) -> dict[int, str]:
        """Squares a picture marks, each with a short reason (`"line"`, `"isolated"`); none
        by default."""
        return {}

    def to_svg(
        self,
        *,
        highlight: Collection[int | str] = (),
        marks: Mapping[int, str] | Mapping[str, str] | Mapping[int | str, str] | None = None,
        size: int = 40,
    ) -> str:
        """The board as a standalone SVG picture (see [`abstractgames.svg.board_svg`][]).

        Squares are given by index or by name: `to_svg(highlight=["a4", "c4"])`.

        Args:
            highlight: squares to tint, e.g. the squares of the last move.
            marks: square → reason to outline instead of [`marked_squares`][].
            size: the side of one square in pixels.

        Raises:
            NotImplementedError: the game has no board (no [`cells`][]).
            ValueError: a square is not on the board.
        """
        from .svg import board_svg  # pictures are drawn on demand, like python-chess's _repr_svg_

        game = self.game
        cells = self.cells()
        if game.board_width <= 0:
            raise NotImplementedError(f"{type(game).__name__} has no board_width")
        return board_svg(
            cells,
            game.board_width,
            colours=game.piece_colours,
            marks=self.marked_squares() if marks is None else marks,
            highlight=highlight,
            size=size,
            title=self.position(),
        )

    def _repr_svg_(self) -> str | None:
        """The picture Jupyter shows; `None` (no picture) for a game without a board."""
        try:
            return self.to_svg()
        except NotImplementedError:
            return None

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.to_move is None

    def is_chance(self) -> bool:
        """Whether this is a chance node."""
        return self.to_move == CHANCE

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.position()!r}>"


@attrs.frozen
class MatchResult:
    """How a match ended.

    Attributes:
        winner: player 1 or 2, or `None` for a draw.
        reason: e.g. `"five in a row"`, `"player 2 resigned"`.
        scores: each player's score, where the game has one (Entropy: the Order scores), else
            `(None, None)`.
    """

    winner: int | None
    reason: str
    scores: tuple[float | None, float | None] = (None, None)


def check_seat(seat: object) -> int:
    """Return `seat` if it is 1 or 2 (player 1 or player 2), else raise [`MatchError`][]."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in (1, 2):
        raise MatchError(f"players are numbered 1 and 2, not {value_excerpt(seat)}")
    return seat


class Match(abc.ABC):
    """The games two players play to decide a winner, as an immutable value.

    Each event ([`record_game`][], [`resign`][], [`lose_on_time`][]) returns a new match.
    The players sit in seats 1 and 2 ("player 1", "player 2"); player 1 makes the first move of
    the first game.
    """

    @property
    @abc.abstractmethod
    def game(self) -> Game:
        """The game every game of the match is played in."""

    @property
    @abc.abstractmethod
    def game_number(self) -> int | None:
        """The game being played (1, 2, …), or `None` when the match is over."""

    @abc.abstractmethod
    def role_of(self, seat: int, game_number: int | None = None) -> str:
        """The role of player `seat` (1 or 2) in a game (default: the current one)."""

    def player_of(self, role: str, game_number: int | None = None) -> int:
        """The seat (1 or 2) of the player who plays `role` in a game (default: the current
        one)."""
        if role not in self.game.roles:
            roles = ", ".join(map(repr, self.game.roles))
            raise MatchError(f"the roles are {roles}, not {value_excerpt(role)}")
        return 1 if self.role_of(1, game_number) == role else 2

    @abc.abstractmethod
    def record_game(self, final: State) -> Match:
        """The match after the current game ended in the finished state `final`."""

    @abc.abstractmethod
    def forfeit(self, seat: int, reason: str) -> Match:
        """The match after player `seat` lost it at once for `reason` (resigned, out of time,
        an external program that crashed or broke the rules)."""

    def resign(self, seat: int) -> Match:
        """The match after player `seat` resigned: the other player wins it at once."""
        return self.forfeit(seat, f"player {check_seat(seat)} resigned")

    def lose_on_time(self, seat: int) -> Match:
        """The match after player `seat` ran out of time where that loses the match."""
        return self.forfeit(seat, f"player {check_seat(seat)} ran out of time")

    @abc.abstractmethod
    def result(self) -> MatchResult | None:
        """`None` while the match goes on, else who won and why."""

    def is_over(self) -> bool:
        """Whether the match is decided."""
        return self.result() is not None


@attrs.frozen
class SingleGameMatch(Match):
    """A match of one game: player 1 takes the first role; the game's winner wins the match.

    Running out of time loses (games without timeout moves), and so does resigning.
    """

    _game: Game
    outcome: Outcome | None = None
    forfeited: tuple[int, str] | None = None
    """The player who lost the match outside the rules of the game, and why."""

    @property
    def game(self) -> Game:
        return self._game

    @property
    def game_number(self) -> int | None:
        return None if self.is_over() else 1

    def role_of(self, seat: int, game_number: int | None = None) -> str:
        if game_number not in (None, 1):
            raise MatchError(f"this match has one game, not game {value_excerpt(game_number)}")
        return self._game.roles[check_seat(seat) - 1]

    def record_game(self, final: State) -> SingleGameMatch:
        self._check_going_on()
        outcome = final.outcome()
        if outcome is None or final.game != self._game:
            raise MatchError(f"{value_excerpt(final)} is not a finished game of {self._game!r}")
        return attrs.evolve(self, outcome=outcome)

    def forfeit(self, seat: int, reason: str) -> SingleGameMatch:
        self._check_going_on()
        return attrs.evolve(self, forfeited=(check_seat(seat), reason))

    def result(self) -> MatchResult | None:
        if self.forfeited is not None:
            loser, reason = self.forfeited
            return MatchResult(3 - loser, reason)
        if self.outcome is None:
            return None
        winner = None if self.outcome.winner is None else self.player_of(self.outcome.winner, 1)
        scores = tuple(self.outcome.scores.get(self.role_of(p)) for p in (1, 2))
        return MatchResult(winner, self.outcome.reason, scores)  # type: ignore[arg-type]

    def _check_going_on(self) -> None:
        if self.is_over():
            raise MatchError("the match is already over")


def _side_words(line: object) -> list[str]:
    """The words of a side-to-move line, without a full stop or comma after the last one.

    Raises:
        InvalidPositionError: the line is not text.
    """
    if not isinstance(line, str):
        raise InvalidPositionError(f"a side-to-move line is text, not {value_excerpt(line)}")
    words = line[:_SIDE_LINE_LIMIT].split()
    if words:
        words[-1] = words[-1].rstrip(".,;:!")
    return [word for word in words if word]


_SIDE_LINE_LIMIT = 200
"""A side-to-move line is read up to this many characters (what follows is commentary)."""


def _says_to_move(words: Sequence[str]) -> bool:
    """Whether the words after a side are nothing, or `to move` or `to play` (after an optional
    `is`) and then anything."""
    lowered = [word.lower() for word in words[:3]]
    if lowered[:1] == ["is"]:
        lowered = lowered[1:]
    return not words or lowered[:2] in (["to", "move"], ["to", "play"])


def random_move(state: State, rng: random.Random) -> Move:
    """A random legal move: uniform for a player, by the given probabilities at a chance node."""
    if state.to_move == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
    moves = state.legal_moves()
    if not moves:
        raise IllegalMoveError(f"no legal move in {state.position()}: the game is over")
    return rng.choice(moves)


def check_int_param(
    name: str,
    value: object,
    *,
    allowed: Sequence[int] | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """Validate an integer game parameter; raise [`InvalidParameterError`][] with the reason.

    `allowed` lists the only values accepted; `minimum` and `maximum` bound the range
    (both included). A message quotes at most an excerpt of the value.

    Examples:
        >>> check_int_param("depth", 7, minimum=1, maximum=100)
        7
        >>> try:
        ...     check_int_param("depth", 10**400, minimum=1, maximum=100)
        ... except InvalidParameterError as error:
        ...     print(error)
        parameter depth=<an integer of 401 digits> must be at most 100
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(
            f"parameter {name} must be an integer, not {value_excerpt(value)}"
        )
    if allowed is not None and value not in allowed:
        raise InvalidParameterError(
            f"parameter {name}={value_excerpt(value)} is not supported; choose one of "
            + ", ".join(map(str, allowed))
        )
    if minimum is not None and value < minimum:
        raise InvalidParameterError(
            f"parameter {name}={value_excerpt(value)} must be at least {minimum}"
        )
    if maximum is not None and value > maximum:
        raise InvalidParameterError(
            f"parameter {name}={value_excerpt(value)} must be at most {maximum}"
        )
    return value
