"""The room's domain (``hand_table``) is pure: importing it loads no protobuf and no gRPC
(its refusals carry codes only; the gRPC status is built at the service's edge), and the
wire adapter (``hand_wire``) loads no gRPC. import-linter checks the imports as written
(pyproject.toml); this checks what a fresh interpreter actually loads."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import sys
import {package}
print(",".join(sorted({{m.split(".")[0] for m in sys.modules}} & {{"grpc", "google", "hand", "aiokafka", "sqlalchemy"}})))
"""


def _loaded(package: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(package=package)], env=dict(os.environ),
                         capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    return set(filter(None, out.split(",")))


def test_the_room_domain_loads_no_wire_and_no_grpc() -> None:
    assert _loaded("hand_table") == set()


def test_the_wire_adapter_loads_protobuf_but_no_grpc_and_no_io() -> None:
    assert _loaded("hand_wire") == {"google", "hand"}


def test_a_room_refusal_is_codes_only() -> None:
    from hand_common.refusal import Refusal as EdgeRefusal
    from hand_table import RoomCode, RoomError

    err = RoomError(RoomCode.ROOM_FULL, "no free seat", seats=4)
    assert isinstance(err, EdgeRefusal)  # the edge's status map still knows it
    assert (err.code, err.detail, err.params) == ("ROOM_FULL", "no free seat", {"seats": 4})
