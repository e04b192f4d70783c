"""Opaque, validated page tokens for offset-paged lists (GetLeaderboard, ListRooms).

A token is URL-safe base64 (no padding) of one version byte, a one-byte
scope (which list it pages, so a leaderboard token is refused by ListRooms)
and the offset as 4 big-endian bytes: 8 characters. ``decode`` accepts
only what ``encode`` makes — any other text, another list's token, or an
offset past ``MAX_OFFSET`` — else raises ``Refusal(INVALID_ARGUMENT,
field=page_token)``. An empty token is the first page. The offset is not a
secret: a client that forges a valid token only skips rows it could page to.

    offset = decode(request.page_token, scope="leaderboard")
    response.next_page_token = encode(offset + size, scope="leaderboard")
"""

from __future__ import annotations

import base64
import binascii
import zlib

from .refusal import Refusal

__all__ = ["MAX_OFFSET", "decode", "encode"]

VERSION = 1
MAX_OFFSET = 1_000_000  # deeper pages are refused: a bounded OFFSET for the database
_LENGTH = 8  # characters of a token (6 bytes)


def _scope_byte(scope: str) -> int:
    return zlib.crc32(scope.encode()) & 0xFF


def encode(offset: int, *, scope: str) -> str:
    """The token of the page that starts at ``offset`` of the list ``scope``."""
    if not 0 <= offset <= MAX_OFFSET:
        raise ValueError(f"offset {offset} out of range")
    raw = bytes([VERSION, _scope_byte(scope)]) + offset.to_bytes(4, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _bad(reason: str) -> Refusal:
    return Refusal("INVALID_ARGUMENT", f"page_token: {reason}", field="page_token")


def decode(token: str, *, scope: str) -> int:
    """The offset a token names (0 for an empty token); ``Refusal`` for anything else."""
    if not token:
        return 0
    if len(token) != _LENGTH or not token.isascii():
        raise _bad("not a token of this list")
    try:
        raw = base64.b64decode(token.encode("ascii"), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise _bad("not a token of this list") from None
    if raw[0] != VERSION or raw[1] != _scope_byte(scope):
        raise _bad("not a token of this list")
    offset = int.from_bytes(raw[2:], "big")
    if offset > MAX_OFFSET:
        raise _bad("past the last page allowed")
    return offset
