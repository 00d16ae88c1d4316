"""The command line as a whole (`abstractgames.cli`): help and version, `python -m
abstractgames`, the options every command shares, and bad input as one line of error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames.cli import COMMANDS, EXIT_INTERRUPTED, main
from tests.conftest import posix_signals


def test_help_and_version() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "bench" in result.output
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0 and "abstractgames" in result.output


def test_help_and_version_name_the_installed_version() -> None:
    from importlib import metadata

    result = CliRunner().invoke(main, ["--version"])
    assert result.output == f"abstractgames, version {metadata.version('abstractgames')}\n"


def test_each_command_is_loaded_from_its_module_by_its_name() -> None:
    context = main.make_context("abstractgames", [], resilient_parsing=True)
    names = main.list_commands(context)
    assert names == sorted(COMMANDS)
    for name in names:
        command = main.get_command(context, name)
        assert command is not None and command.name == name
    assert main.get_command(context, "nothing") is None


def test_a_command_imports_neither_the_others_nor_the_version_nor_the_engines() -> None:
    """What a command does not use is not imported: `show` does not load the web server, the
    engine protocol or the distributions' metadata (each a few tens of milliseconds a start)."""
    probe = (
        "import sys; before = set(sys.modules); from abstractgames.cli import main\n"
        "try: main(['show', 'orderchaos'])\n"
        "except SystemExit: pass\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.splitlines()[-1].split())
    assert {"abstractgames.cli.play", "abstractgames.cli.common"} <= loaded
    commands = {f"abstractgames.cli.{m.partition(':')[0]}" for m in COMMANDS.values()}
    assert loaded & commands == {"abstractgames.cli.play"}
    unwanted = {"importlib.metadata", "abstractgames.engines", "abstractgames.registry.isolation"}
    assert not loaded & unwanted


def test_python_dash_m() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "Usage" in out.stdout


@pytest.mark.parametrize("command", ["play", "bench", "engine", "codecup", "arena"])
@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("2x", "'2x' is not a valid integer"),
        (str(2**64), f"{2**64} is out of range: a seed is below 2**64"),
    ],
)
def test_every_seed_option_refuses_the_same_bad_seeds(
    command: str, seed: str, message: str
) -> None:
    result = CliRunner().invoke(main, [command, "--seed", seed])
    assert result.exit_code == 2
    assert f"Invalid value for '--seed': {message}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["play", "bench", "engine", "codecup", "arena"])
def test_seed_help_reads_integer_without_the_range(command: str) -> None:
    help_text = CliRunner().invoke(main, [command, "--help"]).output
    assert "--seed INTEGER " in help_text
    assert "18446744073709551615" not in help_text


@pytest.mark.parametrize(
    "args",
    [
        ["play", "orderchaos", "-1", "mc", "-2", "random", "--no-save"],
        ["bench", "orderchaos", "--vector", "-n", "2", "-r", "1"],
    ],
)
def test_batched_simulation_without_numpy_says_what_to_install(args: list[str]) -> None:
    hide_numpy = (
        "import sys; sys.modules['numpy'] = None; from abstractgames.cli import main; "
        f"main({args!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_numpy], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "Error: the batched simulator of 'orderchaos' needs numpy: "
        "pip install 'abstractgames[vector]'"
    )


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "orderchaos", "-2", "deepblue"], "unknown player 'deepblue'"),
        (["play", "orderchaos", "-2", "greedy:depth=2"], "has no option 'depth'"),
        (["play", "orderchaos", "--clock", "fast"], "bad clock 'fast'"),
        (["play"], "name a GAME to play"),
        (["play", "--resume", "/nonexistent/record.json"], "cannot read record"),
        (["replay", "/nonexistent/record.json"], "cannot read record"),
        (["show", "orderchaos", "6/6/6 order"], "3 ranks"),
        (["show", "nogame"], "unknown game"),
        (["play", "orderchaos", "--seed", "x"], "'x' is not a valid integer"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(args: list[str], message: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", *args], capture_output=True, text=True, input=""
    )
    assert out.returncode not in (0, EXIT_INTERRUPTED), out
    assert message in out.stderr
    assert "Traceback" not in out.stderr


# --- in a process of its own ----------------------------------------------------------------------


ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]


def run(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


@posix_signals
@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["play", "orderchaos", "-1", "", "-2", "random"], 1, "unknown player ''"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=nan"], 1, "time=nan"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=inf"], 1, "time=inf"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=1e9"], 1, "at most 86400"),
        (["play", "orderchaos", "-1", "random", "-2", "search:depth=99"], 1, "from 1 to 36"),
        (["engine", "--player", "deepblue"], 1, "unknown player 'deepblue'"),
        (["engine", "--player", "search:speed=3"], 1, "has no option 'speed'"),
        (["solve", "dispersal", "S1OSO/O3S/O3O/1O2S/SSS1O O", "--time", "nan"], 2, "not nan"),
        (["solve", "dispersal", "S1OSO/O3S/O3O/1O2S/SSS1O O", "--time", "inf"], 2, "range"),
    ],
)
def test_bad_values_are_one_clear_line(args: list[str], status: int, message: str) -> None:
    done = run(*args)
    assert done.returncode == status, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert message in line and "Traceback" not in done.stderr


@posix_signals
@pytest.mark.parametrize(
    "module", ["abstractgames.text", "abstractgames.registry", "click", "abstractgames.cli"]
)
def test_ctrl_c_while_the_command_line_imports_ends_it_quietly(module: str) -> None:
    """SIGINT as soon as `module` is imported (Python's -X importtime says when): the status of
    Ctrl-C, and no traceback. Before any code of ours runs (the interpreter's own start, its
    site packages) Python alone decides."""
    import signal

    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "abstractgames", "arena", "orderchaos",
         "--players", "random", "greedy", "--games", "2", "-q", "--state", "/dev/null/x"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    lines = []
    try:
        for line in process.stderr:
            lines.append(line)
            if line.split("|")[-1].strip() == module:
                break
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    said = "".join(lines) + rest
    assert process.returncode == EXIT_INTERRUPTED, said[-2000:]
    assert "Traceback" not in said and "KeyboardInterrupt" not in said, said[-2000:]
