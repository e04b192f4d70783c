# One image for every Hand service; the command picks the service:
#   docker run hand-backend python -m hand_rules
# Dependencies are the pins of pyproject.toml ([project].dependencies);
# Python code is generated from proto/ at build time, as `make proto` does.

ARG PYTHON_IMAGE=python:3.11-slim

# --- runtime dependencies, in a virtualenv that the final stage copies ---
FROM ${PYTHON_IMAGE} AS deps
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml ./
RUN python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(p["dependencies"]))' > requirements.txt \
 && python -m venv /opt/venv \
 && /opt/venv/bin/pip install -r requirements.txt

# --- protobuf / gRPC code from proto/ (grpcio-tools is a build tool only) ---
FROM deps AS gen
RUN python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(d for d in p["optional-dependencies"]["dev"] if d.startswith("grpcio-tools")))' > tools.txt \
 && /opt/venv/bin/pip install -r tools.txt
COPY proto/ proto/
RUN mkdir -p /opt/gen \
 && protos="$(find proto -name '*.proto' | sort)" \
 && if [ -n "$protos" ]; then \
      /opt/venv/bin/python -m grpc_tools.protoc -Iproto --python_out=/opt/gen --pyi_out=/opt/gen --grpc_python_out=/opt/gen $protos; \
    fi

# --- the image that runs ---
FROM ${PYTHON_IMAGE}
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app/services:/app/gen \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HAND_RULES_HOST=0.0.0.0 \
    HAND_ROOM_HOST=0.0.0.0 \
    GRPC_EXPERIMENTS=-event_engine_listener,-event_engine_for_all_other_endpoints
RUN groupadd --system --gid 10001 hand \
 && useradd --system --uid 10001 --gid hand --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin hand
COPY --from=deps /opt/venv /opt/venv
COPY --from=gen /opt/gen /app/gen
COPY services/ /app/services/
# Byte-compile now: the root filesystem is read-only at run time (see deploy/k8s).
RUN python -m compileall -q /app/services /app/gen
WORKDIR /app
USER 10001:10001
EXPOSE 50051 50052
CMD ["python", "-m", "hand_rules"]
