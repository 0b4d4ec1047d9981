# supportdesk: `make run` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What serving needs (`make run`), then what developing needs on top (`make test`, `make lint`):
# the dev extras, the Python client and the client generator's venv. Each has its own stamp,
# so trying the server installs no test toolchain.
SERVE_STAMP := $(VENV)/.installed-serve
DEV_STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench
# ariadne-codegen needs graphql-core 3.2 and the service 3.3: the generator has a venv of its own.
CODEGEN_VENV := .venv-codegen
CODEGEN_STAMP := $(CODEGEN_VENV)/.installed
CLIENT := clients/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKSPACE ?= Demo
ADMIN_EMAIL ?= admin@example.com

.PHONY: run test lint format install schema client test-tools clean audit bench bench-quick bench-profile bench-instructions bench-compare

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(SERVE_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $(SERVE_STAMP)

# The client is installed too (editable), and the generator's venv made: tests/client_python
# runs both. The dev extras include everything serving needs.
$(DEV_STAMP): pyproject.toml $(CLIENT)/pyproject.toml $(CODEGEN_STAMP) | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]" -e ./$(CLIENT)
	touch $(SERVE_STAMP) $(DEV_STAMP)

$(CODEGEN_STAMP): $(CLIENT)/codegen/requirements.txt
	$(PYTHON) -m venv $(CODEGEN_VENV)
	$(CODEGEN_VENV)/bin/pip install --quiet -r $(CLIENT)/codegen/requirements.txt
	touch $(CODEGEN_STAMP)

install: $(SERVE_STAMP)

$(BENCH_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev,bench]"
	touch $(BENCH_STAMP)

# Creates the embedded SQLite database with a demo workspace on first run, then serves.
run: $(SERVE_STAMP)
	@if [ ! -f data/.demo-initialised ]; then \
		$(BIN)/supportdesk init --workspace "$(WORKSPACE)" --admin-email "$(ADMIN_EMAIL)" \
			--base-url "http://$(HOST):$(PORT)" && \
		touch data/.demo-initialised; \
	else \
		$(BIN)/supportdesk migrate; \
		echo "Demo workspace exists; its key and admin password were printed on the first run."; \
		echo "Log in at   http://$(HOST):$(PORT)/login  (agents and admins; the inbox)"; \
		echo "Settings    http://$(HOST):$(PORT)/settings/api  (log in as $(ADMIN_EMAIL))"; \
		echo "New member: $(BIN)/supportdesk members add --workspace <ws_id> --email E --role agent"; \
		echo "New key: $(BIN)/supportdesk keys create --workspace <ws_id> --name demo --scopes issues:read"; \
	fi
	$(BIN)/supportdesk serve --host $(HOST) --port $(PORT) --workers 1

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests bench $(CLIENT)
	$(BIN)/ruff format --check src tests bench $(CLIENT)
	$(BIN)/mypy

# The committed SDL; tests/graphql/test_schema_file.py fails when it is stale.
schema: $(SERVE_STAMP)
	$(BIN)/python -c "from supportdesk.graphql.schema import build_schema; print(build_schema().as_str())" > schema.graphql

# The Python client's generated package, from schema.graphql and clients/python/operations;
# tests/client_python/test_generated_code.py fails when it is stale.
client: $(CODEGEN_STAMP)
	$(CODEGEN_VENV)/bin/python $(CLIENT)/codegen/generate.py

format: $(DEV_STAMP)
	$(BIN)/ruff format src tests bench $(CLIENT)
	$(BIN)/ruff check --fix src tests bench $(CLIENT)

# Browser tests drive Debian's Chromium, the README's tour runs with jq (and curl), the IMAP
# door's tests start Debian's Dovecot (dovecot-imapd; its service is not used);
# install what is missing when we may.
test-tools:
	@missing=""; \
	for tool in chromium jq curl; do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	command -v dovecot >/dev/null || [ -x /usr/sbin/dovecot ] || missing="$$missing dovecot-imapd"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			(apt-get install -y -qq $$missing >/dev/null 2>&1 || \
			 (apt-get update -qq >/dev/null && apt-get install -y -qq $$missing >/dev/null)) || \
			echo "could not install$$missing; the tests that need them skip (fail in CI)"; \
		else echo "missing:$$missing; the tests that need them skip (fail in CI)"; fi; \
	fi

# Three workers for most of the suite, each module on one of them (loadfile): on two
# cores, two left a third of the CPU idle while tests waited on servers, browsers and
# commands. Then, alone, the modules that start serve processes or hold many connections:
# beside the workers' servers they would run PostgreSQL out of its default 100 connections.
test: lint test-tools
	$(BIN)/pytest -q -n 3 --dist loadfile -m "not processes and not slow"
	$(BIN)/pytest -q -m "processes or slow"

# GraphQL-over-HTTP conformance: graphql-http's audit suite (npm, into tools/node_modules)
# against a fresh server with a Full-access key. Fails on any MUST failure or > 3 warnings.
audit: $(SERVE_STAMP)
	$(BIN)/python tools/audit.py

# Speed, measured side by side: ours, a hand-written floor and PostGraphile, on SQLite and
# PostgreSQL (which must be running; BENCH_POSTGRES_URL overrides the local default).
# Installs wrk (apt) and PostGraphile with Node 22 (npm, into bench/.tools/) when missing.
bench: $(BENCH_STAMP)
	$(BIN)/python -m bench

bench-quick: $(BENCH_STAMP)
	$(BIN)/python -m bench --quick

# Where the CPU goes for `issue` and `createIssue` on PostgreSQL (py-spy).
bench-profile: $(BENCH_STAMP)
	$(BIN)/python -m bench profile

# Instructions per request under callgrind (valgrind): repeatable where timings are not.
bench-instructions: $(BENCH_STAMP)
	$(BIN)/python -m bench instructions $(if $(ONLY),--only $(ONLY))

# A webhook delivery's cost in this checkout and in AGAINST (a commit), served side by side
# in turns: make bench-compare AGAINST=<commit> [BACKEND=postgresql].
bench-compare: $(BENCH_STAMP)
	$(BIN)/python -m bench compare --against $(AGAINST) $(if $(BACKEND),--backend $(BACKEND))

clean:
	rm -rf $(VENV) $(CODEGEN_VENV) data .pytest_cache .mypy_cache .ruff_cache tools/node_modules
