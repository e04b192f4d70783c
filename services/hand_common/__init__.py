"""Plumbing shared by every Hand service: configuration, logging, health checks.

Nothing here knows the rules of the game; the engine never imports this
package. Public surface:

- :mod:`hand_common.config` — typed settings read only from environment
  variables (``RulesConfig.from_env()``), the ``ENV_VARS`` registry and the
  ``SERVICES`` table that deploy files are checked against.
- :mod:`hand_common.logging` — ``configure_logging()`` and the
  ``bind_game()`` / ``game_context()`` helpers.
- ``python -m hand_common.healthcheck`` — a ``grpc.health.v1`` probe for
  container health checks.
"""
