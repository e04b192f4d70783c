"""Session tokens: only EdDSA tokens of a known key, issuer and audience verify."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.env import ConfigError
from hand_common.identity import MAX_TOKEN, Verifier, bearer
from hand_common.refusal import Refusal
from hand_common.sessionkeys import b64, dev_private_key, kid, public_keys

KEY = Ed25519PrivateKey.generate()
SIGNER = Signer(KEY, "hand-auth", 600)
VERIFIER = Verifier({SIGNER.kid: KEY.public_key()}, "hand-auth")


def _code(token: str) -> str:
    with pytest.raises(Refusal) as info:
        VERIFIER.verify(token)
    return info.value.code


def test_a_signed_session_verifies_to_its_player() -> None:
    token, expires = SIGNER.sign("p-1")
    session = VERIFIER.verify(token)
    assert (session.player_id, session.expires_at) == ("p-1", expires)


def test_expired_tokens_say_so_and_forged_ones_do_not_verify() -> None:
    old, _ = SIGNER.sign("p-1", now=time.time() - 3600)
    assert _code(old) == "SESSION_EXPIRED"
    other = Signer(Ed25519PrivateKey.generate(), "hand-auth", 600)
    assert _code(other.sign("p-1")[0]) == "UNAUTHENTICATED"  # unknown kid
    claims = {"iss": "hand-auth", "aud": "hand", "sub": "p-1", "iat": int(time.time()),
              "exp": int(time.time()) + 600, "typ": "session"}
    forged = jwt.encode(claims, Ed25519PrivateKey.generate(), algorithm="EdDSA", headers={"kid": SIGNER.kid})
    assert _code(forged) == "UNAUTHENTICATED"  # right kid, wrong key
    unsigned = jwt.encode(claims, None, algorithm="none", headers={"kid": SIGNER.kid})
    assert _code(unsigned) == "UNAUTHENTICATED"  # alg none
    public_raw = KEY.public_key().public_bytes_raw()
    hmac = jwt.encode(claims, public_raw, algorithm="HS256", headers={"kid": SIGNER.kid})
    assert _code(hmac) == "UNAUTHENTICATED"  # the algorithm-confusion attack
    for wrong in ({"iss": "evil"}, {"aud": "other"}, {"typ": "refresh"}, {"sub": ""}):
        token = jwt.encode({**claims, **wrong}, KEY, algorithm="EdDSA", headers={"kid": SIGNER.kid})
        assert _code(token) == "UNAUTHENTICATED", wrong
    assert _code("x" * (MAX_TOKEN + 1)) == "UNAUTHENTICATED"
    assert _code("not.a.jwt") == "UNAUTHENTICATED"


def test_the_authorization_entry_must_be_a_bearer_token() -> None:
    assert bearer([("accept-language", "ar")]) is None
    assert bearer([("authorization", "Bearer abc")]) == "abc"
    for value in ("Basic abc", "Bearer", "Bearer " + "x" * (MAX_TOKEN + 1)):
        with pytest.raises(Refusal):
            bearer([("authorization", value)])


def test_keys_come_from_the_configuration_or_a_shared_dev_file(tmp_path: Path) -> None:
    path = str(tmp_path / "dev.key")
    first, again = dev_private_key(path), dev_private_key(path)
    assert first.private_bytes_raw() == again.private_bytes_raw()
    assert (tmp_path / "dev.key").stat().st_mode & 0o077 == 0
    configured = IdentityConfig(public_keys=(b64(KEY.public_key().public_bytes_raw()),), dev_key_file="")
    assert list(public_keys(configured)) == [kid(KEY.public_key())]
    with pytest.raises(ConfigError, match="HAND_AUTH_PUBLIC_KEYS"):
        IdentityConfig.from_env({"HAND_AUTH_DEV_KEY_FILE": "off"})


def test_the_signing_key_never_shows_in_a_repr() -> None:
    seed = b64(KEY.private_bytes_raw())
    assert seed not in repr(IdentityConfig(signing_key=seed))
