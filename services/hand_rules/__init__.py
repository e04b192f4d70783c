"""The stateless rules service: hand_engine over gRPC (``python -m hand_rules``).

- the engine ⇔ wire conversion is ``hand_wire``'s (the one adapter between types
  and bytes; refusals: :mod:`hand_common.status`, messages: :mod:`hand_common.rule_messages`);
- :mod:`hand_rules.service` — the RulesService handlers (decode, call, encode);
- :mod:`hand_rules.server` — ``RulesServer``: the grpc.aio server with health
  checking and reflection, started and stopped by ``__main__`` or ``hand_run``.
"""


def __getattr__(name: str):
    """The service's front door for ``hand_run`` (``RulesServer``), loaded on first use: the
    composition root imports ``hand_rules`` itself, never its modules, and importing any other
    module of the package does not load the server."""
    if name == "RulesServer":
        from .server import RulesServer

        return RulesServer
    if name == "RulesConfig":  # its settings (decision 0032)
        from .settings import RulesConfig

        return RulesConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
