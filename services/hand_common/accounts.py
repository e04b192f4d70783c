"""Who a player id is, and how it is shown to others (docs/privacy.md).

A seat's player id is one of:

- an **account**: the ``sub`` of a verified session (``hand_common.identity``),
  issued by the auth service;
- a **guest label**: ``guest:<what the client said>``, unverified (a call
  without a session); never presented as an account;
- empty: a bot, an empty seat, or a guest that named nothing.

An account id is shown only to its owner. Everyone else gets the display
name and the account's **public handle**: a keyed hash (HMAC-SHA256 with
the ledger's secret ``HAND_LEDGER_HANDLE_SECRET``), stable for as long as the
secret is, and not reversible to the account id without the secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

__all__ = ["GUEST_PREFIX", "HANDLE_PREFIX", "MAX_HANDLE", "guest_label", "is_account", "is_guest",
           "public_handle"]

GUEST_PREFIX = "guest:"
HANDLE_PREFIX = "h-"
MAX_HANDLE = 64  # characters accepted as a handle in a request (handles are 28)
_CONTEXT = b"hand.v1 public handle\x00"  # domain separation: the secret may serve nothing else


def guest_label(claimed: str) -> str:
    """The stored player id of a seat taken without a session ("" if nothing was named)."""
    return GUEST_PREFIX + claimed if claimed else ""


def is_guest(player_id: str) -> bool:
    return player_id.startswith(GUEST_PREFIX)


def is_account(player_id: str) -> bool:
    """A verified account's id (not a bot's empty id, not a guest label)."""
    return bool(player_id) and not is_guest(player_id)


def public_handle(secret: bytes, player_id: str) -> str:
    """The account's public handle ("" for guests, bots and empty ids): ``h-`` and 26
    base32 characters (130 bits of HMAC-SHA256 over the id)."""
    if not is_account(player_id):
        return ""
    mac = hmac.new(secret, _CONTEXT + player_id.encode(), hashlib.sha256).digest()
    return HANDLE_PREFIX + base64.b32encode(mac[:20]).decode().lower()[:26]
