"""``Signer``: session tokens (EdDSA JWTs) for a player, signed with the auth service's key."""

from __future__ import annotations

import time

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hand_common.identity import ALGORITHM, AUDIENCE
from hand_common.sessionkeys import kid

__all__ = ["Signer"]


class Signer:
    """Signs ``{iss, aud, sub, iat, exp, typ: session}`` with the ``kid`` of its key."""

    def __init__(self, key: Ed25519PrivateKey, issuer: str, ttl_s: float) -> None:
        self._key, self.issuer, self.ttl_s = key, issuer, ttl_s
        self.kid = kid(key.public_key())

    def sign(self, player_id: str, now: float | None = None) -> tuple[str, int]:
        """``(token, expires_at)``; expiry in Unix seconds."""
        issued = int(time.time() if now is None else now)
        expires = issued + int(self.ttl_s)
        claims = {"iss": self.issuer, "aud": AUDIENCE, "sub": player_id, "iat": issued,
                  "exp": expires, "typ": "session"}
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers={"kid": self.kid}), expires
