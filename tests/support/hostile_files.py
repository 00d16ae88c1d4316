"""Hostile files: compression bombs (small files that decompress to gigabytes, made in
milliseconds), and a guard for reading a FIFO, which must fail a test rather than hang it.

Compressing gigabytes of zeros takes seconds; these build the compressed stream from one piece
that repeats instead. A stream of zeros settles into identical pieces: in xz, the LZMA2 chunks
after the first (about 300 bytes each for 2 MiB of zeros); in zlib, the deflate blocks after a
full flush (which forgets the history, so the next piece of zeros compresses the same). The
container around them (xz's index and footer, zlib's Adler-32) is written to match, so each is
a well-formed stream a decompressor reads to the end if let.
"""

from __future__ import annotations

import lzma
import os
import struct
import threading
import zlib
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

GIB = 1 << 30


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def xz_bomb(size: int = 4 * GIB) -> bytes:
    """An xz stream (no integrity check) of at least `size` zero bytes."""
    compressor = lzma.LZMACompressor(format=lzma.FORMAT_XZ, check=lzma.CHECK_NONE, preset=0)
    sample = compressor.compress(bytes(3 << 21)) + compressor.flush()
    header, block_header = sample[:12], sample[12:24]
    assert block_header[0] == 2 and block_header[1] == 0  # 12 bytes, no sizes in it
    chunks: list[tuple[int, bytes]] = []
    at = 24
    while sample[at] != 0:  # LZMA2 chunks, each with its uncompressed size
        control = sample[at]
        assert control >= 0x80  # compressed chunks only (zeros always compress)
        unpacked = ((control & 0x1F) << 16) + (sample[at + 1] << 8) + sample[at + 2] + 1
        packed = (sample[at + 3] << 8) + sample[at + 4] + 1
        length = (6 if control >= 0xC0 else 5) + packed
        chunks.append((unpacked, sample[at : at + length]))
        at += length
    (first_size, first), (repeat_size, repeat) = chunks[0], chunks[1]
    assert chunks[2][1] == repeat  # the chunks after the first repeat
    count = -(-(size - first_size) // repeat_size)
    data = first + repeat * count + b"\x00"
    unpadded = len(block_header) + len(data)
    block = block_header + data + bytes(-unpadded % 4)
    index = b"\x00" + _varint(1) + _varint(unpadded) + _varint(first_size + count * repeat_size)
    index += bytes(-len(index) % 4)
    index += struct.pack("<I", zlib.crc32(index))
    flags = header[6:8]
    backward = struct.pack("<I", len(index) // 4 - 1) + flags
    footer = struct.pack("<I", zlib.crc32(backward)) + backward + b"YZ"
    return header + block + index + footer


def zlib_bomb(size: int = 4 * GIB) -> bytes:
    """A zlib stream of at least `size` zero bytes."""
    piece = 1 << 24
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    repeat = compressor.compress(bytes(piece)) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(bytes(piece)) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert again == repeat  # a full flush forgets the history: the same zeros, the same bytes
    count = -(-size // piece)
    checksum = _adler_zeros(1, count * piece)
    body = repeat * count + compressor.flush()
    return b"\x78\xda" + body + struct.pack(">I", checksum)


def _adler_zeros(checksum: int, length: int) -> int:
    """Adler-32 of `length` zero bytes after data whose Adler-32 is `checksum`."""
    a, b = checksum & 0xFFFF, checksum >> 16
    b = (b + a * length) % 65521
    return b << 16 | a


def without_blocking(call: Callable[[], T], fifo: Path, wait: float = 10.0) -> T:
    """What `call()` returns (or raises), run in a thread; if it is still blocked after `wait`
    seconds (opening `fifo` for reading waits for a writer), a writer comes and goes so that
    it stops, and the test fails instead of hanging."""
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as error:
            outcome.append((False, error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(wait)
    if worker.is_alive():
        for _ in range(100):  # a writer for every open that waits, until the reader ends
            with suppress(OSError):  # no reader waiting (yet, or any more)
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            worker.join(0.1)
            if not worker.is_alive():
                break
        pytest.fail(f"reading the FIFO {fifo} waited for a writer")
    done, value = outcome[0]
    if not done:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]
