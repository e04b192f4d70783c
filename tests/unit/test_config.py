"""Settings come only from environment variables, with defaults and clear errors."""

from __future__ import annotations

import dataclasses

import pytest

from hand_common.config import SERVICES, GrpcServerConfig, LogConfig
from hand_common.env import ConfigError, load_or_exit
from hand_common.settings_index import all_env_vars, all_loaders
from hand_rules.settings import RulesConfig

ENV_VARS = all_env_vars()  # every service's declared variables (the collector)


def test_an_empty_environment_gives_the_documented_defaults() -> None:
    config = RulesConfig.from_env({})
    assert config.server.host == "127.0.0.1"
    assert config.server.port == 50051
    assert config.server.max_message_bytes == 1024 * 1024
    assert config.server.workers == 4
    assert config.server.shutdown_grace_s == 5.0
    assert config.log == LogConfig(format="auto", level="info")
    assert config.server.address == "127.0.0.1:50051"


def test_every_registered_default_parses() -> None:
    """The declared defaults are themselves valid values: every service's settings (and the
    shared and infrastructure ones) built from an empty environment equal those built from
    an environment that spells every default out."""
    environ = {name: var.default for name, var in ENV_VARS.items()}
    assert RulesConfig.from_env(environ) == RulesConfig.from_env({})
    loaders = all_loaders()
    built = {getattr(load, "__qualname__", repr(load)) for load in loaders}
    assert {"RulesConfig.from_env", "RoomConfig.from_env", "BotConfig.from_env", "LedgerConfig.from_env",
            "AuthConfig.from_env", "WebConfig.from_env", "EmbeddedBrokerConfig.from_env",
            "kafka_settings"} <= built, built
    for load in loaders:
        assert load(environ) == load({}), load


def test_every_variable_is_described_and_prefixed() -> None:
    for name, var in ENV_VARS.items():
        assert (name.startswith("HAND_") or name == "KAFKA_BOOTSTRAP_SERVERS") and name.isupper(), name
        assert var.description.strip(), name


def test_values_from_the_environment_are_used() -> None:
    config = RulesConfig.from_env(
        {
            "HAND_RULES_HOST": "0.0.0.0",
            "HAND_RULES_PORT": "0",
            "HAND_LOG_FORMAT": "JSON",
            "HAND_LOG_LEVEL": "Debug",
            "HAND_GRPC_MAX_MESSAGE_BYTES": "4096",
            "HAND_GRPC_WORKERS": "8",
            "HAND_SHUTDOWN_GRACE_S": "2.5",
        }
    )
    assert config.server == GrpcServerConfig(
        host="0.0.0.0", port=0, max_message_bytes=4096, workers=8, max_pending_calls=25, max_in_flight=0,
        shutdown_grace_s=2.5
    )
    assert config.log == LogConfig(format="json", level="debug")


def test_a_blank_value_counts_as_unset() -> None:
    assert RulesConfig.from_env({"HAND_RULES_PORT": "  ", "HAND_LOG_LEVEL": ""}) == RulesConfig.from_env({})


def test_unrelated_variables_are_ignored() -> None:
    assert RulesConfig.from_env({"PATH": "/bin", "HAND_UNKNOWN": "x"}) == RulesConfig.from_env({})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HAND_RULES_PORT", "http"),
        ("HAND_RULES_PORT", "-1"),
        ("HAND_RULES_PORT", "65536"),
        ("HAND_RULES_PORT", "50051.0"),
        ("HAND_RULES_HOST", "local host"),
        ("HAND_LOG_FORMAT", "xml"),
        ("HAND_LOG_LEVEL", "verbose"),
        ("HAND_GRPC_MAX_MESSAGE_BYTES", "1MiB"),
        ("HAND_GRPC_MAX_MESSAGE_BYTES", "10"),
        ("HAND_GRPC_MAX_MESSAGE_BYTES", str(2**31)),
        ("HAND_GRPC_WORKERS", "0"),
        ("HAND_SHUTDOWN_GRACE_S", "soon"),
        ("HAND_SHUTDOWN_GRACE_S", "-1"),
        ("HAND_SHUTDOWN_GRACE_S", "nan"),
        ("HAND_SHUTDOWN_GRACE_S", "inf"),
    ],
)
def test_an_invalid_value_is_a_startup_error_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        RulesConfig.from_env({name: value})
    assert name in str(raised.value)
    assert "expected" in str(raised.value)


def test_every_invalid_variable_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as raised:
        RulesConfig.from_env({"HAND_RULES_PORT": "x", "HAND_LOG_LEVEL": "loud"})
    assert "HAND_RULES_PORT='x'" in str(raised.value)
    assert "HAND_LOG_LEVEL='loud'" in str(raised.value)


def test_log_config_reads_only_the_logging_variables() -> None:
    assert LogConfig.from_env({"HAND_RULES_PORT": "x", "HAND_LOG_FORMAT": "console"}) == LogConfig(
        format="console", level="info"
    )


def test_configs_are_frozen() -> None:
    config = RulesConfig.from_env({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.server.port = 1  # type: ignore[misc]


def test_an_ipv6_host_is_bracketed_in_the_address() -> None:
    assert RulesConfig.from_env({"HAND_RULES_HOST": "::"}).server.address == "[::]:50051"


def test_channel_options_carry_the_message_limit() -> None:
    options = dict(RulesConfig.from_env({"HAND_GRPC_MAX_MESSAGE_BYTES": "2048"}).server.channel_options())
    assert options == {"grpc.max_receive_message_length": 2048, "grpc.max_send_message_length": 2048}


def test_each_service_names_a_registered_port_variable() -> None:
    for spec in SERVICES.values():
        assert spec.port_var in ENV_VARS
        assert spec.module.startswith("hand_")
    assert SERVICES["rules"].default_port == 50051


def test_load_or_exit_turns_a_config_error_into_exit_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        load_or_exit(lambda: RulesConfig.from_env({"HAND_RULES_PORT": "x"}))
    assert raised.value.code == 2
    assert "HAND_RULES_PORT" in capsys.readouterr().err


def test_load_or_exit_returns_the_config_when_valid() -> None:
    assert load_or_exit(lambda: RulesConfig.from_env({})) == RulesConfig.from_env({})


def test_a_pass_linger_past_half_the_store_timeout_is_a_startup_error() -> None:
    """The store timeout counts from a command's arrival, linger included: a linger near it
    would time every pass out (HAND_ROOM_PASS_LINGER_MS, docs/decisions/0045)."""
    from hand_room.settings import RoomConfig

    assert RoomConfig.from_env({}).pass_linger_ms == 10
    assert RoomConfig.from_env({"HAND_ROOM_PASS_LINGER_MS": "500"}).pass_linger_ms == 500  # half of 1 s
    with pytest.raises(ConfigError) as raised:
        RoomConfig.from_env({"HAND_ROOM_PASS_LINGER_MS": "300", "HAND_ROOM_STORE_TIMEOUT_S": "0.5"})
    assert "HAND_ROOM_PASS_LINGER_MS='300'" in str(raised.value)
    assert "HAND_ROOM_STORE_TIMEOUT_S" in str(raised.value)
