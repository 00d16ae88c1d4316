"""The moves of Entropy: a draw from the bag, Chaos's placement, Order's slide or pass."""

from __future__ import annotations

from typing import Any

import attrs

from ..grid import grid
from ..protocol import Move
from ..text import value_excerpt
from .board import COLOURS, SIZES

__all__ = ["PASS", "Draw", "Pass", "Placement", "Slide"]


def _check_colour(instance: Any, attribute: Any, value: str) -> None:
    size = getattr(instance, "size", 7)
    if value not in COLOURS[:size] or len(value) != 1:
        raise ValueError(f"colour {value_excerpt(value)} is not one of {' '.join(COLOURS[:size])}")


def _check_square(instance: Any, attribute: Any, value: int) -> None:
    size = instance.size if instance.size in SIZES else 7
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size * size:
        raise ValueError(
            f"{attribute.name} {value_excerpt(value)} is not a square index of a {size}×{size} "
            "board"
        )


def _size_suffix(size: int) -> str:
    return "" if size == 7 else f", size={size}"


@attrs.frozen(slots=True, repr=False)
class Draw(Move):
    """The chance event of drawing a `colour` counter from the bag; notation `R`."""

    colour: str = attrs.field(validator=_check_colour)

    def __str__(self) -> str:
        return self.colour

    def __repr__(self) -> str:
        return f"Draw({self.colour!r})"


@attrs.frozen(slots=True, repr=False)
class Placement(Move):
    """Chaos puts the drawn `colour` counter on `square` (0 = a1, index order); `R@d4`."""

    colour: str = attrs.field(validator=_check_colour)
    square: int = attrs.field(validator=_check_square)
    size: int = attrs.field(default=7, kw_only=True, validator=attrs.validators.in_(SIZES))

    def __str__(self) -> str:
        return f"{self.colour}@{grid(self.size, self.size).names[self.square]}"

    def __repr__(self) -> str:
        return f"Placement({str(self)!r}{_size_suffix(self.size)})"


@attrs.frozen(slots=True, repr=False)
class Slide(Move):
    """Order slides the counter on `origin` to `target` like a rook; notation `d4-d7`.

    Any two squares make a `Slide` value; `state.apply` decides whether it is legal.
    """

    origin: int = attrs.field(validator=_check_square)
    target: int = attrs.field(validator=_check_square)
    size: int = attrs.field(default=7, kw_only=True, validator=attrs.validators.in_(SIZES))

    def __str__(self) -> str:
        names = grid(self.size, self.size).names
        return f"{names[self.origin]}-{names[self.target]}"

    def __repr__(self) -> str:
        return f"Slide({str(self)!r}{_size_suffix(self.size)})"


@attrs.frozen(slots=True, repr=False)
class Pass(Move):
    """Order leaves the board as it is; notation `pass`. Use the singleton [`PASS`][]."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "PASS"


PASS = Pass()
"""Order's pass."""
