"""Board pictures (`abstractgames.svg`): the SVG structure, colours, marks and highlights."""

from __future__ import annotations

import ast
import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from abstractgames import State, available_games, get_game
from abstractgames.entropy import COLOURS
from abstractgames.svg import PALETTE, board_svg
from tests.support.toygame import DiceRace

ROOT = Path(__file__).resolve().parents[2]
NS = {"svg": "http://www.w3.org/2000/svg"}
ENTROPY_FULL = "PPPPPPP/BBBBBBB/RRRRRRR/KYGWGYK/KYGWGYK/WKYGYKW/GWKWYWG end"
FIG_2 = "S1O1S/O3O/OSSOS/S4/2OOS O"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def pieces(root: ET.Element) -> dict[str, str]:
    found = root.findall(".//svg:g[@class='piece']", NS)
    by_square = {g.attrib["data-square"]: g.attrib["data-piece"] for g in found}
    assert len(by_square) == len(found), "one piece element per square"
    return by_square


def expected_pieces(state: State) -> dict[str, str]:
    width = state.game.board_width
    return {
        f"{'abcdefg'[i % width]}{i // width + 1}": c
        for i, c in enumerate(state.cells())
        if c != "."
    }


def marks(root: ET.Element) -> dict[str, str]:
    found = root.findall(".//svg:rect[@class='mark']", NS)
    return {r.attrib["data-square"]: r.attrib["data-reason"] for r in found}


def squares_of(root: ET.Element, cls: str) -> set[str]:
    return {e.attrib["data-square"] for e in root.findall(f".//*[@class='{cls}']", NS)}


def luma(fill: str) -> float:
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b


def contrast(a: str, b: str) -> float:
    def relative(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((relative(a), relative(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(
    ("spec", "position"),
    [
        ("entropy", ENTROPY_FULL),
        ("entropy", "7/2R4/1WKYG2/3B3/P6/7/7 draw"),
        ("entropy:size=5", "5/1RKW1/5/Y4/4G order"),
        ("orderchaos", "6/6/3O2/2X3/6/6 order"),
        ("dispersal", FIG_2),
    ],
)
def test_one_piece_element_per_piece(spec: str, position: str) -> None:
    from abstractgames import parse_game_spec

    state = parse_game_spec(spec).from_position(position)
    root = parse(state.to_svg())
    assert pieces(root) == expected_pieces(state)
    assert root.attrib["viewBox"].startswith("0 0 ")
    assert int(root.attrib["width"]) > 0 and int(root.attrib["height"]) > 0


@pytest.mark.parametrize("spec", [*available_games(), "entropy:size=5"])
def test_every_start_position_renders(spec: str) -> None:
    from abstractgames import parse_game_spec

    state = parse_game_spec(spec).initial_state()
    root = parse(state.to_svg())
    assert pieces(root) == expected_pieces(state)
    assert root.findtext("svg:title", namespaces=NS) == state.position()


def test_entropy_colours_are_the_palette_with_letters() -> None:
    root = parse(get_game("entropy").from_position(ENTROPY_FULL).to_svg())
    names = get_game("entropy").piece_colours
    fills = {}
    for g in root.findall(".//svg:g[@class='piece']", NS):
        letter = g.attrib["data-piece"]
        fill = g.find("svg:circle", NS).attrib["fill"]  # type: ignore[union-attr]
        text = g.find("svg:text", NS)
        assert text is not None and text.text == letter
        assert (fill, text.attrib["fill"]) == PALETTE[names[letter]]
        fills[letter] = fill
    assert sorted(fills) == sorted(COLOURS)
    assert len(set(fills.values())) == 7


def test_palette_reads_in_greyscale() -> None:
    order = ["white", "yellow", "green", "red", "blue", "purple", "black"]
    lightness = [luma(PALETTE[name][0]) for name in order]
    assert all(a - b >= 20 for a, b in itertools.pairwise(lightness)), lightness
    for fill, ink in PALETTE.values():
        assert contrast(fill, ink) >= 4.5


def test_palette_hues_match_their_names() -> None:
    def rgb(name: str) -> tuple[int, ...]:
        fill = PALETTE[name][0]
        return tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5))

    r, g, b = rgb("red")
    assert r > g and r > b
    r, g, b = rgb("green")
    assert g > r and g > b
    r, g, b = rgb("blue")
    assert b > r and b > g
    r, g, b = rgb("yellow")
    assert min(r, g) > 2 * b
    r, g, b = rgb("purple")
    assert min(r, b) > g
    assert min(rgb("white")) >= 240 and max(rgb("black")) <= 40


def test_coordinates_files_below_ranks_left_rank_1_at_the_bottom() -> None:
    state = get_game("entropy").from_position("7/7/7/7/2R4/7/7 order")
    root = parse(state.to_svg())
    labels = {t.text: t.attrib for t in root.findall(".//svg:g[@class='coordinates']/svg:text", NS)}
    assert set(labels) == set("abcdefg1234567")
    assert int(labels["a"]["x"]) < int(labels["g"]["x"])
    assert int(labels["1"]["y"]) > int(labels["7"]["y"])
    assert int(labels["a"]["y"]) > int(labels["1"]["y"])  # files under the board
    assert int(labels["1"]["x"]) < int(labels["a"]["x"])  # ranks at its left
    circle = root.find(".//svg:g[@data-square='c3']/svg:circle", NS)
    assert circle is not None
    assert circle.attrib["cx"] == labels["c"]["x"]
    assert abs(int(circle.attrib["cy"]) - int(labels["3"]["y"])) < 50


def test_order_and_chaos_letters_and_winning_line() -> None:
    before = get_game("orderchaos").from_position("6/6/6/6/O5/XXXX2 chaos")
    assert before.marked_squares() == {}
    assert marks(parse(before.to_svg())) == {}
    won = before.apply("X@e1")
    assert won.marked_squares() == dict.fromkeys(range(5), "line")
    root = parse(won.to_svg(highlight=[4]))
    assert marks(root) == dict.fromkeys(["a1", "b1", "c1", "d1", "e1"], "line")
    assert squares_of(root, "highlight") == {"e1"}
    x = root.find(".//svg:g[@data-square='a1']", NS)
    assert x is not None and x.find("svg:circle", NS) is None
    assert [t.text for t in x.findall("svg:text", NS)] == ["X"]


def test_dispersal_marks_the_isolated_pieces_in_check() -> None:
    fig2 = get_game("dispersal").from_position(FIG_2)
    assert fig2.marked_squares() == {22: "isolated"}
    root = parse(fig2.to_svg())
    assert marks(root) == {"c5": "isolated"}
    fills = {
        g.attrib["data-piece"]: g.find("svg:circle", NS).attrib["fill"]  # type: ignore[union-attr]
        for g in root.findall(".//svg:g[@class='piece']", NS)
    }
    assert luma(fills["O"]) - luma(fills["S"]) > 150  # light O, dark S
    after = fig2.apply("a4-c4")  # clears c5 and cuts S's a5 off
    assert marks(parse(after.to_svg())) == {"a5": "isolated"}
    over = get_game("dispersal").from_position("S1O1O/O1SOS/S4/OOSSO/S4 S").apply("d2-e1")
    assert over.outcome() is not None and over.marked_squares() == {}


def test_explicit_marks_replace_the_states_own() -> None:
    fig2 = get_game("dispersal").from_position(FIG_2)
    assert marks(parse(fig2.to_svg(marks={0: "start"}))) == {"a1": "start"}
    assert marks(parse(fig2.to_svg(marks={}))) == {}


def test_output_is_deterministic_and_repr_svg_is_to_svg() -> None:
    game = get_game("orderchaos")
    played = game.initial_state().apply("X@c3").apply("O@d4")
    read = game.from_position(played.position())
    assert played.to_svg() == read.to_svg() == played._repr_svg_()
    assert played.to_svg(size=60) != played.to_svg()
    assert played.to_svg(highlight={18, 27}) == played.to_svg(highlight=[27, 18])


def test_repr_svg_is_none_without_a_board() -> None:
    state = DiceRace().initial_state()
    assert state._repr_svg_() is None
    with pytest.raises(NotImplementedError):
        state.to_svg()


def test_size_scales_the_picture_not_the_drawing() -> None:
    state = get_game("dispersal").initial_state()
    small, large = parse(state.to_svg(size=20)), parse(state.to_svg(size=80))
    assert small.attrib["viewBox"] == large.attrib["viewBox"]
    assert int(large.attrib["width"]) == 4 * int(small.attrib["width"])


def test_text_is_escaped() -> None:
    svg = board_svg('<&".', 2, colours={"&": "red"}, marks={0: "a <b>"}, title="x & 'y'")
    root = parse(svg)
    assert pieces(root) == {"a1": "<", "b1": "&", "a2": '"'}
    assert marks(root) == {"a1": "a <b>"}
    assert root.findtext("svg:title", namespaces=NS) == "x & 'y'"


def test_other_colours_and_no_coordinates() -> None:
    root = parse(board_svg("ab", 2, colours={"a": "#102030", "b": "orange"}, coordinates=False))
    assert root.find(".//svg:g[@class='coordinates']", NS) is None
    a = root.find(".//svg:g[@data-square='a1']/svg:circle", NS)
    b = root.find(".//svg:g[@data-square='b1']/svg:circle", NS)
    assert a is not None and a.attrib["fill"] == "#102030"
    assert b is not None and b.attrib["fill"] == "orange"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("...", 2), "whole ranks"),
        (("", 1), "whole ranks"),
        (("..", 0), "width"),
        (("..", 27), "width"),
        (("a\nb.", 2), "cannot be drawn"),
    ],
)
def test_bad_boards_are_refused(args: tuple[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        board_svg(*args)


def test_bad_squares_and_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="not on the board"):
        board_svg("....", 2, marks={4: "x"})
    with pytest.raises(ValueError, match="not on the board"):
        board_svg("....", 2, highlight=[-1])
    with pytest.raises(ValueError, match="size"):
        board_svg("....", 2, size=0)


def test_squares_by_name_draw_as_squares_by_index() -> None:
    fig2 = get_game("dispersal").from_position(FIG_2)
    by_index = fig2.to_svg(highlight=[15, 17], marks={22: "isolated", 0: "start"})
    assert fig2.to_svg(highlight=["a4", "c4"], marks={"c5": "isolated", "a1": "start"}) == by_index
    assert fig2.to_svg(highlight=["A4", 17], marks={22: "isolated", " a1": "start"}) == by_index
    root = parse(fig2.apply("a4-c4").to_svg(highlight=["a4", "c4"]))
    assert squares_of(root, "highlight") == {"a4", "c4"}
    picture = parse(board_svg("R.B.", 2, marks={"b2": "x"}, highlight=("a1", "a1", 0)))
    assert marks(picture) == {"b2": "x"} and squares_of(picture, "highlight") == {"a1"}


@pytest.mark.parametrize(
    "square", ["f1", "a6", "a0", "z9", "", "c", "c3 d4", "a\u00b2", "a" + "9" * 5000, -1, 25, True]
)
def test_squares_off_the_board_are_refused_by_name_too(square: object) -> None:
    state = get_game("dispersal").initial_state()
    with pytest.raises(ValueError, match=r"is not on the board \(a1 to e5, or 0 to 24\)"):
        state.to_svg(highlight=[square])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="is not on the board"):
        state.to_svg(marks={square: "x"})  # type: ignore[dict-item]


def test_a_huge_square_is_refused_in_a_short_message() -> None:
    with pytest.raises(ValueError) as caught:
        board_svg("....", 2, highlight=[10**5000])
    assert len(str(caught.value)) < 100


def test_drawing_module_depends_on_the_standard_library_only() -> None:
    tree = ast.parse((ROOT / "src" / "abstractgames" / "svg.py").read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "svg.py imports nothing from the package"
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "collections", "html", "re", "types"}
