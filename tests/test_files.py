"""`write_atomic`: the whole new file or the old one, never a temporary file left behind."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from abstractgames import files
from abstractgames.files import write_atomic


def test_text_and_bytes_replace_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    write_atomic(path, "été\r\nline two\n")
    assert path.read_bytes() == "été\r\nline two\n".encode()  # UTF-8, newlines as given
    write_atomic(str(path), b"\x00\xff")
    assert path.read_bytes() == b"\x00\xff"
    write_atomic(path, "")
    assert path.read_bytes() == b""
    assert list(tmp_path.iterdir()) == [path]


def test_a_relative_path_is_written_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic("record.json", "{}\n")
    assert list(tmp_path.iterdir()) == [tmp_path / "record.json"]
    assert (tmp_path / "record.json").read_text() == "{}\n"


def test_the_data_is_on_disk_before_the_rename_and_the_rename_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync directory" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync")
        real_fsync(fd)

    def replace(source: str, target: Path) -> None:
        events.append("replace")
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "out.txt", "data")
    assert events[:2] == ["fsync", "replace"]
    if os.path.isdir("/proc/self/fd") and hasattr(os, "O_DIRECTORY"):
        assert events == ["fsync", "replace", "fsync directory"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_new_file_gets_the_permissions_of_any_new_file(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "out.txt", "data")
    finally:
        os.umask(old)
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
    error: BaseException, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old")
    real_fsync = os.fsync
    written: list[bytes] = []

    def fail(fd: int) -> None:
        real_fsync(fd)
        written.extend(p.read_bytes() for p in tmp_path.iterdir() if p != path)
        raise error

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(type(error)):
        write_atomic(path, "new")
    assert written == [b"new"]  # the temporary file was there, and full
    assert list(tmp_path.iterdir()) == [path]
    assert path.read_text() == "old"


def test_a_failed_rename_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "taken"
    path.mkdir()
    (path / "inside").write_text("old")
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert list(tmp_path.iterdir()) == [path]
    assert (path / "inside").read_text() == "old"


def test_a_missing_directory_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "out.txt", "data")
    assert list(tmp_path.iterdir()) == []


def test_the_helper_imports_nothing_from_the_library() -> None:
    tree = ast.parse(Path(files.__file__).read_text(encoding="utf-8"))
    modules = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    modules += [
        "." * node.level + (node.module or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    ]
    assert modules and not [m for m in modules if m.startswith((".", "abstractgames"))]
