"""``Signer``: session tokens (EdDSA JWTs) for a player, signed with the auth service's key."""

from __future__ import annotations

import secrets
import time

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hand_common.identity import ALGORITHM, AUDIENCE
from hand_common.sessionkeys import kid

__all__ = ["Signer"]


class Signer:
    """Signs ``{iss, aud, sub, iat, exp, jti, typ: session}`` with the ``kid`` of its key; ``jti``
    (128 random bits) gives every token its own id, so two sessions issued in the same second
    are never the same bytes."""

    def __init__(self, key: Ed25519PrivateKey, issuer: str, ttl_s: float) -> None:
        self._key, self.issuer, self.ttl_s = key, issuer, ttl_s
        self.kid = kid(key.public_key())

    def sign(self, player_id: str, now: float | None = None) -> tuple[str, int]:
        """``(token, expires_at)``; expiry in Unix seconds."""
        issued = int(time.time() if now is None else now)
        expires = issued + int(self.ttl_s)
        claims = {"iss": self.issuer, "aud": AUDIENCE, "sub": player_id, "iat": issued,
                  "exp": expires, "jti": secrets.token_hex(16), "typ": "session"}
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers={"kid": self.kid}), expires
