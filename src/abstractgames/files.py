"""Where files go and how they are saved: the data directory, safe file names, atomic writes.

Everything the library saves (game records, tournament results and records) goes through
[`write_atomic`][]: a file is either the old one or the whole new one, even after a crash. It
writes through a symbolic link (the file the link points to is replaced, the link stays), keeps
the permissions of the file it replaces, and refuses to write over what is not a regular file
([`NotRegularFileError`][]) or over a file the user made read-only.

Every file the library is given to read whole (a solver's checkpoint, a certificate) goes
through [`read_bounded`][]: a regular file only, checked before it is opened (`/dev/zero` or a
FIFO is never read or waited on), and never more bytes than its reader takes
([`FileTooLargeError`][]); what is compressed in it is opened by [`decompress_bounded`][], which
stops a compression bomb at the same kind of bound.

The games a person plays (at the terminal or on the web page) are kept in [`games_directory`][],
each in a file [`new_record_path`][] names; a record given no name elsewhere is called
[`record_file_name`][]. Every file name made from outside text (a game spec, a player's name)
goes through [`safe_name`][].

Examples:
    >>> safe_name("entropy:size=5")
    'entropy_size=5'
    >>> safe_name("engine:./my bot --fast")
    'engine_._my_bot_--fast'
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import time
from collections.abc import Callable, MutableSet
from contextlib import suppress
from pathlib import Path
from typing import Protocol

__all__ = [
    "DATA_VARIABLE",
    "FileTooLargeError",
    "NotRegularFileError",
    "check_writable",
    "data_directory",
    "decompress_bounded",
    "games_directory",
    "new_record_name",
    "new_record_path",
    "read_bounded",
    "record_file_name",
    "safe_name",
    "write_atomic",
]

DATA_VARIABLE = "ABSTRACTGAMES_DATA"
"""The environment variable that names the data directory instead of the platform's default."""

_ATTEMPTS = 100

_KINDS = (
    (stat.S_ISDIR, errno.EISDIR, "a directory"),
    (stat.S_ISCHR, errno.EINVAL, "a character device"),
    (stat.S_ISBLK, errno.EINVAL, "a block device"),
    (stat.S_ISFIFO, errno.EINVAL, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, errno.EINVAL, "a socket"),
)


class NotRegularFileError(OSError):
    """The path names a directory, a device, a FIFO or anything else that is not a regular file:
    saving never writes over it, and [`read_bounded`][] never reads it."""


class FileTooLargeError(OSError):
    """A file holds more bytes than its reader takes, or decompresses to more
    ([`read_bounded`][], [`decompress_bounded`][])."""

    size: int | None = None
    """The bytes the file says it holds (`None`: more than `limit`, found on reading it)."""
    limit: int = 0
    """The most bytes its reader takes."""


def _not_regular(mode: int, name: str) -> NotRegularFileError:
    """The error for a file of `mode` that is not a regular file, saying what it is."""
    code, kind = next(((c, k) for test, c, k in _KINDS if test(mode)), (errno.EINVAL, "not a file"))
    return NotRegularFileError(code, f"{kind}, not a regular file", name)


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the file at `path`, a regular file of at most `limit` bytes.

    The one way the library reads a file it is given whole. What the path names is looked at
    before it is opened: a directory, a device (`/dev/zero`), a FIFO or a socket is refused,
    never read and never waited on. The file is then opened without blocking (a FIFO put there
    since cannot block the open) and looked at again, and at most `limit` + 1 bytes are read,
    so a file that grows, or that says it is empty (those of `/proc`), cannot make it read more.

    Raises:
        NotRegularFileError: `path` is not a regular file (nothing read).
        FileTooLargeError: the file holds more than `limit` bytes.
        OSError: it cannot be read (no such file, no permission, a NUL in the name).
    """
    name = os.fspath(path)
    try:
        if not stat.S_ISREG(mode := os.stat(path).st_mode):
            raise _not_regular(mode, name)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags | getattr(os, "O_CLOEXEC", 0)), "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise _not_regular(status.st_mode, name)
            if status.st_size > limit:
                raise _too_large(status.st_size, limit, name)
            data = handle.read(limit + 1)
    except ValueError as error:  # a NUL in the name
        raise OSError(errno.EINVAL, str(error), name) from None
    if len(data) > limit:
        raise _too_large(None, limit, name)
    return data


def _too_large(size: int | None, limit: int, name: str) -> FileTooLargeError:
    said = f"more than {limit:,}" if size is None else f"{size:,}"
    error = FileTooLargeError(errno.EFBIG, f"too large: {said} bytes, at most {limit:,}", name)
    error.size, error.limit = size, limit
    return error


class Decompressor(Protocol):
    """What [`decompress_bounded`][] needs of a decompressor: `zlib.decompressobj()` and
    `lzma.LZMADecompressor()` are ones."""

    @property
    def eof(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...
    def decompress(self, data: bytes, /, max_length: int = ...) -> bytes: ...


def decompress_bounded(decompressor: Decompressor, data: bytes, limit: int) -> bytes:
    """`data`, one whole compressed stream, decompressed, if that gives at most `limit` bytes.

    The output is taken a megabyte at a time, and a compression bomb (a few kilobytes that
    decompress to gigabytes) is stopped once it has given more than `limit` bytes: its memory
    and time are bounded as the output is.

    Raises:
        FileTooLargeError: the data decompresses to more than `limit` bytes.
        ValueError: the stream stops before its end, or other bytes follow it.
        zlib.error, lzma.LZMAError: the decompressor's own error, for damaged data.
    """
    parts: list[bytes] = []
    total = 0
    while not decompressor.eof:
        out = decompressor.decompress(data, max_length=_PIECE)
        # zlib hands back the input it has not used yet; lzma keeps it.
        data = getattr(decompressor, "unconsumed_tail", b"")
        if (
            not out
            and not data
            and not decompressor.eof  # an empty stream ends with no output
            and getattr(decompressor, "needs_input", True)
        ):
            raise ValueError("the compressed data is cut short")
        total += len(out)
        if total > limit:
            raise FileTooLargeError(
                errno.EFBIG,
                f"its compressed data gives more than {limit:,} bytes, the most allowed",
            )
        parts.append(out)
    if decompressor.unused_data:
        raise ValueError("other bytes follow the compressed data")
    return b"".join(parts)


_PIECE = 1 << 20
"""How much [`decompress_bounded`][] decompresses at a time."""


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace the file at `path` by `data` atomically.

    `data` goes to a temporary file in the same directory, which is flushed to the disk and
    then renamed over `path`; the directory is flushed too where the platform allows. Readers
    see the old file or the whole new one, never a part, and so does the disk after a crash. On
    any failure, Ctrl-C included, the temporary file is removed and `path` is left as it was.

    A symbolic link is written through: the file it points to is replaced and the link kept. A
    file that is replaced keeps its permissions (and, where allowed, its owner); a new file gets
    the permissions of any newly created file (the umask applies).

    Args:
        path: the file to write; its directory must exist.
        data: bytes, or text, written as UTF-8 with its newlines unchanged.

    Raises:
        NotRegularFileError: `path` is a directory, a device, a FIFO, a socket (nothing written).
        PermissionError: `path` is a file without write permission (nothing written).
        OSError: the file cannot be written.
    """
    target = _resolve(path)
    existing = _existing(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, temporary = _create_temporary(target)
    try:
        with open(fd, "wb") as handle:
            if existing is not None:
                _keep_permissions(handle.fileno(), temporary, existing)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


def _resolve(path: str | os.PathLike[str]) -> Path:
    """The file `path` names, symbolic links followed (to where a link points, even if no file
    is there yet)."""
    target = Path(path)
    return Path(os.path.realpath(target)) if os.path.islink(target) else target


def _existing(target: Path) -> os.stat_result | None:
    """The status of the file at `target` (`None` if there is none); raise
    [`NotRegularFileError`][] or `PermissionError` if it must not be replaced."""
    try:
        status = os.stat(target)
    except FileNotFoundError:
        return None
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        raise _not_regular(mode, str(target))
    # Root may write anything: a file without any write bit was still made read-only on purpose.
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise PermissionError(
            errno.EACCES, "the file is read-only (make it writable to replace it)", str(target)
        )
    return status


def _keep_permissions(fd: int, name: str, old: os.stat_result) -> None:
    """Give the new file `name` (open as `fd`) the permissions and owner of the old one."""
    if hasattr(os, "fchown"):
        new = os.fstat(fd)
        if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
            with suppress(OSError):  # only root may give a file away
                os.fchown(fd, old.st_uid, old.st_gid)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(old.st_mode))
    else:
        os.chmod(name, stat.S_IMODE(old.st_mode))


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new hidden file next to `target`, open for writing (unlike `tempfile.mkstemp`,
    which makes it private, it gets the permissions of any new file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(_ATTEMPTS):
        name = str(target.parent / f".{target.name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", str(target))


def _sync_directory(directory: Path) -> None:
    """Flush the directory entry of a renamed file, where directories can be opened (not on
    Windows) and flushed (not on every file system)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise `OSError` (with a message for people) unless [`write_atomic`][] can write `path`.

    Checked before a long run starts, so that its results have somewhere to go: the name is not
    empty and not too long, its directory exists and takes a new file (a probe file is made and
    removed: this also refuses `/proc` and read-only file systems), and an existing `path` is
    a regular file the user may write.
    """
    text = os.fspath(path)
    if not text.strip():
        raise OSError(errno.ENOENT, "the file name is empty")
    target = Path(text)
    if target.is_dir():
        raise OSError(errno.EISDIR, f"{text} is a directory")
    directory = target.parent
    if not directory.is_dir():
        raise OSError(errno.ENOENT, f"there is no directory {str(directory)!r}")
    longest = 255
    with suppress(OSError, ValueError, AttributeError):  # pathconf: POSIX, and not everywhere
        longest = os.pathconf(directory, "PC_NAME_MAX")
    if len(os.fsencode(target.name)) > longest:
        raise OSError(errno.ENAMETOOLONG, f"the file name {target.name[:40]!r}… is too long")
    if target.exists() and not os.access(target, os.W_OK):
        raise OSError(errno.EACCES, f"{text} is not writable")
    target = _resolve(target)
    _existing(target)  # what write_atomic refuses: a FIFO, a device, a file without write bits
    try:
        fd, probe = _create_temporary(target)
    except OSError as error:
        reason = f"cannot create a file in {str(directory)!r}: {error.strerror or error}"
        raise OSError(error.errno, reason) from None
    os.close(fd)
    os.unlink(probe)


# --- where files go -------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


def safe_name(text: str, limit: int = 60, default: str = "_") -> str:
    """`text` as a part of a file name: each run of characters other than letters, digits,
    `.`, `_`, `=` and `-` becomes `_`, no `_` or `.` at either end, at most `limit` characters
    (`default` if nothing is left)."""
    return _UNSAFE.sub("_", text).strip("_.")[:limit].strip("_.") or default


def data_directory() -> Path:
    """The per-user folder where the games people play are kept.

    `ABSTRACTGAMES_DATA` if set; else `$XDG_DATA_HOME/abstractgames` or
    `~/.local/share/abstractgames` (Linux and other Unix), `~/Library/Application
    Support/abstractgames` (macOS), `%APPDATA%\\abstractgames` (Windows).
    """
    override = os.environ.get(DATA_VARIABLE)
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / "abstractgames"


def games_directory() -> Path:
    """`games` in [`data_directory`][]: where `play` at a terminal and `serve` keep records."""
    return data_directory() / "games"


def record_file_name(game: str, seed: int, *, unique: bool = False) -> str:
    """The name of a match's record where none is given, `abstractgames-GAME-SEED.json`: the
    file `play` leaves in the working directory, the web page's download; with `unique`, the
    process's id after the seed (`abstractgames-GAME-SEED-PID.json`), for a fallback file in the
    temporary directory.

    Examples:
        >>> record_file_name("entropy", 7)
        'abstractgames-entropy-7.json'
    """
    pid = f"-{os.getpid()}" if unique else ""
    return f"abstractgames-{safe_name(game)}-{seed}{pid}.json"


def new_record_name(game: str, seed: int, taken: Callable[[str], bool]) -> str:
    """A new record name for a match, by the date, the game and the seed, e.g.
    `20250131-142233-entropy-7.json` (then `...-7-2.json`, ...), for which `taken` is false."""
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{safe_name(game)}-{seed}"
    name = f"{stem}.json"
    number = 1
    while taken(name):
        number += 1
        name = f"{stem}-{number}.json"
    return name


def new_record_path(
    game: str, seed: int, directory: Path | None = None, *, taken: MutableSet[str] | None = None
) -> Path:
    """A new file for a match in `directory` (default: [`games_directory`][]), named by
    [`new_record_name`][].

    The name is of no file in `directory` and, with `taken`, of none in `taken` either (names
    handed out but not written yet); the name chosen is added to `taken`.
    """
    folder = games_directory() if directory is None else directory
    name = new_record_name(
        game,
        seed,
        lambda name: (folder / name).exists() or (taken is not None and name in taken),
    )
    if taken is not None:
        taken.add(name)
    return folder / name
