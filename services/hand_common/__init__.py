"""Plumbing shared by every Hand service: configuration, logging, health checks.

Nothing here knows the rules of the game; the engine never imports this
package. Public surface:

- :mod:`hand_common.env` — environment variables (``EnvVar``: declared by the
  package that reads it) and their reader (``EnvReader``, ``load_or_exit``).
- :mod:`hand_common.config` — the settings every service shares (log, gRPC
  server, TLS, rate limits, identity) and the ``SERVICES`` table that deploy
  files are checked against; each service's own settings are in its package
  (``hand_rules.settings.RulesConfig``, …).
- :mod:`hand_common.settings_index` — the collector of every package's
  variables and settings (deploy checks, docs).
- :mod:`hand_common.logging` — ``configure_logging()`` and the
  ``bind_game()`` / ``game_context()`` helpers.
- ``python -m hand_common.healthcheck`` — a ``grpc.health.v1`` probe for
  container health checks.
"""
