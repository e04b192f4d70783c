"""Each room instance has an address a client can reach (docs/clients.md, "Reaching the room's
owner"; deploy/README.md): a StatefulSet pod advertises its stable DNS name through the headless
Service, and each compose instance its own published port."""

from __future__ import annotations

from test_deploy_manifests import (  # tests/unit is on sys.path (rootdir-relative imports)
    SERVICE_MODULES, _compose, _compose_env, _containers, _hand_containers, _k8s_documents, _module_of,
)


def test_each_room_pod_advertises_its_own_stable_address() -> None:
    """Clients reach a room's owner (docs/clients.md): every room pod names itself by its pod's DNS
    name through the headless Service, on the gRPC port; compose gives each instance its own."""
    [(name, room)] = [(n, d) for n, d in _k8s_documents()
                      if any(_module_of(c.get("command")) == "hand_room" for c in _containers(d))]
    assert room["kind"] == "StatefulSet", name
    service = room["spec"]["serviceName"]
    [headless] = [d for _, d in _k8s_documents() if d["kind"] == "Service" and d["metadata"]["name"] == service]
    assert headless["spec"]["clusterIP"] == "None"
    [container] = _hand_containers(room)
    env = {var["name"]: var for var in container["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
    names = list(env)
    assert names.index("POD_NAME") < names.index("HAND_ROOM_ADVERTISED_ADDRESS"), "defined before use"
    port = SERVICE_MODULES["hand_room"].default_port
    assert env["HAND_ROOM_ADVERTISED_ADDRESS"]["value"] == f"$(POD_NAME).{service}.$(POD_NAMESPACE).svc:{port}"
    rooms = [s for s in _compose()["services"].values() if _module_of(s.get("command")) == "hand_room"]
    addresses = [_compose_env(s).get("HAND_ROOM_ADVERTISED_ADDRESS") for s in rooms]
    assert len(rooms) >= 2 and all(s.get("deploy", {}).get("replicas", 1) == 1 for s in rooms)
    assert None not in addresses and len(set(addresses)) == len(addresses), addresses
    for service_def, address in zip(rooms, addresses):
        published = [str(p) for p in service_def.get("ports", [])]
        assert any(p.startswith(f"{address}:") for p in published), (address, published)
