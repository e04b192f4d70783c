"""``AuthService`` on a real server (port 0), SQLite and PostgreSQL: guest sign-in creates
and remembers a player, sessions verify with the public key only, refresh tokens are single
use (a replayed one revokes every session of its player), expiry and forgery are refused with
UNAUTHENTICATED; and the ledger takes ``GetPlayerStats``' player from the session token."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc_status import rpc_status
from sqlalchemy import insert

from hand.v1 import auth_service_pb2 as pb
from hand.v1 import auth_service_pb2_grpc as pb_grpc
from hand.v1 import errors_pb2
from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand_auth.server import AuthServer
from hand_auth.settings import AuthConfig
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.identity import Verifier
from hand_common.sessionkeys import dev_private_key
from hand_common.status import from_status
from hand_infra.postgres import create_database, drop_database
from hand_ledger import _schema as ledger_schema
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig

DEVICE = "device-0123456789abcdef"


@pytest.fixture(params=["sqlite", "postgresql"])
async def auth(request, tmp_path: Path, unique: str) -> AsyncIterator[SimpleNamespace]:
    key_file = str(tmp_path / "dev.key")
    url, drop = f"sqlite:///{tmp_path / 'auth.db'}", None
    if request.param == "postgresql":
        server_url = request.getfixturevalue("pg_url")
        url = await create_database(server_url, f"auth_{unique}")
        drop = server_url
    env = {"HAND_AUTH_PORT": "0", "HAND_AUTH_URL": url, "HAND_AUTH_DEV_KEY_FILE": key_file,
           "HAND_SHUTDOWN_GRACE_S": "0"}
    server = AuthServer(AuthConfig.from_env(env))
    await server.start()
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield SimpleNamespace(stub=pb_grpc.AuthServiceStub(channel), env=env, key_file=key_file,
                              identity=IdentityConfig(dev_key_file=key_file), tmp=tmp_path)
    finally:
        await channel.close()
        await server.stop(0)
        if drop is not None:
            await drop_database(drop, f"auth_{unique}")


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def refused(call) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    error = from_status(rpc_status.from_call(info.value))
    assert error is not None, info.value
    return info.value.code(), errors_pb2.ErrorCode.Name(error.code), dict(error.params)


async def test_a_device_signs_in_as_one_remembered_player(auth) -> None:
    first = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE, display_name="Noor"))
    again = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))
    other = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE + "x"))
    assert first.created and not again.created and other.created
    assert first.player.player_id == again.player.player_id != other.player.player_id
    assert again.player.display_name == "Noor"
    session = Verifier.from_config(auth.identity).verify(first.session.access_token)
    assert session.player_id == first.player.player_id
    assert abs(session.expires_at * 1000 - first.session.access_expires_at_ms) < 1000
    me = await auth.stub.GetMe(pb.GetMeRequest(), metadata=bearer(again.session.access_token))
    assert me.player.player_id == first.player.player_id


async def test_a_refresh_token_is_spent_once_and_a_replay_revokes_every_session_of_the_player(auth) -> None:
    """Decision 0024: a spent refresh token sent again revokes the refresh tokens of every sign-in
    of its player (bug: only its own sign-in's), not another player's."""
    signed = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))
    elsewhere = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))  # another sign-in
    stranger = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE + "x"))
    fresh = (await auth.stub.RefreshSession(
        pb.RefreshSessionRequest(refresh_token=signed.session.refresh_token))).session
    assert fresh.refresh_token != signed.session.refresh_token
    me = await auth.stub.GetMe(pb.GetMeRequest(), metadata=bearer(fresh.access_token))
    assert me.player.player_id == signed.player.player_id
    code, name, params = await refused(auth.stub.RefreshSession(
        pb.RefreshSessionRequest(refresh_token=signed.session.refresh_token)))
    assert (code, name) == (grpc.StatusCode.UNAUTHENTICATED, "ERROR_CODE_UNAUTHENTICATED")
    assert params == {"field": "refresh_token", "reason": "reused"}
    for revoked in (fresh.refresh_token, elsewhere.session.refresh_token):
        code, _, params = await refused(auth.stub.RefreshSession(
            pb.RefreshSessionRequest(refresh_token=revoked)))
        assert code == grpc.StatusCode.UNAUTHENTICATED and params["reason"] == "reused"
    assert (await auth.stub.RefreshSession(
        pb.RefreshSessionRequest(refresh_token=stranger.session.refresh_token))).session.access_token
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await auth.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token="never-issued"))
    assert "sign in again" in info.value.details()


async def test_two_sign_ins_in_the_same_second_get_different_session_tokens(auth) -> None:
    """Bug: two SignInGuest calls within one second returned byte-identical access tokens."""
    tokens = [(await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))).session.access_token
              for _ in range(3)]
    assert len(set(tokens)) == 3
    verifier = Verifier.from_config(auth.identity)
    assert {verifier.verify(t).player_id for t in tokens} == {verifier.verify(tokens[0]).player_id}


async def test_a_malformed_device_id_is_refused_with_what_it_must_be(auth) -> None:
    """Bug: a device id with a space was refused with "The request is malformed."."""
    for lang, words in (("en", "device_id must be 16 to 128 characters"), ("ar", "يجب أن يكون device_id")):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id="my device id 0123456"),
                                        metadata=(("accept-language", lang),))
        error = from_status(rpc_status.from_call(info.value))
        assert words in error.message and "A-Z a-z 0-9 . _ ~ -" in error.message, error.message
        assert error.params["field"] == "device_id"


async def test_expired_forged_and_missing_sessions_are_refused(auth) -> None:
    signed = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))
    player_id = signed.player.player_id
    expired, _ = Signer(dev_private_key(auth.key_file), "hand-auth", 60).sign(player_id, time.time() - 600)
    forged, _ = Signer(Ed25519PrivateKey.generate(), "hand-auth", 600).sign(player_id)
    code, name, params = await refused(auth.stub.GetMe(pb.GetMeRequest(), metadata=bearer(expired)))
    assert (code, name, params["field"]) == (
        grpc.StatusCode.UNAUTHENTICATED, "ERROR_CODE_SESSION_EXPIRED", "authorization")
    for metadata in (bearer(forged), bearer("x" * 40), (("authorization", "Basic abc"),), ()):
        code, name, _ = await refused(auth.stub.GetMe(pb.GetMeRequest(), metadata=metadata))
        assert (code, name) == (grpc.StatusCode.UNAUTHENTICATED, "ERROR_CODE_UNAUTHENTICATED")


@pytest.mark.parametrize("device_id, display_name, field", [
    ("short", "", "device_id"), ("bad id with spaces!!", "", "device_id"),
    ("d" * 129, "", "device_id"), (DEVICE, "n" * 65, "display_name"), (DEVICE, "a\x00b", "display_name")])
async def test_bad_sign_ins_are_refused_and_create_nobody(auth, device_id, display_name, field) -> None:
    code, name, params = await refused(auth.stub.SignInGuest(
        pb.SignInGuestRequest(device_id=device_id, display_name=display_name)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and params["field"] == field, name
    assert (await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))).created


async def test_the_ledger_takes_the_asking_player_from_the_session_token(auth) -> None:
    signed = await auth.stub.SignInGuest(pb.SignInGuestRequest(device_id=DEVICE))
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_AUTH_DEV_KEY_FILE": auth.key_file,
                                    "HAND_LEDGER_URL": f"sqlite:///{auth.tmp / 'ledger.db'}"})
    ledger = LedgerServer(config, None)
    await ledger.start()
    row = {"name": "Noor", "matches": 3, "mu": 25.0, "sigma": 8.0, "ordinal": 1.0}
    async with ledger.store.engine.begin() as conn:
        await conn.execute(insert(ledger_schema.players), [
            {**row, "player_id": signed.player.player_id}, {**row, "player_id": "someone", "matches": 9}])
    try:
        async with grpc.aio.insecure_channel(ledger.target) as channel:
            stub = lpb_grpc.LedgerServiceStub(channel)
            mine = await stub.GetPlayerStats(lpb.GetPlayerStatsRequest(),
                                             metadata=bearer(signed.session.access_token))
            assert (mine.stats.player_id, mine.stats.matches) == (signed.player.player_id, 3)
            code, name, _ = await refused(stub.GetPlayerStats(lpb.GetPlayerStatsRequest()))
            assert (code, name) == (grpc.StatusCode.UNAUTHENTICATED, "ERROR_CODE_UNAUTHENTICATED")
    finally:
        await ledger.stop(0)


async def test_long_expired_refresh_tokens_are_purged_as_new_ones_are_issued(auth) -> None:
    """Every refresh adds a row; none left before (a row per refresh of every player, for
    good). Each issue now deletes up to PURGE_BATCH tokens expired more than KEEP_EXPIRED
    ago; those expired more recently stay (a replay of one still revokes the player's)."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import func, insert, select

    from hand_auth._schema import refresh_tokens
    from hand_auth.store import KEEP_EXPIRED, PURGE_BATCH, AuthStore

    store = AuthStore(auth.env["HAND_AUTH_URL"])
    await store.start()
    try:
        now = datetime.now(UTC)
        long_ago, lately = now - KEEP_EXPIRED - timedelta(days=1), now - timedelta(days=1)
        async with store.engine.begin() as conn:
            await conn.execute(insert(refresh_tokens), [
                {"token_hash": f"old-{i}", "player_id": "p", "family": "f", "expires_at": long_ago, "spent": True}
                for i in range(PURGE_BATCH * 2 + 50)] + [
                {"token_hash": f"late-{i}", "player_id": "p", "family": "f", "expires_at": lately, "spent": True}
                for i in range(5)])

        async def count(prefix: str) -> int:
            async with store.engine.connect() as conn:
                return await conn.scalar(select(func.count()).select_from(refresh_tokens)
                                         .where(refresh_tokens.c.token_hash.startswith(prefix)))

        await store.issue_refresh("p", 3600)
        assert await count("old-") == PURGE_BATCH + 50  # before: 250, for good
        await store.issue_refresh("p", 3600)
        await store.issue_refresh("p", 3600)
        assert await count("old-") == 0
        assert await count("late-") == 5
    finally:
        await store.close()
