"""The edge's settings come from the registry: auth service, identity, rate limits, TLS."""

from __future__ import annotations

import pytest

from hand_auth.settings import AuthConfig
from hand_common.config import RateLimitConfig
from hand_common.env import ConfigError
from hand_common.settings_index import all_env_vars
from hand_ledger.settings import LedgerConfig
from hand_room.settings import RoomConfig
from hand_rules.settings import RulesConfig

ENV_VARS = all_env_vars()  # every service's declared variables (the collector)


def test_every_default_of_the_auth_service_parses() -> None:
    environ = {name: var.default for name, var in ENV_VARS.items()}
    assert AuthConfig.from_env(environ) == AuthConfig.from_env({})
    config = AuthConfig.from_env({})
    assert (config.server.port, config.session_ttl_s, config.refresh_ttl_s) == (50055, 900, 2592000)
    assert config.identity.dev_key_file == "var/hand-auth-dev.key" and not config.identity.signing_key


def test_rate_limits_are_read_once_for_every_service_and_the_rules_service_drops_the_peer_ones() -> None:
    env = {"HAND_RATE_PLAYER_PER_S": "5", "HAND_RATE_PEER_PER_S": "7", "HAND_STREAMS_PER_PEER": "3"}
    for config in (LedgerConfig.from_env(env), RoomConfig.from_env(env), AuthConfig.from_env(env)):
        assert (config.limits.player_per_s, config.limits.peer_per_s, config.limits.streams_per_peer) == (5, 7, 3)
    rules = RulesConfig.from_env(env).limits
    assert (rules.player_per_s, rules.peer_per_s, rules.streams_per_peer) == (5, 0, 0)
    assert RateLimitConfig.from_env({}) == RateLimitConfig()


@pytest.mark.parametrize("name, value", [("HAND_RATE_PEER_PER_S", "-1"), ("HAND_RATE_PLAYER_BURST", "0"),
                                         ("HAND_AUTH_SESSION_TTL_S", "1"), ("HAND_AUTH_PORT", "x")])
def test_bad_edge_values_stop_the_service_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        AuthConfig.from_env({name: value})


def test_without_any_key_in_production_the_auth_service_refuses_to_start() -> None:
    with pytest.raises(ConfigError, match="HAND_AUTH_SIGNING_KEY"):
        AuthConfig.from_env({"HAND_AUTH_DEV_KEY_FILE": "off"})
    assert AuthConfig.from_env({"HAND_AUTH_DEV_KEY_FILE": "off", "HAND_AUTH_SIGNING_KEY": "abc"})
