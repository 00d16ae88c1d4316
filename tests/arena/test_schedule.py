"""The schedule (`abstractgames.arena.schedule`): round robin with both seats on one seed per
round, paired seeds that really pair the draws, and the players' short names."""

from __future__ import annotations

from abstractgames.arena import Arena, play_match, player_spec, round_seed, short_name, short_names
from abstractgames.records import GameRecord, MatchRecord
from tests.conftest import our_engine

# --- the schedule -------------------------------------------------------------------------------


def test_round_robin_schedule_with_both_seats_on_one_seed_per_round() -> None:
    third = our_engine("greedy")
    arena = Arena("orderchaos", ["random", "greedy", third], games=4, seed=9)
    tasks = arena.tasks
    assert len(tasks) == 3 * 4
    assert [t.number for t in tasks] == list(range(1, 13))
    assert [t.round for t in tasks] == [1] * 6 + [2] * 6
    assert {t.seed for t in tasks if t.round == 1} == {round_seed(9, 1)}
    assert {t.seed for t in tasks if t.round == 2} == {round_seed(9, 2)}
    assert round_seed(9, 1) != round_seed(9, 2) != round_seed(10, 1)
    assert [t.players for t in tasks[:6]] == [
        ("random", "greedy"),
        ("greedy", "random"),
        ("random", third),
        (third, "random"),
        ("greedy", third),
        (third, "greedy"),
    ]
    assert all(t.game == "orderchaos" for t in tasks)
    # a pair plays the same rounds on the same seeds whoever else takes part
    other = Arena("orderchaos", ["random", "greedy"], games=4, seed=9).tasks
    assert [(t.round, t.players, t.seed) for t in other] == [
        (t.round, t.players, t.seed) for t in tasks if third not in t.players
    ]


def chance_moves(game: GameRecord) -> list[tuple[int, str]]:
    return [(ply, m.move) for ply, m in enumerate(game.moves) if m.player is None]


def order_player(record: MatchRecord, number: int) -> str:
    match = record.new_match()
    return next(record.players[p - 1] for p in (1, 2) if match.role_of(p, number) == "order")


def test_paired_seeds_really_pair_the_bag_draws_in_entropy() -> None:
    arena = Arena("entropy:size=5", ["random", "greedy"], games=4, seed=3)
    records = [MatchRecord.loads(play_match(task)) for task in arena.tasks]
    first, second, later = records[0], records[1], records[2]
    assert first.players == ("random", "greedy") and second.players == ("greedy", "random")
    assert first.seed == second.seed != later.seed
    for number in (1, 2):
        draws = chance_moves(first.games[number - 1])
        assert len(draws) == 25
        assert draws == chance_moves(second.games[number - 1])
        assert draws != chance_moves(later.games[number - 1])
    order_in = {(order_player(r, number), number) for r in (first, second) for number in (1, 2)}
    # each bot was Order once against the draws of game 1 and once against those of game 2
    assert order_in == {(bot, number) for bot in ("random", "greedy") for number in (1, 2)}
    assert first.games[0].moves != second.games[0].moves  # the bots differ, the draws do not


def test_paired_seeds_in_a_game_without_chance_swap_the_seats() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
    one, two = (MatchRecord.loads(play_match(task)) for task in arena.tasks)
    assert (one.seed, one.players) == (two.seed, tuple(reversed(two.players)))


# --- short names ----------------------------------------------------------------------------------


def test_short_names_drop_a_programs_options_or_take_the_name_option() -> None:
    assert short_name("random") == "random"
    assert short_name("search:depth=2") == "search:depth=2"
    assert short_name("search:depth=2,name=deep") == "deep"
    assert short_name("engine:timeout=5,log=/tmp/x:./mybot --v2") == "engine:./mybot --v2"
    assert short_name("engine:name=v2,log=/tmp/x:./mybot --v2") == "v2"
    assert short_name("codecup:grace=1:./prog") == "codecup:./prog"
    assert short_name("engine::A=1:./prog") == "engine:A=1:./prog"
    assert short_name("examples/custom_bot.py:CentreBot:name=centre") == "centre"
    assert player_spec("search:depth=2,name=deep") == "search:depth=2"
    assert player_spec("search:name=deep") == "search"
    assert player_spec("engine:name=v2:./mybot") == "engine:./mybot"
    assert player_spec("engine:name=v2:A=1:./mybot") == "engine::A=1:./mybot"
    assert player_spec("engine:timeout=5,name=v2:./mybot", "logs") == (
        "engine:timeout=5,log=logs:./mybot"
    )
    bot = "examples/custom_bot.py:CentreBot"
    assert player_spec(f"{bot}:name=c") == bot


def test_name_clashes_are_settled_the_same_way_every_time() -> None:
    # the same program with other options: called by their whole specs
    assert short_names(["engine:timeout=5:./bot", "engine:timeout=9:./bot", "random"]) == (
        "engine:timeout=5:./bot",
        "engine:timeout=9:./bot",
        "random",
    )
    # names given twice, or a name that is another player's: numbered in the order given
    assert short_names(["random:name=a", "greedy:name=a", "search:name=b"]) == ("a#1", "a#2", "b")
    assert short_names(["greedy", "random:name=greedy"]) == ("greedy#1", "greedy#2")
    assert short_names(["random:name=x", "greedy:name=x", "search:name=x#1"]) == (
        "x#2",
        "x#3",
        "x#1",
    )
    specs = ["engine:./bot", "engine:grace=1:./bot", "random:name=engine:./bot"]
    names = short_names(specs)
    assert len(set(names)) == 3 and names == short_names(specs)


# --- a bot under another name ---------------------------------------------------------------------


def test_a_bot_may_play_itself_under_another_name() -> None:
    arena = Arena("orderchaos", ["random", "random:name=twin"], games=2, seed=1)
    report = arena.run()
    assert report.names == ("random", "twin") and report.complete
    assert MatchRecord.loads(play_match(arena.tasks[0])).players == ("random", "random:name=twin")
