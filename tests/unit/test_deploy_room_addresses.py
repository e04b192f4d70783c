"""Each room instance has an address a client can reach (docs/clients.md, "Reaching the room's
owner"; deploy/README.md): a StatefulSet pod advertises its stable DNS name through the headless
Service, and each compose instance its own published port."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hand_common.config import SERVICES

ROOT = Path(__file__).resolve().parents[2]
ROOM_PORT = SERVICES["room"].default_port


def _runs_room(service_or_pod: dict[str, Any]) -> bool:
    command = service_or_pod.get("command") or []
    return "-m" in command and command[command.index("-m") + 1] == "hand_room"


def _k8s() -> list[dict[str, Any]]:
    return [d for p in sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))
            for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d]


def test_each_room_pod_advertises_its_stable_dns_name() -> None:
    documents = _k8s()
    [room] = [d for d in documents if d["kind"] in ("Deployment", "StatefulSet")
              and any(_runs_room(c) for c in d["spec"]["template"]["spec"]["containers"])]
    assert room["kind"] == "StatefulSet", "a stable name per pod"
    service = room["spec"]["serviceName"]
    [headless] = [d for d in documents if d["kind"] == "Service" and d["metadata"]["name"] == service]
    assert headless["spec"]["clusterIP"] == "None"
    [container] = room["spec"]["template"]["spec"]["containers"]
    env = {var["name"]: var for var in container["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
    names = list(env)
    assert names.index("POD_NAME") < names.index("HAND_ROOM_ADVERTISED_ADDRESS"), "defined before use"
    assert env["HAND_ROOM_ADVERTISED_ADDRESS"]["value"] == f"$(POD_NAME).{service}.$(POD_NAMESPACE).svc:{ROOM_PORT}"


def test_each_compose_room_instance_advertises_its_own_published_port() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))["services"]
    rooms = [s for s in services.values() if _runs_room(s)]
    assert len(rooms) >= 2 and all(s.get("deploy", {}).get("replicas", 1) == 1 for s in rooms)
    addresses = [s["environment"].get("HAND_ROOM_ADVERTISED_ADDRESS") for s in rooms]
    assert None not in addresses and len(set(addresses)) == len(addresses), addresses
    for room, address in zip(rooms, addresses):
        assert [str(p) for p in room["ports"]] == [f"{address}:{ROOM_PORT}"], (address, room["ports"])
