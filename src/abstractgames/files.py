"""Saving files safely: a file is either the old one or the whole new one, even after a crash.

Everything the library saves (game records, tournament results and records) goes through
:func:`write_atomic`.
"""

from __future__ import annotations

import errno
import os
from contextlib import suppress
from pathlib import Path

__all__ = ["check_writable", "write_atomic"]

_ATTEMPTS = 100


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace the file at ``path`` by ``data`` atomically.

    ``data`` goes to a temporary file in the same directory, which is flushed to the disk and
    then renamed over ``path``; the directory is flushed too where the platform allows. Readers
    see the old file or the whole new one, never a part, and so does the disk after a crash. On
    any failure, Ctrl-C included, the temporary file is removed and ``path`` is left as it was.

    The file gets the permissions of any newly created file (the umask applies), also when it
    replaces one.

    Args:
        path: the file to write; its directory must exist.
        data: bytes, or text, written as UTF-8 with its newlines unchanged.

    Raises:
        OSError: the file cannot be written.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, temporary = _create_temporary(target)
    try:
        with open(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new hidden file next to ``target``, open for writing (unlike ``tempfile.mkstemp``,
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
    """Raise ``OSError`` (with a message for people) unless :func:`write_atomic` can write ``path``.

    Checked before a long run starts, so that its results have somewhere to go: the name is not
    empty and not too long, its directory exists and takes a new file (a probe file is made and
    removed: this also refuses ``/proc`` and read-only file systems), and an existing ``path`` is
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
