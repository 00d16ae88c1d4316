"""Ed25519 signatures for games by correspondence (the `mail` extra: the `cryptography` library).

Each player has one key pair, made when first needed and kept in their data directory
(`mail/signing-key.pem`, readable by them alone), and reused across all their games: its public
half, written `ed25519:` and 43 characters of base64url, goes into the header of the first
message they send, and every line they write carries a signature of 86 such characters. This
module knows keys and bytes only; what is signed, and when, is [`abstractgames.mail`][]'s.

`cryptography` is imported on first use, so that the core install works without it:
[`available`][] says whether it is there, and [`SignaturesUnavailable`][] is raised where it is
needed and missing.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from pathlib import Path
from typing import Any

from .files import data_directory, read_bounded, write_atomic

__all__ = [
    "INSTALL",
    "Identity",
    "SignaturesUnavailable",
    "available",
    "is_public_key",
    "verify",
]

INSTALL = "install abstractgames[mail] (pip install 'abstractgames[mail]')"
"""How to get signatures, in words."""
_PREFIX = "ed25519:"
_B64 = re.compile(r"[A-Za-z0-9_-]+")
_KEY_FILE = "signing-key.pem"


class SignaturesUnavailable(ImportError):
    """The `cryptography` library (the `mail` extra) is not installed."""


def _library() -> Any:
    """The `ed25519` module of `cryptography`, or `None` without it (imported on each call, so
    that a test can hide it)."""
    try:
        import cryptography.hazmat.primitives.asymmetric.ed25519 as module
    except ImportError:
        return None
    return module


def available() -> bool:
    """Whether signatures can be made and checked here (the `mail` extra is installed)."""
    return _library() is not None


def _needed() -> Any:
    module = _library()
    if module is None:
        raise SignaturesUnavailable(f"signatures need the cryptography library: {INSTALL}")
    return module


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _decode(text: str) -> bytes | None:
    if not _B64.fullmatch(text):
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        return None


def is_public_key(text: str) -> bool:
    """Whether `text` is written as a public key: `ed25519:` and 43 characters of base64url."""
    raw = _decode(text.removeprefix(_PREFIX)) if text.startswith(_PREFIX) else None
    return raw is not None and len(raw) == 32 and _encode(raw) == text.removeprefix(_PREFIX)


def verify(public: str, message: bytes, signature: str) -> bool:
    """Whether `signature` (86 characters of base64url) is the signature of `message` by the
    key `public` (`ed25519:...`).

    Raises:
        SignaturesUnavailable: without the `mail` extra.
    """
    module = _needed()
    from cryptography.exceptions import InvalidSignature

    raw = _decode(public.removeprefix(_PREFIX)) if is_public_key(public) else None
    sig = _decode(signature)
    if raw is None or sig is None or len(sig) != 64:
        return False
    try:
        module.Ed25519PublicKey.from_public_bytes(raw).verify(sig, message)
    except InvalidSignature:
        return False
    return True


class Identity:
    """A player's key pair, kept in their data directory and made there when first needed.

    Args:
        directory: where the key is kept (default: `mail` in the data directory).

    Raises:
        SignaturesUnavailable: without the `mail` extra.
        OSError: the key cannot be read or written.
        ValueError: the key file is not a key.
    """

    def __init__(self, directory: Path | None = None) -> None:
        module = _needed()
        from cryptography.hazmat.primitives import serialization

        self.directory = data_directory() / "mail" if directory is None else directory
        path = self.directory / _KEY_FILE
        self.path = path
        if path.exists():
            loaded = serialization.load_pem_private_key(read_bounded(path, 64 * 1024), None)
            if not isinstance(loaded, module.Ed25519PrivateKey):
                raise ValueError(f"{path} is not an Ed25519 private key")
            self._key: Any = loaded
        else:
            self._key = module.Ed25519PrivateKey.generate()
            pem = self._key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            self.directory.mkdir(parents=True, exist_ok=True)
            # an empty file readable by its owner alone first: the key is written over it
            # atomically and keeps its permissions, so it is never readable by others
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            os.chmod(path, 0o600)
            write_atomic(path, pem)
        raw = self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = _PREFIX + _encode(raw)
        """The public key, as the text writes it: `ed25519:` and 43 characters of base64url."""

    def sign(self, message: bytes) -> str:
        """The signature of `message`: 86 characters of base64url."""
        return _encode(self._key.sign(message))
