"""Ed25519 keys of session tokens: from the configuration, or a development key under ``var/``.

Only the auth service holds the private key (``HAND_AUTH_SIGNING_KEY``, a
secret); every other service holds public keys only
(``HAND_AUTH_PUBLIC_KEYS``), so a compromised room or ledger cannot mint
sessions. Keys travel as URL-safe base64 of their 32 raw bytes (no
whitespace: they fit an environment variable). Each key has a ``kid``: the
first 16 hex digits of the SHA-256 of its public bytes, put in every
token's header so verifiers pick the right key during a rotation.

With no key configured (``make run``, tests), the auth service and the
verifiers share the key in ``HAND_AUTH_DEV_KEY_FILE`` (default
``var/hand-auth-dev.key``), created on first use with mode 0600.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .config import IdentityConfig

__all__ = ["b64", "dev_private_key", "kid", "private_key", "public_keys", "unb64"]


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not URL-safe base64") from None


def _public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def kid(key: Ed25519PublicKey) -> str:
    """The key id put in a token's header."""
    return hashlib.sha256(_public_bytes(key)).hexdigest()[:16]


def _from_seed(text: str, what: str) -> Ed25519PrivateKey:
    raw = unb64(text.strip())
    if len(raw) != 32:
        raise ValueError(f"{what}: expected 32 bytes of Ed25519 seed, got {len(raw)}")
    return Ed25519PrivateKey.from_private_bytes(raw)


def dev_private_key(path: str) -> Ed25519PrivateKey:
    """The development key in ``path``, created atomically (mode 0600) if it is missing."""
    target = Path(path)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        seed = Ed25519PrivateKey.generate().private_bytes_raw()
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(b64(seed) + "\n")
        try:
            os.link(tmp, target)  # fails if another process made it first: theirs wins
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return _from_seed(target.read_text(encoding="ascii"), str(target))


def private_key(config: IdentityConfig) -> Ed25519PrivateKey:
    """The auth service's signing key: ``HAND_AUTH_SIGNING_KEY``, else the dev key file."""
    if config.signing_key:
        return _from_seed(config.signing_key, "HAND_AUTH_SIGNING_KEY")
    if not config.dev_key_file:
        raise ValueError("no signing key: set HAND_AUTH_SIGNING_KEY")
    return dev_private_key(config.dev_key_file)


def public_keys(config: IdentityConfig) -> dict[str, Ed25519PublicKey]:
    """Accepted verification keys by ``kid``: ``HAND_AUTH_PUBLIC_KEYS``, else the dev key's."""
    keys: list[Ed25519PublicKey] = []
    for text in config.public_keys:
        raw = unb64(text)
        if len(raw) != 32:
            raise ValueError(f"HAND_AUTH_PUBLIC_KEYS: expected 32-byte keys, got {len(raw)}")
        keys.append(Ed25519PublicKey.from_public_bytes(raw))
    if not keys and config.signing_key:
        keys.append(_from_seed(config.signing_key, "HAND_AUTH_SIGNING_KEY").public_key())
    if not keys and config.dev_key_file:
        keys.append(dev_private_key(config.dev_key_file).public_key())
    if not keys:
        raise ValueError("no public key to verify session tokens: set HAND_AUTH_PUBLIC_KEYS")
    return {kid(key): key for key in keys}
