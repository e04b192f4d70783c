"""The ledger's and the auth service's PostgreSQL killed under them: a call that needs the
database is refused UNAVAILABLE with ``ERROR_CODE_SERVICE_UNAVAILABLE`` and a retry hint
(in the caller's language), not INTERNAL, and changes nothing; once the server is back
the same call succeeds. (The room service answers ``ROOM_UNAVAILABLE``:
test_room_store_timeout.py.)"""

from __future__ import annotations

import asyncio

import grpc
from grpc_status import rpc_status

from hand.v1 import auth_service_pb2 as apb
from hand.v1 import auth_service_pb2_grpc as apb_grpc
from hand.v1 import errors_pb2
from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand_auth.server import AuthServer
from hand_common.config import AuthConfig, LedgerConfig
from hand_common.status import from_status
from hand_infra.postgres import TempPostgres, create_database
from hand_ledger.server import LedgerServer

DEVICE = "device-0123456789abcdef"


async def refusal(call) -> tuple[grpc.StatusCode, errors_pb2.RuleError]:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        detail = from_status(rpc_status.from_call(exc))
        assert detail is not None, f"no RuleError: {exc.code()} {exc.details()}"
        return exc.code(), detail
    raise AssertionError("the call was not refused")


async def until_back(call):
    """``call()``'s answer (or refusal) once the restarted database answers: broken pooled
    connections are replaced on the way, UNAVAILABLE meanwhile."""
    for _ in range(100):
        try:
            return await call()
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("the service never answered after the restart")


async def test_ledger_and_auth_calls_while_postgresql_is_down_are_unavailable_then_succeed(tmp_path) -> None:
    with TempPostgres() as pg:
        ledger_url = await create_database(pg.url, "ledger")
        auth_url = await create_database(pg.url, "auth")
        ledger = LedgerServer(LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                                     "HAND_LEDGER_URL": ledger_url}), None)
        auth = AuthServer(AuthConfig.from_env({"HAND_AUTH_PORT": "0", "HAND_AUTH_URL": auth_url,
                                               "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "dev.key"),
                                               "HAND_SHUTDOWN_GRACE_S": "0"}))
        await ledger.start()
        await auth.start()
        lch, ach = grpc.aio.insecure_channel(ledger.target), grpc.aio.insecure_channel(auth.target)
        try:
            lstub, astub = lpb_grpc.LedgerServiceStub(lch), apb_grpc.AuthServiceStub(ach)
            sheet = lpb.GetScoreSheetRequest(room_id="no-such-room")
            sign_in = apb.SignInGuestRequest(device_id=DEVICE, display_name="Nura")
            pg.kill()

            for call, lang in ((lambda md: lstub.GetScoreSheet(sheet, timeout=10, metadata=md), "en"),
                               (lambda md: astub.SignInGuest(sign_in, timeout=10, metadata=md), "ar")):
                code, detail = await refusal(call((("accept-language", lang),)))
                assert code == grpc.StatusCode.UNAVAILABLE, (code, detail)
                assert detail.code == errors_pb2.ERROR_CODE_SERVICE_UNAVAILABLE, detail
                assert int(detail.params["retry_after_ms"]) > 0
                assert ("قاعدة" in detail.message) == (lang == "ar"), detail.message

            await asyncio.get_running_loop().run_in_executor(None, pg.restart)
            code, detail = await refusal(until_back(lambda: lstub.GetScoreSheet(sheet, timeout=10)))
            assert code == grpc.StatusCode.NOT_FOUND and detail.code == errors_pb2.ERROR_CODE_ROOM_NOT_FOUND
            signed = await until_back(lambda: astub.SignInGuest(sign_in, timeout=10))
            assert signed.player.player_id and signed.created  # nothing was written while it was down
        finally:
            await lch.close()
            await ach.close()
            await ledger.stop(0)
            await auth.stop(0)


async def test_an_unexpected_fault_is_internal_and_tells_the_caller_nothing_of_it(tmp_path) -> None:
    """A fault that is neither a refusal nor the database down: INTERNAL with the service's
    own words, never UNKNOWN with the exception's text (a path, an address)."""
    ledger = LedgerServer(LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                                 "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}"}), None)
    auth = AuthServer(AuthConfig.from_env({"HAND_AUTH_PORT": "0", "HAND_AUTH_URL": f"sqlite:///{tmp_path / 'a.db'}",
                                           "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "dev.key"),
                                           "HAND_SHUTDOWN_GRACE_S": "0"}))
    await ledger.start()
    await auth.start()

    def broken(*args, **kw):
        raise RuntimeError("secret /srv/hand/ledger.db at 10.0.0.7")

    ledger.store.read = broken
    auth.store.guest = broken
    lch, ach = grpc.aio.insecure_channel(ledger.target), grpc.aio.insecure_channel(auth.target)
    try:
        calls = (lpb_grpc.LedgerServiceStub(lch).GetScoreSheet(lpb.GetScoreSheetRequest(room_id="r")),
                 apb_grpc.AuthServiceStub(ach).SignInGuest(apb.SignInGuestRequest(device_id=DEVICE)))
        for call in calls:
            try:
                await call
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.INTERNAL, (exc.code(), exc.details())
                assert "secret" not in exc.details() and "10.0.0.7" not in exc.details(), exc.details()
            else:
                raise AssertionError("the call was not refused")
    finally:
        await lch.close()
        await ach.close()
        await ledger.stop(0)
        await auth.stop(0)
