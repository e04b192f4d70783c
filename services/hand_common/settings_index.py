"""The collector: every service's declared variables and settings, gathered in one place.

Each package declares its own variables (``hand_room.settings``, ``hand_infra.settings``, …;
``hand_common.config`` the shared ones) and lists what builds its settings from an
environment in ``LOADERS``. The deploy checks, the ``deploy/README.md`` table test and the
"every default parses" test read them all through here.

``hand_common`` is the bottom layer and must not depend on the services: the settings
modules are named here as text and imported only when the collector is called
(``importlib``), never at module level, so the layers contract of ``pyproject.toml``
holds and a service process imports only the settings it reads.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType, ModuleType
from typing import Any

from .env import EnvVar

__all__ = ["SETTINGS_MODULES", "all_env_vars", "all_loaders", "settings_modules"]

#: Every module that declares variables, shared ones first.
SETTINGS_MODULES = (
    "hand_common.config",
    "hand_common.metrics",
    "hand_common.tracing",
    "hand_infra.settings",
    "hand_infra.kafka_security",
    "hand_web.settings",
    "hand_rules.settings",
    "hand_room.settings",
    "hand_bot.settings",
    "hand_ledger.settings",
    "hand_auth.settings",
    "hand_run.settings",
)


def settings_modules() -> list[ModuleType]:
    """The settings modules, imported (importing one declares its variables)."""
    return [importlib.import_module(name) for name in SETTINGS_MODULES]


def all_env_vars() -> Mapping[str, EnvVar[Any]]:
    """Every declared variable by name: what deploy files may set and the docs must list
    (the variables the settings modules declare at module level)."""
    found = {value.name: value for module in settings_modules() for value in vars(module).values()
             if isinstance(value, EnvVar)}
    return MappingProxyType(dict(sorted(found.items())))


def all_loaders() -> list[Callable[[Mapping[str, str]], Any]]:
    """What builds each package's settings from an environment (``from_env`` and friends)."""
    return [loader for module in settings_modules() for loader in getattr(module, "LOADERS", ())]
