"""kafka_settings(): env vars in, the aiokafka arguments BROKER.md asks for out."""

from __future__ import annotations

import pytest

from hand_infra.settings import EVENTSTORE_URL, eventstore_url, kafka_settings


def test_without_a_bootstrap_server_the_embedded_broker_is_used() -> None:
    settings = kafka_settings({})
    assert settings.embedded and settings.partitions == 8 and settings.replication_factor == 1
    with pytest.raises(RuntimeError, match="no broker"):
        settings.producer_kwargs()


def test_env_vars_choose_the_broker_and_partitions() -> None:
    settings = kafka_settings({"KAFKA_BOOTSTRAP_SERVERS": "kafka:9092", "HAND_KAFKA_PARTITIONS": "12",
                               "HAND_KAFKA_REPLICATION": "3"})
    assert not settings.embedded
    assert (settings.bootstrap_servers, settings.partitions, settings.replication_factor) == (
        "kafka:9092", 12, 3)


def test_a_partition_count_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="HAND_KAFKA_PARTITIONS"):
        kafka_settings({"HAND_KAFKA_PARTITIONS": "0"})


def test_producers_wait_for_all_replicas_without_idempotence() -> None:
    kwargs = kafka_settings({}).with_bootstrap("127.0.0.1:9").producer_kwargs()
    assert kwargs["acks"] == "all" and kwargs["enable_idempotence"] is False
    assert kwargs["bootstrap_servers"] == "127.0.0.1:9"


def test_consumers_commit_by_hand_from_earliest_with_bounded_fetch_wait_and_failover() -> None:
    """Fetches wait at most 100 ms (cross-instance latency) and idle consumers do not spin;
    the room path that players wait on is decided in-process, not through Kafka."""
    kwargs = kafka_settings({}).with_bootstrap("127.0.0.1:9").consumer_kwargs("g")
    assert kwargs["group_id"] == "g" and kwargs["enable_auto_commit"] is False
    assert kwargs["auto_offset_reset"] == "earliest"
    assert 50 <= kwargs["fetch_max_wait_ms"] <= 100
    fast = kafka_settings({"HAND_KAFKA_FETCH_WAIT_MS": "10"}).with_bootstrap("127.0.0.1:9")
    assert fast.consumer_kwargs("g")["fetch_max_wait_ms"] == 10
    assert (kwargs["session_timeout_ms"], kwargs["heartbeat_interval_ms"]) == (6000, 1000)


def test_the_event_store_defaults_to_a_sqlite_file() -> None:
    assert eventstore_url({}) == EVENTSTORE_URL.default == "sqlite:///var/hand-events.db"
    assert eventstore_url({"HAND_EVENTSTORE_URL": "postgresql://h/db"}) == "postgresql://h/db"


def test_clients_built_from_the_settings_never_create_a_topic_by_asking_for_it() -> None:
    """aiokafka sends allow_auto_topic_creation=True in every MetadataRequest v4+ and has no
    option for it; the settings' kwargs turn it off for clients and admin clients alike
    (docs/decisions/0019-topics-checked.md)."""
    from aiokafka import client
    from aiokafka.admin import client as admin_client

    kafka_settings({}).with_bootstrap("127.0.0.1:9").consumer_kwargs("g")
    for module in (client, admin_client):
        request = module.MetadataRequest(["hand.room-commands"]).prepare({3: (0, 12)})
        assert request.API_VERSION == 5 and request.allow_auto_topic_creation is False, module.__name__
