"""Deploy files are valid for their tools and agree with the code's configuration.

Offline: the Compose Specification schema comes vendored in check-jsonschema,
the Kubernetes schemas in kubernetes-validate (docs/decisions/0002).
"""

from __future__ import annotations

import copy
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

from hand_common.config import SERVICES
from hand_common.settings_index import all_env_vars

ENV_VARS = all_env_vars()  # every service's declared variables (the collector)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
K8S_DIR = ROOT / "deploy" / "k8s"
DOCKERFILE = ROOT / "Dockerfile"
DEPLOY_README = ROOT / "deploy" / "README.md"
KUBERNETES_VERSION = "1.37"
HELPER_MODULES = {"hand_common.healthcheck"}  # modules deploy files run besides the services
SERVICE_MODULES = {spec.module: spec for spec in SERVICES.values()}
ENV_NAME = re.compile(r"\bHAND_[A-Z0-9_]+\b")
#: Third-party images deploy files run beside the Hand image, by repository.
INFRA_IMAGES = {"apache/kafka": "broker", "postgres": "event store"}
PINNED_TAG = re.compile(r"^\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?$")  # 4.1.1, 15.18, 15.18-bookworm
#: Services that run as more than one replica in compose and Kubernetes.
REPLICATED_MODULES = ("hand_rules", "hand_room")


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


@cache
def _parsed_k8s_documents() -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(
        (f"{path.name}:{document['kind']}/{document['metadata']['name']}", document)
        for path in _k8s_files()
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8"))
        if document
    )


def _k8s_documents() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object of deploy/k8s, as a fresh copy (tests may change what they get)."""
    for name, document in _parsed_k8s_documents():
        yield name, copy.deepcopy(document)


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


def _image_parts(image: str) -> tuple[str, str]:
    """``("apache/kafka", "4.1.1")`` from ``apache/kafka:4.1.1``; no tag gives ``""``."""
    name, _, tag = image.rpartition(":")
    return (name, tag) if name and "/" not in tag else (image, "")


def _is_infra(image: str | None) -> bool:
    """True for the broker and database images (not the Hand image)."""
    return image is not None and _image_parts(image)[0] in INFRA_IMAGES


def _hand_containers(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in _containers(document) if not _is_infra(c.get("image"))]


def _infra_containers(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in _containers(document) if _is_infra(c.get("image"))]


def _is_infra_workload(document: dict[str, Any]) -> bool:
    return bool(_containers(document)) and not _hand_containers(document)


def _selects_infra(service: dict[str, Any]) -> bool:
    """True when a Service selects the pods of a broker or database workload."""
    selector = service["spec"].get("selector", {}).items()
    return any(
        selector <= document["spec"]["template"]["metadata"]["labels"].items()
        for _, document in _k8s_documents()
        if _is_infra_workload(document)
    )


def _stack_services() -> dict[str, dict[str, Any]]:
    """Compose services of the stack itself (not the observability profile's: their own test file)."""
    return {n: s for n, s in _compose()["services"].items() if "observability" not in s.get("profiles", ())}


def _hand_compose_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in _stack_services().items() if not _is_infra(s.get("image"))}


def _infra_compose_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in _stack_services().items() if _is_infra(s.get("image"))}


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
    service = next(s for s in document["services"].values() if "replicas" in s.get("deploy", {}))
    service["deploy"]["replica"] = service["deploy"].pop("replicas")
    assert any("replica" in error for error in _compose_errors(document))


@pytest.mark.parametrize(
    "name", ["config.yaml", "kafka.yaml", "postgres.yaml", "room-service.yaml", "rules-service.yaml",
             "ledger-service.yaml"]
)
def test_each_part_of_the_stack_has_a_kubernetes_manifest(name: str) -> None:
    assert K8S_DIR / name in _k8s_files()


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
    """Hand services only: the broker and database images have variables of their own."""
    for name, service in _hand_compose_services().items():
        unknown = set(_compose_env(service)) - set(ENV_VARS)
        assert not unknown, f"compose service {name}: unregistered {sorted(unknown)}"


def test_kubernetes_sets_only_registered_environment_variables() -> None:
    for name, document in _k8s_documents():
        for container in _containers(document):
            assert "envFrom" not in container, f"{name}: list variables explicitly"
        for container in _hand_containers(document):
            # The pod's own fields (downward API, e.g. POD_NAME) are read by Kubernetes to expand
            # $(POD_NAME) in the settings that follow, never by a service.
            unknown = {var["name"] for var in container.get("env", [])
                       if "fieldRef" not in var.get("valueFrom", {})} - set(ENV_VARS)
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


def test_the_deploy_readme_table_gives_each_variable_its_declared_default() -> None:
    """The table of "Environment variables" shows the default each service declares:
    ``value`` or ``empty`` (a note may follow; ``(empty: …)`` explains what empty means)."""
    text = DEPLOY_README.read_text(encoding="utf-8")
    section = text[text.index("## Environment variables"):]
    section = section[:section.index("\n## ", 1)]
    rows = re.findall(r"^\| `([A-Z0-9_]+)` \| ([^|]*) \|", section, re.M)
    assert {name for name, _ in rows} == set(ENV_VARS)
    for name, shown in rows:
        default = ENV_VARS[name].default
        expected = "empty" if not default else f"`{default}`"
        first = re.match(r"\(?(empty|`[^`]*`)", shown.strip())
        assert first and first.group(1) == expected, (name, shown, default)


def test_compose_ports_and_health_checks_use_the_configured_port() -> None:
    for name, service in _hand_compose_services().items():
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
        for container in _hand_containers(document):
            spec = _spec_for(_module_of(container.get("command")), name)
            port = spec.default_port
            env = {var["name"]: var.get("value") for var in container.get("env", [])}
            assert env.get(spec.port_var, str(port)) == str(port), name
            assert [p["containerPort"] for p in container["ports"] if p["name"] != "metrics"] == [port], name
            metrics = [p["containerPort"] for p in container["ports"] if p["name"] == "metrics"]
            assert metrics == [int(env[spec.port_var.replace("_PORT", "_METRICS_PORT")])], name
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                if probe in container:
                    assert container[probe]["grpc"]["port"] == port, f"{name} {probe}"
            assert "readinessProbe" in container and "livenessProbe" in container, name
            assert {"requests", "limits"} <= set(container["resources"]), name
        if document["kind"] == "Service" and not _selects_infra(document):
            ports = {p["port"] for p in document["spec"]["ports"]}
            assert ports <= {spec.default_port for spec in SERVICES.values()}, name


def test_deploy_commands_run_known_modules() -> None:
    commands: list[tuple[str, Any]] = []
    for name, service in _hand_compose_services().items():
        commands.append((f"compose {name}", service.get("command")))
        commands.append((f"compose {name} healthcheck", service["healthcheck"]["test"]))
    for name, document in _k8s_documents():
        commands.extend((name, container.get("command")) for container in _hand_containers(document))
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


@pytest.mark.parametrize("module", REPLICATED_MODULES)
def test_compose_runs_more_than_one_replica_of_the_rules_and_room_services(module: str) -> None:
    services = _compose()["services"]
    chosen = [s for s in services.values() if _module_of(s.get("command")) == module]
    assert sum(s.get("deploy", {}).get("replicas", 1) for s in chosen) >= 2


@pytest.mark.parametrize("module", REPLICATED_MODULES)
def test_kubernetes_runs_more_than_one_replica_of_the_rules_and_room_services(module: str) -> None:
    chosen = [
        document
        for _, document in _k8s_documents()
        if document["kind"] in ("Deployment", "StatefulSet")
        and any(_module_of(c.get("command")) == module for c in _containers(document))
    ]
    assert sum(document["spec"].get("replicas", 1) for document in chosen) >= 2


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
            if not _is_infra_workload(document):  # the broker and database run as their image's user
                assert str(pod_security["runAsUser"]) == uid, name


# --- the broker, the database and how services find each other ---------------


def _k8s_images() -> Iterator[tuple[str, str]]:
    for name, document in _k8s_documents():
        for container in _containers(document):
            yield name, container["image"]


def test_the_broker_and_database_images_are_pinned_and_the_same_in_compose_and_kubernetes() -> None:
    """A version, not ``latest`` or a bare major: what was reviewed is what runs."""
    compose = {_image_parts(s["image"]) for s in _infra_compose_services().values()}
    k8s = {_image_parts(image) for _, image in _k8s_images() if _is_infra(image)}
    assert {repo for repo, _ in compose} == set(INFRA_IMAGES)
    assert compose == k8s
    for repo, tag in compose:
        assert PINNED_TAG.match(tag), f"{repo}:{tag}"
        assert len([t for r, t in compose if r == repo]) == 1, f"{repo}: one version everywhere"


def test_the_broker_and_database_have_health_checks_and_resource_limits() -> None:
    for name, service in _infra_compose_services().items():
        assert service["healthcheck"]["test"], name
        assert service["deploy"]["resources"]["limits"]["memory"], name
        assert "volumes" in service, f"{name}: its data must outlive the container"
    for name, document in _k8s_documents():
        for container in _infra_containers(document):
            assert "readinessProbe" in container and "livenessProbe" in container, name
            assert {"requests", "limits"} <= set(container["resources"]), name
            assert document["kind"] == "StatefulSet", f"{name}: needs a stable volume"


#: Settings that name another service: (variable, what it must point at).
ADDRESS_VARS = {
    "KAFKA_BOOTSTRAP_SERVERS": "apache/kafka",
    "HAND_EVENTSTORE_URL": "postgres",
    "HAND_LEDGER_URL": "postgres",
    "HAND_RULES_ADDRESS": "hand_rules",
    "HAND_LEDGER_ROOM_ADDRESS": "hand_room",
}


def _addresses(value: str) -> list[tuple[str, int]]:
    """``(host, port)`` pairs of ``a:1,b:2``, ``dns:///a:1`` or ``postgresql://u:p@a:1/db``."""
    if "://" in value and not value.startswith("dns:"):
        netloc = value.split("://", 1)[1].split("/", 1)[0].rpartition("@")[2]
        host, _, port = netloc.rpartition(":")
        return [(host, int(port or 5432))]
    return [
        (host, int(port))
        for host, _, port in (item.strip().rpartition(":") for item in value.removeprefix("dns:///").split(","))
    ]


def _runs(service_or_container: dict[str, Any], target: str) -> bool:
    """Whether a compose service or container is ``target`` (an image repository or a module)."""
    if target in INFRA_IMAGES:
        return _image_parts(service_or_container.get("image", ""))[0] == target
    return _module_of(service_or_container.get("command")) == target


def test_compose_services_name_the_services_they_use_and_wait_for_them_to_be_healthy() -> None:
    services = _compose()["services"]
    for name, service in _hand_compose_services().items():
        depends = service.get("depends_on", {})
        assert isinstance(depends, dict), f"{name}: depends_on needs conditions"
        for var, target in ADDRESS_VARS.items():
            value = _compose_env(service).get(var, "")
            if not value or value.startswith("sqlite"):
                continue
            for host, port in _addresses(value):
                assert host in services and _runs(services[host], target), f"{name} {var}: {host}"
                assert depends.get(host, {}).get("condition") == "service_healthy", f"{name} -> {host}"
                if target in SERVICE_MODULES:
                    assert port == SERVICE_MODULES[target].default_port, f"{name} {var}"
        for other, condition in depends.items():
            if condition["condition"] == "service_healthy":
                assert "healthcheck" in services[other], f"{name} waits for {other}, which has no check"


def _config_maps() -> dict[str, dict[str, str]]:
    return {
        document["metadata"]["name"]: document.get("data", {})
        for _, document in _k8s_documents()
        if document["kind"] == "ConfigMap"
    }


def _k8s_value(var: dict[str, Any]) -> str | None:
    """The value of an ``env`` entry: literal or from a ConfigMap; None for a Secret."""
    ref = var.get("valueFrom", {}).get("configMapKeyRef")
    if ref is not None:
        return _config_maps()[ref["name"]][ref["key"]]
    return var.get("value")


def _k8s_workload_of_service(service_name: str) -> dict[str, Any] | None:
    services = {d["metadata"]["name"]: d for _, d in _k8s_documents() if d["kind"] == "Service"}
    if service_name not in services:
        return None
    selector = services[service_name]["spec"]["selector"].items()
    return next(
        (
            document
            for _, document in _k8s_documents()
            if _containers(document) and selector <= document["spec"]["template"]["metadata"]["labels"].items()
        ),
        None,
    )


def test_kubernetes_addresses_name_services_of_the_manifests() -> None:
    """``hand-rules``, ``hand-kafka-0.hand-kafka``: a Service here, selecting the right pods."""
    for name, document in _k8s_documents():
        for container in _hand_containers(document):
            for var in container.get("env", []):
                target = ADDRESS_VARS.get(var["name"])
                value = _k8s_value(var)
                if target is None or value is None:
                    continue
                for host, port in _addresses(value):
                    labels = host.split(".")
                    pod_of_statefulset = len(labels) > 1 and labels[0].startswith(labels[1] + "-")
                    service = labels[1] if pod_of_statefulset else labels[0]
                    workload = _k8s_workload_of_service(service)
                    assert workload is not None, f"{name} {var['name']}: no Service {service}"
                    chosen = [c for c in _containers(workload) if _runs(c, target)]
                    assert chosen, f"{name} {var['name']}: {service} does not run {target}"
                    ports = {p["containerPort"] for c in chosen for p in c["ports"]}
                    assert port in ports, f"{name} {var['name']}: port {port}"


def test_kubernetes_pods_turn_service_links_off() -> None:
    """Else a ClusterIP Service named hand-room sets HAND_ROOM_PORT=tcp://... in every pod."""
    for name, document in _k8s_documents():
        if _containers(document):
            assert document["spec"]["template"]["spec"].get("enableServiceLinks") is False, name


def test_kubernetes_config_map_references_resolve_to_registered_variables() -> None:
    maps = _config_maps()
    for name, document in _k8s_documents():
        hand = {id(c) for c in _hand_containers(document)}
        for container in _containers(document):
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("configMapKeyRef")
                if ref is None:
                    continue
                assert ref["key"] in maps.get(ref["name"], {}), f"{name}: {ref}"
                if id(container) in hand:
                    assert ref["key"] == var["name"], f"{name}: {var['name']} from key {ref['key']}"
                    unknown = set(maps[ref["name"]]) - set(ENV_VARS)
                    assert not unknown, f"ConfigMap {ref['name']}: unregistered {sorted(unknown)}"


def test_the_secrets_the_manifests_expect_are_documented() -> None:
    """Secrets are created by hand (not committed): the deploy README says how, key by key."""
    defined = {d["metadata"]["name"] for _, d in _k8s_documents() if d["kind"] == "Secret"}
    text = DEPLOY_README.read_text(encoding="utf-8")
    for name, document in _k8s_documents():
        for container in _containers(document):
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if ref is None or ref["name"] in defined:
                    continue
                assert f"`{ref['name']}`" in text and f"`{ref['key']}`" in text, f"{name}: {ref}"


def test_replicated_hand_deployments_have_a_disruption_budget() -> None:
    """Deployments and the room service's StatefulSet (the broker and the database are single pods)."""
    budgets = [d["spec"]["selector"]["matchLabels"].items() for _, d in _k8s_documents()
               if d["kind"] == "PodDisruptionBudget"]
    for name, document in _k8s_documents():
        if document["kind"] in ("Deployment", "StatefulSet") and document["spec"].get("replicas", 1) >= 2 \
                and _hand_containers(document):
            labels = document["spec"]["template"]["metadata"]["labels"].items()
            assert any(selector <= labels for selector in budgets), name



def test_readiness_probes_ask_for_the_service_and_liveness_for_the_process() -> None:
    """hand_common.readiness: the service's name is SERVING only while its partitions, broker and
    store answer; "" while the process serves. A readiness probe without the name would keep an
    instance that lost its broker in the Service."""
    wanted = {"room-service": "hand.v1.RoomService", "ledger-service": "hand.v1.LedgerService",
              "auth-service": "hand.v1.AuthService"}
    for stem, service in wanted.items():
        path = K8S_DIR / f"{stem}.yaml"
        workloads = [d for d in yaml.safe_load_all(path.read_text())
                     if d and d["kind"] in {"Deployment", "StatefulSet"}]
        assert workloads, stem
        for workload in workloads:
            container = workload["spec"]["template"]["spec"]["containers"][0]
            assert container["readinessProbe"]["grpc"].get("service") == service, stem
            assert "service" not in container["livenessProbe"]["grpc"], stem


def test_every_launcher_runs_grpc_core_with_the_services_experiments() -> None:
    """grpc reads GRPC_EXPERIMENTS when it is imported, so the launchers set it: the image
    (compose, Kubernetes), the Makefile (make run, test, bench), the benches' harnesses."""
    from hand_common.grpc_core import GRPC_EXPERIMENTS, child_env

    assert re.search(rf"^\s*GRPC_EXPERIMENTS={re.escape(GRPC_EXPERIMENTS)}\s*$",
                     DOCKERFILE.read_text(), re.M)
    assert re.search(rf"^export GRPC_EXPERIMENTS \?= {re.escape(GRPC_EXPERIMENTS)}$",
                     (ROOT / "Makefile").read_text(), re.M)
    assert child_env({"A": "1"}) == {"A": "1", "GRPC_EXPERIMENTS": GRPC_EXPERIMENTS}
    assert child_env({"GRPC_EXPERIMENTS": ""})["GRPC_EXPERIMENTS"] == ""  # an operator's own wins
