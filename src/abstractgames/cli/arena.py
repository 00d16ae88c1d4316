"""`abstractgames arena`: a tournament between bots, its progress bar, its state file for
`--resume`."""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..interrupts import EXIT_INTERRUPTED
from ..protocol import AbstractGamesError, Game
from ..registry import parse_game_spec
from ..text import printable
from .common import (
    _check_output,
    _clock_option,
    _interrupted,
    _logs_directory,
    _logs_option,
    _many_positions,
    _position_options,
    _sandbox_note,
    _say,
    _seed_option,
    _user_errors,
)

if TYPE_CHECKING:
    from rich.progress import TaskID


def _default_state(game: Game, seed: int) -> str:
    from ..files import safe_name

    return f"abstractgames-arena-{safe_name(game.spec)}-{seed}.jsonl"


@contextmanager
def _progress_bar(
    enabled: bool, unit: str, verbose: bool = False
) -> Iterator[tuple[Callable[[int, int], None] | None, Callable[[Any], None] | None]]:
    """`(on_progress, on_match)` for `Arena.run`: a rich progress bar on stderr (when it is a
    terminal and `enabled`): finished/total, rate, time spent, the arena's estimate of the time
    left; and with `verbose` a line on stderr for each finished match."""
    import time

    from rich.console import Console

    from ..arena import MatchDone, format_duration
    from ..text import plural

    console = Console(stderr=True)
    if not enabled or not console.is_terminal:

        def say(done: MatchDone) -> None:
            _say(done.line())

        yield None, say if verbose else None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    units = plural(unit)

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            if speed is None:
                text = ""
            elif speed >= 1:
                text = f"{speed:.1f} {units}/s"
            else:
                text = f"{60 * speed:.1f} {units}/min"
            return Text(text, style="progress.data.speed")

    class TimeLeft(ProgressColumn):
        """The arena's estimate (pair by pair), counted down between two finished matches."""

        def render(self, task: Task) -> Text:
            estimate = task.fields.get("left")
            if task.finished:
                text = format_duration(0)
            elif estimate is None:
                text = "-:--:--"
            else:
                seconds, at = estimate
                text = format_duration(max(seconds - (time.monotonic() - at), 0.0))
            return Text(f"{text} left", style="progress.remaining")

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("·"),
        TimeLeft(),
    )
    with Progress(*columns, console=console, speed_estimate_period=600) as progress:
        ids: list[TaskID] = []

        def update(done: int, total: int) -> None:
            if not ids:  # what a resumed tournament had done does not count in the rate
                ids.append(progress.add_task(units, total=total, completed=done, left=None))
            progress.update(ids[0], completed=done, total=total)

        def finished(done: MatchDone) -> None:
            if verbose:
                progress.console.print(Text(printable(done.line())))
            if ids and done.time_left is not None:
                progress.update(ids[0], left=(done.time_left, time.monotonic()))

        yield update, finished


@click.command()
@click.argument("game")
@click.argument("more_players", nargs=-1, metavar="[SPEC]...")
@click.option(
    "--players",
    "-p",
    multiple=True,
    metavar="SPEC",
    help="The players (two or more): --players SPEC SPEC [SPEC]...",
)
@click.option(
    "--games",
    "-n",
    default=20,
    show_default=True,
    type=int,
    help="Games per pair of players (Entropy: matches of two games); even, as every seed is "
    "played with the players in both seats.",
)
@_seed_option("Seed of the tournament.", default=0)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Matches played at once in local processes. [default: one per core]",
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    metavar="local|dask://HOST:PORT",
    help="Where the matches are played: local processes, or a dask.distributed cluster.",
)
@click.option(
    "--dask-wait",
    type=click.FloatRange(min=0, min_open=True, max=86_400),
    metavar="SECONDS",
    help="With a dask cluster: how long to wait for a worker while there is none. [default: 60]",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="Write the results as JSON here.",
)
@click.option(
    "--records",
    "records_dir",
    type=click.Path(file_okay=False),
    help="Write the game record of every match in this directory.",
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False),
    help="Keep the finished matches in this file. [default: abstractgames-arena-GAME-SEED.jsonl, "
    "deleted once the tournament is complete]",
)
@click.option(
    "--resume", is_flag=True, help="Continue the interrupted tournament of the state file."
)
@click.option(
    "--clock",
    callback=_clock_option,
    metavar="SECONDS[+INCREMENT]",
    help="Each player's time per game, e.g. 300+2 (the records keep every move's time).",
)
@click.option(
    "--time-loss-forfeits",
    "--correspondence",
    "time_loss_forfeits",
    is_flag=True,
    help="Running out of time loses the match, also in a game whose live rules make the moves "
    "of a player out of time.",
)
@_position_options(many=True)
@_logs_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("-v", "--verbose", is_flag=True, help="A line on stderr for each finished match.")
def arena(
    game: str,
    more_players: tuple[str, ...],
    players: tuple[str, ...],
    games: int,
    seed: int,
    jobs: int | None,
    executor: str,
    dask_wait: float | None,
    json_path: str | None,
    records_dir: str | None,
    state_path: str | None,
    resume: bool,
    clock: Any,
    time_loss_forfeits: bool,
    positions: tuple[str, ...],
    position_file: str | None,
    side: str | None,
    logs_dir: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Play a seeded round robin between bots and show how strong each one is.

    Every pair of players (e.g. --players random greedy search:depth=2 "engine:./mybot") plays
    --games games, on paired seeds: each seed once with each player first, so both meet the
    same chance events (Entropy's bag draws). The table gives wins, draws and losses, Elo-style
    ratings with 95% error bars and, in Entropy, the mean Order score with its 95% interval.
    The same seed gives the same results whatever --jobs or --executor (for bots whose moves do
    not depend on a time budget).

    Tables and record files call a player by the name= option of its spec, or by its spec
    without a program's options (engine:timeout=5:./mybot is engine:./mybot); the JSON results
    keep the whole specs. --clock plays every match under a time control, as in 'play'.

    An openings suite: --position (repeated) or --position-file (position strings one to a
    line, or text diagrams) gives the positions the matches start from; every pair plays
    --games matches from each position, half of them in each seat.

    Finished matches are kept in the state file as they finish: after Ctrl-C (or SIGTERM,
    SIGHUP), the same command with --resume continues the tournament. Where the results go
    (--json, --records, --state, --logs) is checked before any match is played.
    """
    import signal

    from ..arena import Arena, ArenaState, make_executor
    from ..files import check_writable
    from ..text import plural

    with _user_errors():
        the_game = parse_game_spec(game)
        path = Path(state_path or _default_state(the_game, seed))
        _check_output(json_path, "the results")
        if not resume:
            where = "the tournament's state" + ("" if state_path else ": give --state FILE")
            _check_output(str(path), where)
        if logs_dir is not None:
            logs_dir = _logs_directory(logs_dir)
        tournament = Arena(
            the_game,
            [*players, *more_players],
            games=games,
            seed=seed,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            logs=logs_dir,
            positions=_many_positions(the_game, positions, position_file, side),
        )
        runner = make_executor(executor, jobs, worker_timeout=dask_wait)
        _sandbox_note([*players, *more_players])
        if records_dir is not None:
            record = Path(records_dir) / tournament.record_name(tournament.tasks[0])
            try:
                if not records_dir.strip():
                    raise OSError(errno.ENOENT, "the directory name is empty")
                record.parent.mkdir(parents=True, exist_ok=True)
                check_writable(record)
            except OSError as error:
                raise click.UsageError(
                    f"cannot write the records in {printable(records_dir)!r}: "
                    f"{error.strerror or error}"
                ) from None
        state = (ArenaState.resume if resume else ArenaState.create)(path, tournament)
        units = plural(tournament.unit)
        kept = f"the finished {units} are kept in {path}"
        try:
            with _progress_bar(not quiet, tournament.unit, verbose) as (progress, on_match):
                report = tournament.run(
                    runner,
                    state=state,
                    records=records_dir,
                    on_progress=progress,
                    on_match=on_match,
                )
            if json_path is not None:
                try:
                    report.save(json_path)
                except OSError as error:
                    click.echo(report.format_table(), nl=False)
                    raise click.ClickException(
                        printable(
                            f"cannot write the results to {json_path!r}: "
                            f"{error.strerror or error}; {kept}: the same command with --resume "
                            "shows them and writes them again"
                        )
                    ) from None
            if state_path is None:
                state.remove()
        except KeyboardInterrupt:
            status = _interrupted()
            how = "" if status == EXIT_INTERRUPTED else f" by {signal.Signals(status - 128).name}"
            _say(
                f"\ninterrupted{how}: {kept}; the same command with --resume continues the "
                "tournament"
            )
            sys.exit(status)
        except AbstractGamesError as error:
            raise click.ClickException(printable(f"{error} ({kept}: --resume continues)")) from None
        finally:
            state.close()
    click.echo(report.format_table(), nl=False)
