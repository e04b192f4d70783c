"""Deploy files are valid for their tools and agree with the code's configuration.

Offline: the Compose Specification schema comes vendored in check-jsonschema,
the Kubernetes schemas in kubernetes-validate (docs/decisions/0002).
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from hand_common.config import ENV_VARS, SERVICES

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
K8S_DIR = ROOT / "deploy" / "k8s"
DOCKERFILE = ROOT / "Dockerfile"
DEPLOY_README = ROOT / "deploy" / "README.md"
KUBERNETES_VERSION = "1.37"
HELPER_MODULES = {"hand_common.healthcheck"}  # modules deploy files run besides the services
SERVICE_MODULES = {spec.module: spec for spec in SERVICES.values()}
ENV_NAME = re.compile(r"\bHAND_[A-Z0-9_]+\b")


# --- loading -----------------------------------------------------------------


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


@cache
def _compose_schema() -> dict[str, Any]:
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    return json.loads(vendor.joinpath("compose-spec.json").read_text(encoding="utf-8"))


def _compose_errors(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(_compose_schema())
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def _k8s_files() -> list[Path]:
    return sorted(K8S_DIR.glob("*.yaml"))


def _k8s_documents() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in _k8s_files():
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document:
                yield f"{path.name}:{document['kind']}/{document['metadata']['name']}", document


def _k8s_error(document: dict[str, Any]) -> str | None:
    try:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        return f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
    return None


def _containers(document: dict[str, Any]) -> list[dict[str, Any]]:
    if document["kind"] not in {"Deployment", "StatefulSet", "DaemonSet", "Job"}:
        return []
    spec = document["spec"]["template"]["spec"]
    return [*spec.get("initContainers", []), *spec["containers"]]


def _module_of(command: list[str] | str | None) -> str | None:
    """The module of a ``python -m MODULE ...`` command, else None."""
    if command is None:
        return None
    words = command.split() if isinstance(command, str) else [str(word) for word in command]
    if "-m" in words and words.index("-m") + 1 < len(words):
        return words[words.index("-m") + 1]
    return None


def _compose_env(service: dict[str, Any]) -> dict[str, str]:
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in environment)
    return {str(key): str(value) for key, value in environment.items()}


def _container_port(entry: str | int | dict[str, Any]) -> int:
    """The container side of a compose ``ports`` entry (short or long syntax)."""
    if isinstance(entry, dict):
        return int(entry["target"])
    return int(str(entry).split("/")[0].rsplit(":", 1)[-1])


def _spec_for(module: str | None, where: str) -> Any:
    assert module in SERVICE_MODULES, f"{where}: runs {module!r}, not a service in SERVICES"
    return SERVICE_MODULES[module]


# --- schemas -----------------------------------------------------------------


def test_docker_compose_matches_the_compose_specification() -> None:
    assert _compose_errors(_compose()) == []


def test_the_compose_schema_check_catches_a_misspelt_key() -> None:
    """Guards the guard: a typo in a service must fail the schema check."""
    document = _compose()
    service = next(iter(document["services"].values()))
    service["deploy"]["replica"] = service["deploy"].pop("replicas")
    assert any("replica" in error for error in _compose_errors(document))


def test_the_rules_service_has_a_kubernetes_manifest() -> None:
    assert K8S_DIR / "rules-service.yaml" in _k8s_files()


@pytest.mark.parametrize("name_and_document", list(_k8s_documents()), ids=lambda item: item[0])
def test_each_kubernetes_object_matches_the_strict_kubernetes_schema(
    name_and_document: tuple[str, dict[str, Any]],
) -> None:
    assert _k8s_error(name_and_document[1]) is None


def test_the_kubernetes_schema_check_catches_a_misspelt_field() -> None:
    """Guards the guard: strict schemas reject unknown fields."""
    name, deployment = next(item for item in _k8s_documents() if item[1]["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")
    assert _k8s_error(deployment) is not None, name


# --- agreement with hand_common.config ---------------------------------------


def test_compose_sets_only_registered_environment_variables() -> None:
    for name, service in _compose()["services"].items():
        unknown = set(_compose_env(service)) - set(ENV_VARS)
        assert not unknown, f"compose service {name}: unregistered {sorted(unknown)}"


def test_kubernetes_sets_only_registered_environment_variables() -> None:
    for name, document in _k8s_documents():
        for container in _containers(document):
            assert "envFrom" not in container, f"{name}: list variables explicitly"
            unknown = {var["name"] for var in container.get("env", [])} - set(ENV_VARS)
            assert not unknown, f"{name}/{container['name']}: unregistered {sorted(unknown)}"


@pytest.mark.parametrize(
    "path", [COMPOSE, DOCKERFILE, DEPLOY_README, *_k8s_files()], ids=lambda path: path.name
)
def test_every_hand_variable_mentioned_in_a_deploy_file_is_registered(path: Path) -> None:
    """Comments and prose included: a stale or misspelt name anywhere is a bug."""
    mentioned = set(ENV_NAME.findall(path.read_text(encoding="utf-8")))
    assert mentioned <= set(ENV_VARS), sorted(mentioned - set(ENV_VARS))


def test_the_deploy_readme_documents_every_registered_variable() -> None:
    text = DEPLOY_README.read_text(encoding="utf-8")
    missing = [name for name in ENV_VARS if f"`{name}`" not in text]
    assert not missing


def test_compose_ports_and_health_checks_use_the_configured_port() -> None:
    for name, service in _compose()["services"].items():
        spec = _spec_for(_module_of(service.get("command")), f"compose service {name}")
        port = spec.default_port
        assert _compose_env(service).get(spec.port_var, str(port)) == str(port), name
        for entry in service.get("ports", []):
            assert _container_port(entry) == port, f"{name}: {entry!r}"
        for entry in service.get("expose", []):
            assert int(str(entry).split("/")[0]) == port, f"{name}: {entry!r}"
        test = service["healthcheck"]["test"]
        assert _module_of(test) in HELPER_MODULES, f"{name}: {test!r}"
        assert test[test.index("--port") + 1] == str(port), f"{name}: {test!r}"


def test_kubernetes_ports_and_probes_use_the_configured_port() -> None:
    for name, document in _k8s_documents():
        for container in _containers(document):
            spec = _spec_for(_module_of(container.get("command")), name)
            port = spec.default_port
            env = {var["name"]: var.get("value") for var in container.get("env", [])}
            assert env.get(spec.port_var, str(port)) == str(port), name
            assert [p["containerPort"] for p in container["ports"]] == [port], name
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                if probe in container:
                    assert container[probe]["grpc"]["port"] == port, f"{name} {probe}"
            assert "readinessProbe" in container and "livenessProbe" in container, name
            assert {"requests", "limits"} <= set(container["resources"]), name
        if document["kind"] == "Service":
            ports = {p["port"] for p in document["spec"]["ports"]}
            assert ports <= {spec.default_port for spec in SERVICES.values()}, name


def test_deploy_commands_run_known_modules() -> None:
    commands: list[tuple[str, Any]] = []
    for name, service in _compose()["services"].items():
        commands.append((f"compose {name}", service.get("command")))
        commands.append((f"compose {name} healthcheck", service["healthcheck"]["test"]))
    for name, document in _k8s_documents():
        commands.extend((name, container.get("command")) for container in _containers(document))
    cmd = re.search(r"^CMD\s+(\[.*\])\s*$", DOCKERFILE.read_text(encoding="utf-8"), re.MULTILINE)
    assert cmd is not None, "Dockerfile has no exec-form CMD"
    commands.append(("Dockerfile CMD", json.loads(cmd.group(1))))
    for where, command in commands:
        module = _module_of(command)
        assert module in SERVICE_MODULES or module in HELPER_MODULES, f"{where}: {command!r}"
    for module in HELPER_MODULES:
        assert importlib.util.find_spec(module) is not None, module


def test_every_service_is_deployed_by_compose_and_kubernetes() -> None:
    compose_modules = {_module_of(s.get("command")) for s in _compose()["services"].values()}
    k8s_modules = {
        _module_of(container.get("command"))
        for _, document in _k8s_documents()
        for container in _containers(document)
    }
    assert set(SERVICE_MODULES) <= compose_modules
    assert set(SERVICE_MODULES) <= k8s_modules


def test_compose_runs_more_than_one_rules_replica() -> None:
    services = _compose()["services"]
    rules = [s for s in services.values() if _module_of(s.get("command")) == "hand_rules"]
    assert sum(s.get("deploy", {}).get("replicas", 1) for s in rules) >= 2


def test_the_image_is_python_3_11_slim_and_runs_as_the_kubernetes_user() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim$", text, re.MULTILINE)
    users = re.findall(r"^USER\s+(\S+)", text, re.MULTILINE)
    assert users, "the image must not run as root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0, "a numeric non-root USER lets runAsNonRoot verify it"
    for name, document in _k8s_documents():
        if _containers(document):
            pod_security = document["spec"]["template"]["spec"]["securityContext"]
            assert pod_security["runAsNonRoot"] is True, name
            assert str(pod_security["runAsUser"]) == uid, name
