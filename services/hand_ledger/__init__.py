"""The scoring ledger: score sheets, match results, player statistics and
ratings, and replays of every room, projected from ``hand.room-events``.

- :mod:`hand_ledger.consumer` — the consumer group; ordering per room
  (:mod:`hand_ledger.ordering`), commits after the database;
- :mod:`hand_ledger.store` — the database, its positions in other stores;
- :mod:`hand_ledger.project` — ingest in one transaction per batch, the archive
  row of each event being its tracking record (:mod:`hand_ledger._schema`), and
  the projections; :mod:`hand_ledger.sheets` (docs/rules.md §9–§10, pure) and
  :mod:`hand_ledger.ratings` (openskill);
- :mod:`hand_ledger.reads` — read models; :mod:`hand_ledger.replay` — folds
  and the replay check; :mod:`hand_ledger.replay_cache` — their cache;
- :mod:`hand_ledger.service` / :mod:`hand_ledger.grpc_messages` /
  :mod:`hand_ledger.server` — the gRPC ``LedgerService``.

See docs/ledger.md.
"""


def __getattr__(name: str):
    """The service's front door for ``hand_run`` (``LedgerServer``), loaded on first use: the
    composition root imports ``hand_ledger`` itself, never its modules, and importing any other
    module of the package does not load the server."""
    if name == "LedgerServer":
        from .server import LedgerServer

        return LedgerServer
    if name == "LedgerConfig":  # its settings (decision 0032)
        from .settings import LedgerConfig

        return LedgerConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
