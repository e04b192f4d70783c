"""Who the caller is: verify the session token of a gRPC call and give its player id.

Clients send ``authorization: Bearer <session token>`` in the call's
metadata; the token is an EdDSA (Ed25519) JWT issued by ``hand_auth``
(docs/decisions/0007-player-identity.md). Every service that needs the
player asks this module — never the request body — so nobody can act, or
be rated, as someone else:

    verifier = Verifier.from_config(config.identity)
    player_id = await require_player(context, verifier)    # UNAUTHENTICATED if absent/bad
    player_id = await optional_player(context, verifier)   # None if absent, refusal if bad

Refusals: ``UNAUTHENTICATED`` with ``ERROR_CODE_UNAUTHENTICATED`` (no token,
bad signature, wrong issuer or audience, malformed) or
``ERROR_CODE_SESSION_EXPIRED`` (refresh it with AuthService.RefreshSession).
Nothing of the token is ever logged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import grpc
import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .config import IdentityConfig
from .refusal import Refusal
from .sessionkeys import public_keys

__all__ = ["AUDIENCE", "MAX_TOKEN", "Session", "Verifier", "bearer", "optional_player",
           "require_player"]

AUDIENCE = "hand"
MAX_TOKEN = 2048  # characters; a longer authorization value is refused unread
ALGORITHM = "EdDSA"
LEEWAY_S = 5  # clock skew between the issuer and a verifier


@dataclass(frozen=True)
class Session:
    """A verified session: the player and when the token expires (Unix seconds)."""

    player_id: str
    expires_at: int


def bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The bearer token of invocation metadata; None without an ``authorization`` entry.

    Raises ``Refusal(UNAUTHENTICATED)`` for an entry that is not ``Bearer <token>``
    or is longer than ``MAX_TOKEN``.
    """
    for key, value in metadata or ():
        if key != "authorization":
            continue
        text = value if isinstance(value, str) else value.decode("latin-1")
        scheme, _, token = text.partition(" ")
        if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN:
            raise Refusal("UNAUTHENTICATED", "authorization: expected Bearer <token>",
                          field="authorization")
        return token.strip()
    return None


class Verifier:
    """Checks session tokens against the accepted public keys (by ``kid``)."""

    def __init__(self, keys: Mapping[str, Ed25519PublicKey], issuer: str) -> None:
        self._keys, self._issuer = dict(keys), issuer

    @classmethod
    def from_config(cls, config: IdentityConfig) -> Verifier:
        return cls(public_keys(config), config.issuer)

    def verify(self, token: str) -> Session:
        """The session a token proves; ``Refusal`` for any token that does not verify."""
        bad = Refusal("UNAUTHENTICATED", "session token not valid", field="authorization")
        if len(token) > MAX_TOKEN:
            raise bad
        try:
            key = self._keys.get(jwt.get_unverified_header(token).get("kid", ""))
            if key is None:
                raise bad
            claims = jwt.decode(
                token, key, algorithms=[ALGORITHM], audience=AUDIENCE, issuer=self._issuer,
                leeway=LEEWAY_S, options={"require": ["exp", "iat", "sub", "iss", "aud"]})
        except jwt.ExpiredSignatureError:
            raise Refusal("SESSION_EXPIRED", "session token expired", field="authorization") from None
        except (jwt.InvalidTokenError, ValueError, TypeError, AttributeError):
            raise bad from None
        if claims.get("typ") != "session" or not isinstance(claims["sub"], str) or not claims["sub"]:
            raise bad
        return Session(claims["sub"], int(claims["exp"]))

    def session_of(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Session | None:
        """The verified session of a call's metadata; None if it sends no token."""
        token = bearer(metadata)
        return None if token is None else self.verify(token)


async def _abort(context: grpc.aio.ServicerContext, refusal: Refusal) -> None:
    from .door import abort_refusal

    await abort_refusal(context, refusal)


async def optional_player(context: grpc.aio.ServicerContext, verifier: Verifier) -> str | None:
    """The caller's player id; None when the call carries no token; aborts on a bad one."""
    try:
        session = verifier.session_of(context.invocation_metadata())
    except Refusal as refusal:
        await _abort(context, refusal)
        raise  # not reached: abort raises
    return None if session is None else session.player_id


async def require_player(context: grpc.aio.ServicerContext, verifier: Verifier) -> str:
    """The caller's player id; aborts the call with UNAUTHENTICATED when there is none."""
    player_id = await optional_player(context, verifier)
    if player_id is None:
        await _abort(context, Refusal("UNAUTHENTICATED", "sign in first", field="authorization"))
        raise AssertionError("not reached")
    return player_id
