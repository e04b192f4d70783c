#!/usr/bin/env bash
# Download (here, with PyPI) the wheels that bench/device_scaleout.sh installs on a
# machine without internet: CPython 3.12, manylinux x86_64, into .whl/ (git-ignored).
# The pinned runtime requirements of pyproject.toml plus grpcio-tools (for gen/),
# with their dependencies. Usage: bash bench/fetch_device_wheels.sh [DEST]
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-.whl}"
mkdir -p "$dest"
py="${PYTHON:-python3}"
reqs="$dest/requirements.txt"
"$py" - "$reqs" <<'PY'
import sys, tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
tools = [r for r in p["optional-dependencies"]["dev"] if r.startswith("grpcio-tools")]
open(sys.argv[1], "w").write("\n".join(p["dependencies"] + tools) + "\n")
PY
# PIP_CONSTRAINT= : a machine-wide constraints file must not pin for another Python
PIP_CONSTRAINT= PIP_FIND_LINKS= "$py" -m pip download --disable-pip-version-check -q \
  --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
  -d "$dest" -r "$reqs"
ls "$dest" | sed 's/^/  /'
du -sh "$dest"
