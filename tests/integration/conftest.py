"""Real components for integration tests: a Tansu broker, a PostgreSQL server, stores.

``broker`` and ``pg_url`` are started once per session (per xdist worker) on
free loopback ports; ``store`` runs each test against SQLite and against
PostgreSQL, each time on a fresh database. Set ``KAFKA_BOOTSTRAP_SERVERS`` to
run the broker tests against an external Kafka instead of Tansu.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from hand_infra.broker import kafka_broker_sync
from hand_infra.eventstore import EventStore
from hand_infra.postgres import TempPostgres, create_database, drop_database
from hand_infra.settings import KafkaSettings, kafka_settings


@pytest.fixture(scope="session")
def broker() -> Iterator[KafkaSettings]:
    """Kafka settings for a session-wide broker (embedded Tansu unless configured).

    Shorter group timeouts than production: a group join takes about half
    the session timeout on Tansu, and tests join many fresh groups.
    """
    settings = dataclasses.replace(kafka_settings(), session_timeout_ms=3000,
                                   heartbeat_interval_ms=500)
    with kafka_broker_sync(settings) as ready:
        yield ready


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of the ``postgres`` database on a session-wide throwaway server."""
    with TempPostgres() as server:
        yield server.url


@pytest.fixture
def unique() -> str:
    """A short unique suffix for topic, group, room and database names."""
    return uuid.uuid4().hex[:12]


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, tmp_path: Path, unique: str
                ) -> AsyncIterator[EventStore]:
    """A started event store on an empty database of each backend."""
    if request.param == "sqlite":
        async with EventStore(f"sqlite:///{tmp_path / 'events.db'}") as sqlite_store:
            yield sqlite_store
        return
    server_url = request.getfixturevalue("pg_url")
    name = f"events_{unique}"
    url = await create_database(server_url, name)
    try:
        async with EventStore(url) as pg_store:
            yield pg_store
    finally:
        await drop_database(server_url, name)
