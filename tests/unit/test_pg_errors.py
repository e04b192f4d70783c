"""How the asyncpg hot path's errors are classified (``hand_infra.eventstore_pg``): a
connection that broke is "unreachable" (a client hears UNAVAILABLE with a retry hint,
not INTERNAL); a unique violation is an ``IntegrityError``; anything else stays itself."""

from __future__ import annotations

import asyncpg
import pytest
from sqlalchemy.exc import IntegrityError

from hand_infra.eventstore_pg import _translated
from hand_infra.sqlstore import store_refusal, unreachable


@pytest.mark.parametrize("exc", [
    # PostgreSQL killed under a query (seen in test_room_store_timeout: GetRoom answered INTERNAL)
    asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
    asyncpg.InterfaceError("connection is closed"),
    asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
], ids=lambda e: type(e).__name__)
def test_a_broken_connection_is_unreachable_and_refused_unavailable(exc: Exception) -> None:
    translated = _translated(exc)
    assert unreachable(translated)
    refusal = store_refusal(translated)
    assert refusal is not None and refusal.params["retry_after_ms"] > 0


def test_a_unique_violation_is_an_integrity_error_and_not_unreachable() -> None:
    translated = _translated(asyncpg.UniqueViolationError("duplicate key"))
    assert isinstance(translated, IntegrityError) and not unreachable(translated)


def test_an_error_of_ours_stays_itself() -> None:
    exc = ValueError("a bug")
    assert _translated(exc) is exc and not unreachable(exc)
