"""The stateless rules service: hand_engine over gRPC (``python -m hand_rules``).

- :mod:`hand_rules.convert` — the one adapter between engine and wire types
  (refusals: :mod:`hand_common.status`, messages: :mod:`hand_common.rule_messages`);
- :mod:`hand_rules.service` — the RulesService handlers (decode, call, encode);
- :mod:`hand_rules.server` — ``RulesServer``: the grpc.aio server with health
  checking and reflection, started and stopped by ``__main__`` or ``hand_run``.
"""
