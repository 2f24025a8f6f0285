# Tabletop task runner (GNU make). `make test` and `make serve` work on a fresh clone.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Written after a successful install; newer than pyproject.toml means up to date.
# SERVE_STAMP: the project with its runtime dependencies and the code generators
# of `make proto` (the `proto` extra), all `make serve` needs; INSTALL_STAMP:
# with the dev tools too (the `dev` extra), into the same venv.
SERVE_STAMP := $(VENV)/.tabletop-serve-installed
INSTALL_STAMP := $(VENV)/.tabletop-installed

PROTO_ROOT := protos
PROTOS := $(sort $(wildcard $(PROTO_ROOT)/tabletop/v1/*.proto))
GEN := infra/grpc_gen
# Every file protoc writes, so a missing or stale one triggers a regeneration.
GEN_FILES := $(GEN)/tabletop/__init__.py $(GEN)/tabletop/v1/__init__.py \
	$(foreach p,$(PROTOS:$(PROTO_ROOT)/%.proto=$(GEN)/%), \
		$(p)_pb2.py $(p)_pb2.pyi $(p)_pb2_grpc.py $(p)_pb2_grpc.pyi)

# The Node.js client of tests/e2e/test_node_client.py; its modules are installed
# by `npm ci` whenever its package.json or lock file is newer than this stamp.
NODE_DIR := tests/node
NODE_STAMP := $(NODE_DIR)/node_modules/.tabletop-installed

# The Node.js load generator of bench/moves.py, installed the same way.
BENCH_NODE_DIR := bench/node
BENCH_NODE_STAMP := $(BENCH_NODE_DIR)/node_modules/.tabletop-installed

# The web page and the Connect client of the tests (infra/web): TypeScript
# generated from the protos by protoc-gen-es, bundled by esbuild into
# infra/web/dist (served at / on the HTTP port) and infra/web/dist-node.
WEB_DIR := infra/web
WEB_STAMP := $(WEB_DIR)/node_modules/.tabletop-installed
WEB_GEN := $(WEB_DIR)/src/gen/tabletop/v1/game_service_pb.ts
WEB_SOURCES := $(shell find $(WEB_DIR)/src -path $(WEB_DIR)/src/gen -prune -o -type f -print 2>/dev/null) \
	$(wildcard tests/web/*.ts) $(WEB_DIR)/build.mjs
WEB_DIST := $(WEB_DIR)/dist/index.html
SITE_PACKAGES = $(shell $(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# Written by .ci/ensure-postgres: POSTGRES_HOST, POSTGRES_PORT, ... for the tests.
PG_ENV := .ci/.pg.env

# Extra arguments: `make serve ARGS="--listen 127.0.0.1:50052"`, `make test PYTEST_ARGS="-k qwirkle"`.
ARGS ?=
PYTEST_ARGS ?=

.PHONY: help venv install proto web tools lint test serve fmt clean distclean pg-stop breaking \
	bench bench-rules bench-length bench-fanout bench-moves bench-rpc bench-convert bench-http \
	bench-my-games soak

help:
	@echo "make install   create $(VENV) and install the project with its dev tools"
	@echo "make proto     regenerate $(GEN) from $(PROTO_ROOT) when a .proto changed"
	@echo "make web       build the web page (needs Node.js and npm) into $(WEB_DIR)/dist"
	@echo "make lint      ruff, ruff format --check, mypy, buf lint/format, lint-imports"
	@echo "make test      install, proto, lint, ensure PostgreSQL, then the whole test suite"
	@echo "make serve     run the server on the embedded SQLite database (ARGS=...)"
	@echo "make soak         long crash, contention and fuzz runs that print figures"
	@echo "make bench        every benchmark below, one after another"
	@echo "make bench-rules  random complete games per second per game type (BENCH_ARGS=...)"
	@echo "make bench-length load times of games of 10 to 10,000 events on PostgreSQL"
	@echo "make bench-fanout how fast moves reach 1,000 spectators of a real server"
	@echo "make bench-moves  moves/s, latency and server CPU per move at 1, 8, 64 clients, beside pgbench"
	@echo "make bench-http   server CPU per call over gRPC, Connect and gRPC-Web"
	@echo "make bench-rpc    server CPU per bare gRPC call: the RPC layer's floor"
	@echo "make bench-convert CPU per view and per event turned into messages, per game"
	@echo "make bench-my-games ListMyGames for a player with 1,000 games"
	@echo "make fmt       format Python and protos in place"
	@echo "make breaking  buf breaking against AGAINST (default: the main branch)"
	@echo "make pg-stop   stop the private PostgreSQL started by .ci/ensure-postgres"
	@echo "make clean     remove generated code and caches (distclean: the venv too)"

venv install: $(INSTALL_STAMP)

$(SERVE_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[proto]'
	@touch $@

$(INSTALL_STAMP): pyproject.toml $(SERVE_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	npm ci --prefix $(NODE_DIR) --no-audit --no-fund --ignore-scripts
	@touch $@

$(BENCH_NODE_STAMP): $(BENCH_NODE_DIR)/package.json $(BENCH_NODE_DIR)/package-lock.json
	npm ci --prefix $(BENCH_NODE_DIR) --no-audit --no-fund --ignore-scripts
	@touch $@

proto: $(GEN_FILES)

$(WEB_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	npm ci --prefix $(WEB_DIR) --no-audit --no-fund --ignore-scripts
	@touch $@

# google/rpc/error_details.proto (ErrorInfo) comes with googleapis-common-protos,
# google/protobuf/* with grpcio-tools.
$(WEB_GEN): $(PROTOS) $(WEB_STAMP) $(SERVE_STAMP)
	rm -rf $(WEB_DIR)/src/gen
	mkdir -p $(WEB_DIR)/src/gen
	$(BIN)/python -m grpc_tools.protoc -I $(PROTO_ROOT) -I $(SITE_PACKAGES) \
		-I $(SITE_PACKAGES)/grpc_tools/_proto \
		--plugin=protoc-gen-es=$(WEB_DIR)/node_modules/.bin/protoc-gen-es \
		--es_out=$(WEB_DIR)/src/gen --es_opt=target=ts \
		$(PROTOS) google/rpc/error_details.proto
	touch $@

$(WEB_DIST): $(WEB_GEN) $(WEB_SOURCES)
	npm run --prefix $(WEB_DIR) --silent check
	$(WEB_DIR)/node_modules/.bin/tsc -p tests/web/tsconfig.json --noEmit
	npm run --prefix $(WEB_DIR) --silent build

web: $(WEB_DIST)

# One protoc run writes all outputs (grouped target). The whole tree is rebuilt so
# code generated from a deleted .proto cannot linger; the generator version is a
# prerequisite too, through the serve stamp.
$(GEN_FILES) &: $(PROTOS) $(SERVE_STAMP)
	rm -rf $(GEN)/tabletop
	mkdir -p $(GEN)
	$(BIN)/python -m grpc_tools.protoc -I $(PROTO_ROOT) \
		--plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
		--python_out=$(GEN) --pyi_out=$(GEN) \
		--grpc_python_out=$(GEN) --mypy_grpc_out=quiet:$(GEN) \
		$(PROTOS)
	touch $(GEN)/tabletop/__init__.py $(GEN)/tabletop/v1/__init__.py

lint: $(INSTALL_STAMP) $(GEN_FILES)
	@status=0; \
	run() { echo "+ $$*"; "$$@" || status=1; }; \
	run $(BIN)/ruff check .; \
	run $(BIN)/ruff format --check .; \
	run $(BIN)/mypy; \
	run $(BIN)/buf lint $(PROTO_ROOT); \
	run $(BIN)/buf format -d --exit-code $(PROTO_ROOT); \
	run $(BIN)/lint-imports; \
	exit $$status

# Node.js, npm and Chromium first (.ci/ensure-tools installs them as root), as
# the npm steps below need them.
tools:
	bash .ci/ensure-tools

test: tools $(INSTALL_STAMP) $(GEN_FILES) $(NODE_STAMP) $(WEB_DIST) lint
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; \
	$(BIN)/pytest -q $(PYTEST_ARGS)

# The server's default database is the embedded SQLite file var/tabletop.sqlite3
# (infra/settings.py); TABLETOP_DATABASE or ARGS choose another.
# With Node.js and npm it builds the web page when its sources changed and serves
# it with the API for browsers on 127.0.0.1:8080; without them, the API alone.
HTTP_LISTEN ?= 127.0.0.1:8080
serve: $(SERVE_STAMP) $(GEN_FILES)
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory web; else \
		echo "make serve: no npm, so no web page (install Debian's nodejs and npm, then make serve again); the API is served"; fi
	$(BIN)/tabletop serve --http-listen $(HTTP_LISTEN) $(ARGS)

# Benchmarks print figures; nothing asserts a timing (docs/performance.md).
BENCH_ARGS ?=
bench-rules: $(INSTALL_STAMP)
	$(BIN)/python bench/rules.py $(BENCH_ARGS)

bench-length: $(INSTALL_STAMP) $(GEN_FILES)
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; $(BIN)/python bench/length.py $(BENCH_ARGS)

bench-fanout: $(INSTALL_STAMP) $(GEN_FILES)
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; $(BIN)/python bench/fanout.py $(BENCH_ARGS)

bench-moves: $(INSTALL_STAMP) $(GEN_FILES) $(BENCH_NODE_STAMP)
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; $(BIN)/python bench/moves.py $(BENCH_ARGS)

bench-convert: $(INSTALL_STAMP) $(GEN_FILES)
	$(BIN)/python -m bench.convert $(BENCH_ARGS)

bench-my-games: $(INSTALL_STAMP) $(GEN_FILES)
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; $(BIN)/python -m bench.my_games $(BENCH_ARGS)

bench-http: $(INSTALL_STAMP) $(GEN_FILES)
	$(BIN)/python -m bench.http_calls $(BENCH_ARGS)

bench-rpc: $(INSTALL_STAMP) $(BENCH_NODE_STAMP)
	$(BIN)/python bench/rpc_floor.py $(BENCH_ARGS)

# Every benchmark one after another (about 20 minutes), as docs/performance.md
# was measured; BENCH_ARGS does not apply. Where a benchmark has no baseline of
# its own, bench/before.py runs the same script on BASELINE's code right after.
BASELINE ?= 56a908a
bench: $(INSTALL_STAMP) $(GEN_FILES) $(BENCH_NODE_STAMP)
	bash .ci/ensure-postgres
	$(MAKE) --no-print-directory bench-rules BENCH_ARGS="--seconds 8"
	$(BIN)/python -m bench.before $(BASELINE) bench.rules qwirkle --seconds 8
	$(MAKE) --no-print-directory bench-convert BENCH_ARGS=
	$(BIN)/python -m bench.before $(BASELINE) bench.convert
	set -a; . $(PG_ENV); set +a; $(BIN)/python -m bench.store
	$(MAKE) --no-print-directory bench-length BENCH_ARGS=
	$(MAKE) --no-print-directory bench-length BENCH_ARGS="--kept 800 --keep-memory 64MiB"
	$(MAKE) --no-print-directory bench-rpc BENCH_ARGS=
	$(MAKE) --no-print-directory bench-http BENCH_ARGS=
	$(MAKE) --no-print-directory bench-my-games BENCH_ARGS=
	$(MAKE) --no-print-directory bench-fanout BENCH_ARGS="--baseline $(BASELINE)"
	$(MAKE) --no-print-directory bench-moves BENCH_ARGS="--baseline $(BASELINE) --processes 1,auto"

# Long fault-injection and fuzz runs that print figures (docs/reliability.md);
# not part of make test. The servers they start run without rate limits: the
# runs measure faults, and their clients share one address.
FUZZ_EXAMPLES ?= 150
SOAK_ARGS ?=
soak: $(INSTALL_STAMP) $(GEN_FILES)
	bash .ci/ensure-postgres
	set -a; . $(PG_ENV); set +a; TABLETOP_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) \
		$(BIN)/pytest -q -p no:cacheprovider tests/fuzz
	set -a; . $(PG_ENV); set +a; TABLETOP_RATE_LIMIT=0 $(BIN)/python bench/soak.py $(SOAK_ARGS)

fmt: $(INSTALL_STAMP)
	$(BIN)/ruff check --fix-only --quiet .
	$(BIN)/ruff format .
	$(BIN)/buf format -w $(PROTO_ROOT)

# Breaking-change check of the protos against another revision (buf input syntax).
AGAINST ?= .git\#branch=main,subdir=$(PROTO_ROOT)
breaking: $(INSTALL_STAMP)
	$(BIN)/buf breaking $(PROTO_ROOT) --against '$(AGAINST)'

pg-stop:
	bash .ci/ensure-postgres --stop

clean:
	rm -rf $(GEN) .mypy_cache .ruff_cache .pytest_cache .hypothesis build dist
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(PG_ENV) $(NODE_DIR)/node_modules $(WEB_DIR)/node_modules \
		$(WEB_DIR)/dist $(WEB_DIR)/dist-node $(WEB_DIR)/src/gen
