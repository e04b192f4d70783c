"""Each package declares its own variables once; the collector finds them all.

docs/decisions/0032-configuration-per-service.md.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator

import pytest

from hand_common import env as env_module
from hand_common.env import ConfigError, EnvReader, EnvVar, declared, integer, read_settings, setting
from hand_common.settings_index import SETTINGS_MODULES, all_env_vars, all_loaders, settings_modules

OWNERS = {  # a variable's prefix -> the package that declares it (the shared ones aside)
    "HAND_RULES_": "hand_rules", "HAND_ROOM_": "hand_room", "HAND_MATCH_": "hand_room",
    "HAND_BOT_": "hand_bot", "HAND_LEDGER_": "hand_ledger", "HAND_WEB_": "hand_web",
    "HAND_KAFKA_": "hand_infra", "HAND_BROKER_": "hand_run", "HAND_RUN_": "hand_run",
}
SHARED = {"HAND_AUTH_PUBLIC_KEYS", "HAND_AUTH_DEV_KEY_FILE", "HAND_AUTH_ISSUER",  # every service verifies
          "HAND_RULES_ADDRESS",  # the room's client of the rules service
          "HAND_WEB_ADVERTISED_URL"}  # the room's owner address for browsers


@pytest.fixture(autouse=True)
def _forget_test_variables() -> Iterator[None]:
    yield
    for name in [name for name in env_module._DECLARED if name.startswith("HAND_TEST_")]:
        del env_module._DECLARED[name]


def _declaring_module(name: str) -> str:
    for module in settings_modules():
        if any(isinstance(value, EnvVar) and value.name == name for value in vars(module).values()):
            return module.__name__
    raise AssertionError(f"{name}: declared by no settings module")


def test_every_variable_is_declared_by_one_settings_module_of_its_own_package() -> None:
    for name in all_env_vars():
        module = _declaring_module(name)
        owner = next((pkg for prefix, pkg in OWNERS.items() if name.startswith(prefix)), None)
        if owner and name not in SHARED:
            assert module.startswith(owner + "."), (name, module)


def test_the_collector_finds_every_declared_variable() -> None:
    collected = all_env_vars()
    assert {name for name in env_module._DECLARED if not name.startswith("HAND_TEST_")} == set(collected)


def test_the_room_declares_the_variables_it_reads_of_other_services() -> None:
    assert _declaring_module("HAND_RULES_ADDRESS") == "hand_room.settings"
    assert _declaring_module("HAND_WEB_ADVERTISED_URL") == "hand_room.settings"
    assert _declaring_module("HAND_AUTH_SIGNING_KEY") == "hand_auth.settings"
    assert _declaring_module("HAND_AUTH_PUBLIC_KEYS") == "hand_common.config"


def test_every_settings_field_takes_its_default_from_its_variable() -> None:
    """One default per variable: a dataclass field read from a variable has no literal default
    of its own, it has the variable's parsed default."""
    fields = 0
    for module in settings_modules():
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                for f in dataclasses.fields(value):
                    var = f.metadata.get("env")
                    if var is not None and f.default is not dataclasses.MISSING:
                        assert f.default == var.value, (value.__name__, f.name)
                        fields += 1
    assert fields > 40


def test_settings_read_only_declared_variables() -> None:
    with pytest.raises(KeyError):
        EnvReader({}).raw("HAND_NOBODY_DECLARES_THIS")


def test_a_name_declared_twice_differently_is_an_error() -> None:
    port = declared("HAND_RULES_PORT")
    assert EnvVar(port.name, port.default, port.description) == port  # the same again: harmless
    with pytest.raises(ValueError, match="declared twice"):
        EnvVar(port.name, "1", port.description)


def test_a_declaration_whose_default_does_not_parse_is_caught() -> None:
    var = EnvVar("HAND_TEST_BAD_DEFAULT", "x", "a default that is no integer", integer(0, 9))
    with pytest.raises(ConfigError, match="HAND_TEST_BAD_DEFAULT"):
        var.value


def test_read_settings_reads_the_declared_fields_and_takes_the_others_as_given() -> None:
    count_var = EnvVar("HAND_TEST_COUNT", "3", "a test count", integer(0, 9))

    @dataclasses.dataclass(frozen=True)
    class Example:
        label: str
        count: int = setting(count_var)

    assert Example("a").count == 3
    env = EnvReader({"HAND_TEST_COUNT": "7"})
    assert read_settings(Example, env, label="b") == Example("b", 7) and not env.problems
    env = EnvReader({"HAND_TEST_COUNT": "70"})
    assert read_settings(Example, env, label="c") == Example("c", 3)
    assert env.problems == ["HAND_TEST_COUNT='70': expected an integer from 0 to 9"]


def test_the_collector_names_every_settings_module_and_each_builds_from_an_empty_environment() -> None:
    for name in SETTINGS_MODULES:
        importlib.import_module(name)
    assert len(all_loaders()) >= len(SETTINGS_MODULES) - 2  # metrics and tracing build nothing
    for load in all_loaders():
        assert load({}) is not None
