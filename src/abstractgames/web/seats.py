"""Who sits at a match of the web front ends, from the player specs a request gives: a person
([`HUMAN`][abstractgames.players.HUMAN]) or a bot, the one refusal of code from outside the
library ([`refuse_outside_code`][]), and the players made for the seats ([`make_seats`][]).

The one-person page and the game server both seat players through here: the page people and
bots (programs only when its server allows them), the server its own bots beside people.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress

from ..players import HUMAN, Player, is_human
from ..protocol import AbstractGamesError, Game
from ..registry import PlayerSpec, make_player, outside_code
from ..text import excerpt
from .errors import BadRequest, Forbidden

__all__ = ["bot_spec", "make_seats", "outside_code_refusal", "refuse_outside_code", "seat_specs"]


def outside_code_refusal(spec: str, why: str) -> str | None:
    """What refusing `spec` says, if it runs code from outside the library: what it runs in
    words (an [`OutsideCode`][abstractgames.registry.OutsideCode]'s value), then `why`.

    Examples:
        >>> outside_code_refusal("engine:./mybot", "not here")
        'engine:./mybot is an external program: not here'
        >>> outside_code_refusal("greedy", "not here") is None
        True
    """
    what = outside_code(spec)
    if what is None:
        return None
    return f"{excerpt(spec.strip())} is {what.value}: {why}"


def refuse_outside_code(spec: str, why: str) -> None:
    """Refuse `spec` if it runs a program, a file or a module (see [`outside_code_refusal`][]).

    Raises:
        Forbidden: it does.
    """
    refusal = outside_code_refusal(spec, why)
    if refusal is not None:
        raise Forbidden(refusal)


def seat_specs(specs: Sequence[str | None], *, refuse: str | None = None) -> tuple[str, str]:
    """The specs of the two seats as a front end keeps them: a person's (`None` too) as
    [`HUMAN`][abstractgames.players.HUMAN], a bot's without the spaces around it.

    Args:
        specs: player 1's and player 2's.
        refuse: why a program, a file or a module is refused here (`None`: it is not).

    Raises:
        BadRequest: not two specs, or an empty one.
        Forbidden: a spec that runs outside code, where that is refused.
    """
    if len(specs) != 2:
        raise BadRequest(f"a match has two players, not {len(specs)}")
    seated: list[str] = []
    for spec in specs:
        if spec is None or is_human(spec):
            seated.append(HUMAN)
            continue
        spec = spec.strip()
        if not spec:
            raise BadRequest("a player spec is empty: write human, greedy, search:time=1, …")
        if refuse is not None:
            refuse_outside_code(spec, refuse)
        seated.append(spec)
    return seated[0], seated[1]


def bot_spec(
    spec: str, game: Game, *, refuse: str | None, person: str, most_seconds: float | None = None
) -> str:
    """A bot's spec, checked by making the bot once (and closing it).

    Args:
        spec: the spec.
        game: the game the bot plays.
        refuse: why a program, a file or a module is refused here (`None`: it is not).
        person: what to say when `spec` is a person's.
        most_seconds: the longest the bot may be asked to think a move (its `time` option).

    Raises:
        BadRequest: a person, a spec that makes no bot, or one asked to think too long.
        Forbidden: a spec that runs outside code, where that is refused.
    """
    spec = spec.strip()
    if not spec or is_human(spec):
        raise BadRequest(person)
    if refuse is not None:
        refuse_outside_code(spec, refuse)
    try:
        make_player(spec, game).close()
        asked = PlayerSpec.parse(spec).option("time")
    except AbstractGamesError as error:
        raise BadRequest(str(error)) from None
    with suppress(ValueError):
        if most_seconds is not None and asked is not None and not float(asked) <= most_seconds:
            raise BadRequest(
                f"a bot on this server thinks at most {most_seconds:g} seconds a move, "
                f"not {excerpt(asked)}"
            )
    return spec


def make_seats(
    specs: tuple[str, str],
    game: Game,
    person: Callable[[int], Player],
    bot: Callable[[int, Player], Player],
) -> tuple[Player, Player]:
    """The players of the two seats of [`seat_specs`][]: `person(number)` for a person's,
    `bot(number, player)` around the bot `make_player` makes for the others; if one cannot be
    made, those made already are closed.

    Raises:
        AbstractGamesError: a spec that makes no player (its message says why).
    """
    made: list[Player] = []
    try:
        for number, spec in enumerate(specs, start=1):
            if is_human(spec):
                made.append(person(number))
            else:
                made.append(bot(number, make_player(spec, game)))
    except BaseException:
        for player in made:
            player.close()
        raise
    return made[0], made[1]
