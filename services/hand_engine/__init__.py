"""Hand (هاند) rules engine: pure, deterministic, no I/O.

State in, action in, new state and events out. See RULES.md and docs/engine.md.
"""
