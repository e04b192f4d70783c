"""The ledger's and the auth service's PostgreSQL killed, or frozen, under them: a call that
needs the database is refused UNAVAILABLE with ``ERROR_CODE_SERVICE_UNAVAILABLE`` and a
retry hint (in the caller's language), not UNKNOWN or a hang, and changes nothing; once the
server is back the same call succeeds. Any other fault is INTERNAL and tells the caller
nothing of itself. (The room service answers ``ROOM_UNAVAILABLE``:
test_room_store_timeout.py.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

import grpc
from grpc_status import rpc_status

from hand.v1 import auth_service_pb2 as apb
from hand.v1 import auth_service_pb2_grpc as apb_grpc
from hand.v1 import errors_pb2
from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand_auth.server import AuthServer
from hand_auth.settings import AuthConfig
from hand_common.status import from_status
from hand_infra.postgres import TempPostgres, create_database
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig

DEVICE = "device-0123456789abcdef"
SHEET = lpb.GetScoreSheetRequest(room_id="no-such-room")
SIGN_IN = apb.SignInGuestRequest(device_id=DEVICE, display_name="Nura")


@asynccontextmanager
async def services(tmp_path: Path, ledger_url: str, auth_url: str) -> AsyncIterator[SimpleNamespace]:
    """A ledger and an auth server on these databases: (ledger, auth, their stubs)."""
    ledger = LedgerServer(LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                                 "HAND_LEDGER_URL": ledger_url}), None)
    auth = AuthServer(AuthConfig.from_env({"HAND_AUTH_PORT": "0", "HAND_AUTH_URL": auth_url,
                                           "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "dev.key"),
                                           "HAND_SHUTDOWN_GRACE_S": "0"}))
    await ledger.start()
    await auth.start()
    lch, ach = grpc.aio.insecure_channel(ledger.target), grpc.aio.insecure_channel(auth.target)
    try:
        yield SimpleNamespace(ledger=ledger, auth=auth, lstub=lpb_grpc.LedgerServiceStub(lch),
                              astub=apb_grpc.AuthServiceStub(ach))
    finally:
        await lch.close()
        await ach.close()
        await ledger.stop(0)
        await auth.stop(0)


@asynccontextmanager
async def on_postgres(tmp_path: Path) -> AsyncIterator[tuple[TempPostgres, SimpleNamespace]]:
    with TempPostgres() as pg:
        urls = [await create_database(pg.url, name) for name in ("ledger", "auth")]
        async with services(tmp_path, *urls) as s:
            yield pg, s


async def refusal(call) -> tuple[grpc.StatusCode, errors_pb2.RuleError]:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        detail = from_status(rpc_status.from_call(exc))
        assert detail is not None, f"no RuleError: {exc.code()} {exc.details()}"
        return exc.code(), detail
    raise AssertionError("the call was not refused")


async def until_back(call):
    """``call()``'s answer (or refusal) once the database answers again: broken pooled
    connections are replaced on the way, UNAVAILABLE meanwhile."""
    for _ in range(100):
        try:
            return await call()
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("the service never answered after the restart")


async def assert_back(s: SimpleNamespace) -> None:
    """Both services answer again, and the sign-in refused before wrote nothing."""
    code, detail = await refusal(until_back(lambda: s.lstub.GetScoreSheet(SHEET, timeout=20)))
    assert code == grpc.StatusCode.NOT_FOUND and detail.code == errors_pb2.ERROR_CODE_ROOM_NOT_FOUND
    signed = await until_back(lambda: s.astub.SignInGuest(SIGN_IN, timeout=20))
    assert signed.player.player_id and signed.created


async def test_ledger_and_auth_calls_while_postgresql_is_down_are_unavailable_then_succeed(tmp_path) -> None:
    async with on_postgres(tmp_path) as (pg, s):
        pg.kill()
        for call, lang in ((lambda md: s.lstub.GetScoreSheet(SHEET, timeout=10, metadata=md), "en"),
                           (lambda md: s.astub.SignInGuest(SIGN_IN, timeout=10, metadata=md), "ar")):
            code, detail = await refusal(call((("accept-language", lang),)))
            assert code == grpc.StatusCode.UNAVAILABLE, (code, detail)
            assert detail.code == errors_pb2.ERROR_CODE_SERVICE_UNAVAILABLE, detail
            assert int(detail.params["retry_after_ms"]) > 0
            assert ("قاعدة" in detail.message) == (lang == "ar"), detail.message
        await asyncio.get_running_loop().run_in_executor(None, pg.restart)
        await assert_back(s)


async def test_ledger_and_auth_calls_on_a_frozen_postgresql_are_unavailable_within_the_db_timeout(
        tmp_path, monkeypatch) -> None:
    """PostgreSQL frozen (SIGSTOP: connections open, nothing answers — a frozen VM or a
    cut-off network): a call waits at most HAND_DB_TIMEOUT_S for a connect or a statement,
    then is refused SERVICE_UNAVAILABLE; once the server runs again the calls succeed."""
    timeout_s = 1.0
    monkeypatch.setenv("HAND_DB_TIMEOUT_S", str(timeout_s))
    async with on_postgres(tmp_path) as (pg, s):
        pg.freeze()
        try:
            for call in (lambda: s.lstub.GetScoreSheet(SHEET, timeout=20),
                         lambda: s.astub.SignInGuest(SIGN_IN, timeout=20)):
                started = time.monotonic()
                code, detail = await refusal(call())
                took = time.monotonic() - started
                assert code == grpc.StatusCode.UNAVAILABLE, (code, detail)
                assert detail.code == errors_pb2.ERROR_CODE_SERVICE_UNAVAILABLE, detail
                assert took < 4 * timeout_s + 2, took  # bounded: a pre-ping, a connect, a statement
        finally:
            pg.thaw()
        await assert_back(s)


async def test_an_unexpected_fault_is_internal_and_tells_the_caller_nothing_of_it(tmp_path) -> None:
    """A fault that is neither a refusal nor the database down: INTERNAL with the service's
    own words, never UNKNOWN with the exception's text (a path, an address)."""
    async with services(tmp_path, f"sqlite:///{tmp_path / 'l.db'}", f"sqlite:///{tmp_path / 'a.db'}") as s:
        def broken(*args, **kw):
            raise RuntimeError("secret /srv/hand/ledger.db at 10.0.0.7")

        s.ledger.store.read = broken
        s.auth.store.guest = broken
        for call in (s.lstub.GetScoreSheet(SHEET), s.astub.SignInGuest(SIGN_IN)):
            try:
                await call
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.INTERNAL, (exc.code(), exc.details())
                assert "secret" not in exc.details() and "10.0.0.7" not in exc.details(), exc.details()
            else:
                raise AssertionError("the call was not refused")
