"""The released contract image (proto/release/hand-v1.binpb) guards the wire:
``buf breaking`` against it fails on a break and passes on an addition."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IMAGE = ROOT / "proto" / "release" / "hand-v1.binpb"
BUF = ROOT / "node_modules" / ".bin" / "buf"


def breaking(proto: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BUF), "breaking", str(proto), "--against", str(IMAGE)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def proto_copy(tmp_path: Path) -> Path:
    if not BUF.exists():
        pytest.fail("node_modules/.bin/buf missing: make test installs it (npm install)")
    dest = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", dest, ignore=shutil.ignore_patterns("release"))
    return dest


def test_the_released_image_is_committed_and_the_tree_is_compatible_with_it(proto_copy: Path) -> None:
    assert IMAGE.exists() and IMAGE.stat().st_size > 10_000
    result = breaking(proto_copy)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_renumbered_field_fails_the_breaking_check(proto_copy: Path) -> None:
    f = proto_copy / "hand" / "v1" / "room_events.proto"
    text = f.read_text()
    assert "  uint64 seq = 2;" in text
    f.write_text(text.replace("  uint64 seq = 2;", "  uint64 seq = 9;"))
    result = breaking(proto_copy)
    assert result.returncode != 0 and "seq" in result.stdout + result.stderr


def test_a_new_field_is_compatible(proto_copy: Path) -> None:
    f = proto_copy / "hand" / "v1" / "room_events.proto"
    text = f.read_text()
    f.write_text(text.replace("  google.protobuf.Timestamp at = 3;",
                              "  google.protobuf.Timestamp at = 3;\n  // New.\n  string extra = 4;"))
    assert breaking(proto_copy).returncode == 0
