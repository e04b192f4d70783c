# Hand backend — every target does its own set-up (virtualenv, pinned
# packages, generated protobuf code). See README.md.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

PYTHON ?= python3
# grpc core's I/O on the completion queue's poller for every service this Makefile starts
# (read when grpc is imported; hand_common/grpc_core.py, decision 0044); yours wins
export GRPC_EXPERIMENTS ?= -event_engine_listener,-event_engine_for_all_other_endpoints
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROTOS := $(wildcard proto/hand/v1/*.proto)
GEN_STAMP := gen/.stamp
NODE_STAMP := node_modules/.stamp

.PHONY: help venv proto proto-release lint imports test test-fast bench-smoke research soak soak-bots soak-broker fuzz verify-deal run bench clean web chromium promtool test-web

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

venv: $(STAMP) ## create .venv with the pinned packages of pyproject.toml

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -c 'import tomllib;d=tomllib.load(open("pyproject.toml","rb"))["project"];print("\n".join(d["dependencies"]+d["optional-dependencies"]["dev"]))' > $(VENV)/requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check -r $(VENV)/requirements.txt
	site="$$($(PY) -c 'import sysconfig;print(sysconfig.get_paths()["purelib"])')"; \
	  printf '%s\n%s\n' "$(CURDIR)/services" "$(CURDIR)/gen" > "$$site/hand-backend.pth"
	touch $@

proto: $(GEN_STAMP) ## generate Python code from proto/ into gen/

$(GEN_STAMP): $(STAMP) $(PROTOS)
	rm -rf gen && mkdir -p gen
	$(PY) -m grpc_tools.protoc -Iproto --python_out=gen --pyi_out=gen --grpc_python_out=gen $(PROTOS)
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund --silent
	touch $@

# buf reads proto/buf.yaml (lint STANDARD + COMMENTS, breaking FILE). The
# breaking check compares proto/ with the released contract, a buf image
# committed in proto/release/ (BREAKING_AGAINST overrides it, e.g.
# make lint BREAKING_AGAINST='.git\#branch=main,subdir=proto').
RELEASE_IMAGE := proto/release/hand-v1.binpb
BREAKING_AGAINST ?= $(RELEASE_IMAGE)

lint: $(NODE_STAMP) ## buf lint, format and breaking (against the released image) on proto/
	npx --no-install buf lint proto
	npx --no-install buf format proto --diff --exit-code
	npx --no-install buf breaking proto --against '$(BREAKING_AGAINST)'

proto-release: $(NODE_STAMP) ## cut the released contract image (only at a release, after review)
	mkdir -p $(dir $(RELEASE_IMAGE))
	npx --no-install buf build proto -o $(RELEASE_IMAGE)

imports: $(STAMP) ## the layering of docs/architecture.md (import-linter contracts in pyproject.toml)
	$(VENV)/bin/lint-imports

# 3 workers on 2 cores: the suite waits on servers, brokers and browsers about half of its
# time (2 workers kept 0.87 of 2 cores busy); 3 ran it in 445 s against 591-606 s with 2.
test: $(GEN_STAMP) lint imports web chromium promtool ## the product's test suite (CI runs this); the slow suites: make soak-bots, make research
	$(PY) -m pytest -q -n 3 --dist worksteal -m 'not slow and not bench' --ignore=tests/research tests

test-fast: $(GEN_STAMP) promtool ## unit + property tests, without the slow ones, fewer random examples (tests/scale_support.py)
	HAND_TEST_FAST=1 $(PY) -m pytest -q -n 2 -m 'not slow and not bench' tests/unit tests/property

bench-smoke: $(GEN_STAMP) ## the benchmarks' whole-stack smoke runs (marked bench; out of make test for its time budget)
	$(PY) -m pytest -q -n 2 -m bench tests

research: $(GEN_STAMP) ## smoke tests of the bot-strength research (research/botlab; apart from make test, which keeps to the product)
	$(PY) -m pytest -q -n 2 tests/research

soak: $(GEN_STAMP) ## thousands of random legal rounds per preset (HAND_PROPERTY_ROUNDS, default 250)
	HAND_PROPERTY_ROUNDS=$${HAND_PROPERTY_ROUNDS:-250} $(PY) -m pytest -q -n 2 -p no:cacheprovider tests/property/test_random_games.py

soak-bots: $(GEN_STAMP) ## bots of every level play many whole rounds per preset (HAND_BOT_ROUNDS, default 100)
	HAND_BOT_ROUNDS=$${HAND_BOT_ROUNDS:-100} $(PY) -m pytest -q -n 2 -p no:cacheprovider tests/property/test_bot_games.py

soak-broker: $(GEN_STAMP) ## one hour of rooms at human pace on the embedded broker, first vs last ten minutes (HAND_SOAK_S, HAND_SOAK_ROOMS)
	$(PY) bench/soak_broker.py --duration $${HAND_SOAK_S:-3600} --rooms $${HAND_SOAK_ROOMS:-40}

fuzz: $(GEN_STAMP) ## garbage, mutated and oversized requests to every RPC (HAND_FUZZ_REQUESTS per RPC, default 5000; HAND_FUZZ_SEED)
	HAND_FUZZ_REQUESTS=$${HAND_FUZZ_REQUESTS:-5000} $(PY) -m pytest -q -s -p no:cacheprovider tests/integration/test_fuzz.py 2>&1 \
	  | grep -aE '^(fuzz |[A-Z][A-Za-z]+: |[0-9]+ (passed|failed)|FAILED|E )'

verify-deal: $(GEN_STAMP) ## verify a room's provably fair deals from its public record: make verify-deal ROOM=<id> [LEDGER=127.0.0.1:50053] (or EVENTS=<file>)
	$(PY) -m hand_verify $(if $(EVENTS),--events '$(EVENTS)','--ledger' '$(or $(LEDGER),127.0.0.1:50053)' '$(ROOM)')

run: $(GEN_STAMP) web ## run the whole backend locally, and the web app (Ctrl-C stops it)
	$(PY) -m hand_run

bench: $(GEN_STAMP) ## benchmarks; figures go to docs/benchmarks.md
	$(PY) bench/run_all.py

clean: ## remove generated files and the virtualenv
	rm -rf $(VENV) gen node_modules .pytest_cache .hypothesis web/node_modules web/dist web/src/gen

# --- web client (web/, docs/web-client.md) ---
WEB_STAMP := web/node_modules/.stamp

$(WEB_STAMP): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --silent
	touch $@

web: $(WEB_STAMP) ## build the web app into web/dist (TypeScript from proto/ with buf + local protoc-gen-es, esbuild; tsc checks types)
	cd web && node build.mjs && node_modules/.bin/tsc -p .

PROMTOOL := .tools/prometheus/usr/bin/promtool
promtool: $(PROMTOOL) ## Debian's promtool for the checks of deploy/prometheus, unpacked into .tools/ (no root, no service)
$(PROMTOOL):
	rm -rf .tools/deb && mkdir -p .tools/deb
	cd .tools/deb && { apt-get download -q prometheus || { apt-get update -q && apt-get download -q prometheus; }; }
	dpkg-deb -x .tools/deb/prometheus_*.deb .tools/prometheus && rm -rf .tools/deb
	test -x $@

CHROMIUM ?= /usr/bin/chromium
chromium: ## install Debian's chromium for the browser tests when it is missing
	@test -x $(CHROMIUM) || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

test-web: $(GEN_STAMP) web chromium ## the browser tests alone (real stack, headless chromium via playwright-core)
	$(PY) -m pytest -q tests/e2e
