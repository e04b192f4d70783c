"""The stateless rules service: hand_engine over gRPC (``python -m hand_rules``).

- :mod:`hand_rules.convert` — the one adapter between engine and wire types;
- :mod:`hand_rules.errors` — RuleViolation → gRPC status with a RuleError detail;
- :mod:`hand_rules.messages` — the English and Arabic message catalogue;
- :mod:`hand_rules.service` — the RulesService handlers (decode, call, encode);
- :mod:`hand_rules.server` — ``RulesServer``: the grpc.aio server with health
  checking and reflection, started and stopped by ``__main__`` or ``hand_run``.
"""
