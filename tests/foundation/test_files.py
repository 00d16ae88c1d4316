"""Where files go and how they are written (`abstractgames.files`): `write_atomic` writes the whole
new file or leaves the old one, never a temporary file behind; safe file names; the data directory
of each platform and new record names."""

from __future__ import annotations

import ast
import os
import re
import socket
import stat
import sys
from pathlib import Path

import pytest

from abstractgames import files
from abstractgames.files import safe_name, write_atomic


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


# --- write through, not over ----------------------------------------------------------------


def test_a_symbolic_link_is_written_through_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "record.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(Path("real") / "record.json")  # relative, as `ln -s` makes them
    chain = tmp_path / "chain.json"
    chain.symlink_to(link)
    write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "record.json")
    assert real.read_text() == "new"
    write_atomic(chain, "newer")
    assert chain.is_symlink() and link.is_symlink()
    assert real.read_text() == "newer"
    assert sorted(p.name for p in tmp_path.rglob("*")) == [
        "chain.json",
        "link.json",
        "real",
        "record.json",
    ]


def test_a_dangling_link_gets_its_file(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    write_atomic(link, "new")
    assert link.is_symlink()
    assert (tmp_path / "target.json").read_text() == "new"


def _fifo(path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["fifo", "directory", "socket", "device", "link to a device"])
def test_what_is_not_a_regular_file_is_refused_before_anything_is_written(
    kind: str, tmp_path: Path
) -> None:
    path = tmp_path / "target"
    if kind == "fifo":
        _fifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        if not hasattr(socket, "AF_UNIX"):
            pytest.skip("no Unix sockets here")
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers
        except (OSError, AttributeError):
            pytest.skip("cannot make a device node here")
    else:
        if not os.path.exists(os.devnull) or os.name != "posix":
            pytest.skip("no /dev/null here")
        path.symlink_to(os.devnull)
    before = os.lstat(path)
    with pytest.raises(files.NotRegularFileError, match="not a regular file") as caught:
        write_atomic(path, "data")
    assert isinstance(caught.value, OSError)
    assert caught.value.filename is not None
    assert list(tmp_path.iterdir()) == [path]  # no temporary file was made
    after = os.lstat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_read_only_file_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "kept.json"
    path.write_text("mine")
    path.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        write_atomic(path, "new")
    assert path.read_text() == "mine"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o604])
def test_a_replaced_file_keeps_its_permissions(mode: int, tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    path.chmod(mode)
    old = os.umask(0o022)
    try:
        write_atomic(path, "new")
    finally:
        os.umask(old)
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_replacing_a_users_file_keeps_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    os.chown(path, 4321, 4321)
    write_atomic(path, "new")
    status = path.stat()
    assert (status.st_uid, status.st_gid) == (4321, 4321)


def test_check_writable_refuses_what_write_atomic_refuses(tmp_path: Path) -> None:
    with pytest.raises(files.NotRegularFileError):
        files.check_writable(_fifo(tmp_path / "fifo"))
    if os.name == "posix":
        read_only = tmp_path / "read-only"
        read_only.write_text("mine")
        read_only.chmod(0o444)
        with pytest.raises(PermissionError):
            files.check_writable(read_only)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "fifo")
    with pytest.raises(files.NotRegularFileError):
        files.check_writable(link)


# --- safe names, the data directory, new record names ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("orderchaos", "orderchaos"),
        ("entropy:size=5", "entropy_size=5"),
        ("search:time=0.5,name=deep", "search_time=0.5_name=deep"),
        ("engine:../../etc/passwd", "engine_.._.._etc_passwd"),
        ("..", "_"),
        ("", "_"),
        ("a/b\\c d\x00e", "a_b_c_d_e"),
    ],
)
def test_safe_names_hold_no_separator_and_no_leading_dot(text: str, name: str) -> None:
    assert safe_name(text) == name
    assert "/" not in name and "\\" not in name and not name.startswith(".")


def test_safe_names_are_bounded() -> None:
    assert len(safe_name("x" * 500)) == 60 and len(safe_name("x" * 500, limit=10)) == 10


def test_the_data_directory_of_each_platform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abstractgames import files

    monkeypatch.delenv("ABSTRACTGAMES_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "")
    monkeypatch.setattr(sys, "platform", "linux")
    assert files.data_directory() == tmp_path / ".local" / "share" / "abstractgames"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert files.data_directory() == tmp_path / "xdg" / "abstractgames"
    monkeypatch.setattr(sys, "platform", "darwin")
    expected = tmp_path / "Library" / "Application Support" / "abstractgames"
    assert files.data_directory() == expected
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert files.data_directory() == tmp_path / "Roaming" / "abstractgames"
    monkeypatch.setenv("ABSTRACTGAMES_DATA", str(tmp_path / "mine"))
    assert files.data_directory() == tmp_path / "mine"
    first = files.new_record_path("entropy:size=5", 7, tmp_path)
    assert re.fullmatch(r"\d{8}-\d{6}-entropy_size=5-7\.json", first.name)
    first.write_text("{}")
    taken: set[str] = set()
    second = files.new_record_path("entropy:size=5", 7, tmp_path, taken=taken)
    third = files.new_record_path("entropy:size=5", 7, tmp_path, taken=taken)
    assert len({first, second, third}) == 3 and taken == {second.name, third.name}
    assert all(path.parent == tmp_path and not path.exists() for path in (second, third))


# --- reading what we are given ----------------------------------------------------------------


def test_read_bounded_reads_a_regular_file_up_to_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "data"
    path.write_bytes(b"x" * 100)
    assert files.read_bounded(path, 100) == b"x" * 100
    with pytest.raises(files.FileTooLargeError, match="too large: 100 bytes, at most 99") as caught:
        files.read_bounded(str(path), 99)
    assert (caught.value.size, caught.value.limit, caught.value.filename) == (100, 99, str(path))
    with pytest.raises(FileNotFoundError):
        files.read_bounded(tmp_path / "none", 100)
    with pytest.raises(OSError, match="null"):
        files.read_bounded("a\0b", 100)


@pytest.mark.parametrize("kind", ["fifo", "directory", "dev-zero"])
def test_read_bounded_refuses_what_is_not_a_regular_file_without_reading_it(
    kind: str, tmp_path: Path
) -> None:
    path = tmp_path / "given"
    if kind == "fifo":
        _fifo(path)  # an open for reading would wait for a writer: the test would hang
    elif kind == "directory":
        path.mkdir()
    else:
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        path.symlink_to("/dev/zero")  # endless: read whole, it would fill the memory
    with pytest.raises(files.NotRegularFileError, match="not a regular file") as caught:
        files.read_bounded(path, 1 << 20)
    assert caught.value.filename == str(path)


def test_read_bounded_stops_at_its_bound_whatever_the_size_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file of /proc says it is empty; one that grows says less than it holds.
    path = tmp_path / "growing"
    path.write_bytes(b"y" * 50)
    real = os.fstat

    def small(fd: int) -> os.stat_result:
        status = list(real(fd))
        status[stat.ST_SIZE] = 0
        return os.stat_result(status)

    monkeypatch.setattr(os, "fstat", small)
    with pytest.raises(files.FileTooLargeError, match="more than 10 bytes") as caught:
        files.read_bounded(path, 10)
    assert (caught.value.size, caught.value.limit) == (None, 10)


@pytest.mark.parametrize("kind", ["zlib", "xz"])
def test_decompress_bounded_stops_a_compression_bomb(kind: str) -> None:
    import lzma
    import time
    import tracemalloc
    import zlib

    from tests.support.hostile_files import xz_bomb, zlib_bomb

    bomb, decompressor = (
        (zlib_bomb(), zlib.decompressobj) if kind == "zlib" else (xz_bomb(), lzma.LZMADecompressor)
    )
    assert len(bomb) < 5_000_000  # four gigabytes of zeros inside
    started = time.monotonic()
    tracemalloc.start()
    try:
        with pytest.raises(files.FileTooLargeError, match="more than 1,000,000 bytes"):
            files.decompress_bounded(decompressor(), bomb, 1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000 and time.monotonic() - started < 5
    data = b"abc" * 1000
    packed = zlib.compress(data) if kind == "zlib" else lzma.compress(data)
    assert files.decompress_bounded(decompressor(), packed, len(data)) == data
    with pytest.raises(files.FileTooLargeError):
        files.decompress_bounded(decompressor(), packed, len(data) - 1)
    with pytest.raises(ValueError, match="cut short"):
        files.decompress_bounded(decompressor(), packed[:-8], len(data))
    with pytest.raises(ValueError, match="other bytes follow"):
        files.decompress_bounded(decompressor(), packed + b"tail", len(data))


@pytest.mark.parametrize("kind", ["zlib", "xz"])
def test_decompress_bounded_reads_an_empty_stream(kind: str) -> None:
    """A whole stream of nothing (an empty table saved) is no stream cut short."""
    import lzma
    import zlib

    packed, decompressor = (
        (zlib.compress(b""), zlib.decompressobj)
        if kind == "zlib"
        else (lzma.compress(b""), lzma.LZMADecompressor)
    )
    assert files.decompress_bounded(decompressor(), packed, 0) == b""
    with pytest.raises(ValueError, match="cut short"):
        files.decompress_bounded(decompressor(), packed[:-4], 0)
