"""Loading a script of bench/ as a module, for the benchmarks' smoke tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load_bench(name: str, as_name: str | None = None) -> ModuleType:
    """``bench/<name>.py`` as a fresh module, registered in ``sys.modules`` under ``as_name``
    (default ``<name>_under_test``: dataclasses and pickling look their module up)."""
    spec = importlib.util.spec_from_file_location(as_name or f"{name}_under_test", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
