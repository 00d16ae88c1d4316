"""The conformance kit over every registered game (and variants with non-default parameters)."""

from __future__ import annotations

import pytest

from abstractgames import available_games, get_game, parse_game_spec
from abstractgames.testing import conformance_properties

from .conftest import examples

VARIANTS = {
    "entropy": ["entropy:size=5"],
    "dispersal": ["dispersal:max_plies=12", "dispersal:max_plies=1"],
}
SPECS = [spec for name in available_games() for spec in [name, *VARIANTS.get(name, [])]]
PROPERTIES = sorted(conformance_properties(get_game("orderchaos")))


@pytest.mark.parametrize("prop", PROPERTIES)
@pytest.mark.parametrize("spec", SPECS)
def test_conformance(spec: str, prop: str) -> None:
    conformance_properties(parse_game_spec(spec), max_examples=examples(60))[prop]()
