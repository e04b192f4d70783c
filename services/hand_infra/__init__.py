"""Infrastructure the services stand on: broker, topics, event store, outbox.

- :mod:`hand_infra.settings` — configuration from environment variables and
  the one place aiokafka client arguments come from (``kafka_settings()``);
- :mod:`hand_infra.broker` — the embedded Tansu broker (``TansuBroker``,
  ``kafka_broker()``), skipped when ``KAFKA_BOOTSTRAP_SERVERS`` is set;
- :mod:`hand_infra.topics` — the project's topics, created explicitly;
- :mod:`hand_infra.eventstore` — the per-room event log with its outbox and
  client action ids, on SQLite or PostgreSQL;
- :mod:`hand_infra.outbox` — the outbox relay to ``hand.room-events`` and the
  consumer-side ``Deduper``;
- :mod:`hand_infra.postgres` — a throwaway PostgreSQL server for tests/dev.

The rules engine never imports this package.
"""
