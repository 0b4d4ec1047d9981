# supportdesk: `make run` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
# ariadne-codegen needs graphql-core 3.2 and the service 3.3: the generator has a venv of its own.
CODEGEN_VENV := .venv-codegen
CODEGEN_STAMP := $(CODEGEN_VENV)/.installed
CLIENT := clients/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKSPACE ?= Demo
ADMIN_EMAIL ?= admin@example.com

.PHONY: run test lint format install schema client chromium clean audit bench bench-quick bench-profile bench-instructions bench-compare

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The client is installed too (editable), and the generator's venv made: tests/client_python
# runs both.
$(STAMP): pyproject.toml $(CLIENT)/pyproject.toml $(CODEGEN_STAMP) | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]" -e ./$(CLIENT)
	touch $(STAMP)

$(CODEGEN_STAMP): $(CLIENT)/codegen/requirements.txt
	$(PYTHON) -m venv $(CODEGEN_VENV)
	$(CODEGEN_VENV)/bin/pip install --quiet -r $(CLIENT)/codegen/requirements.txt
	touch $(CODEGEN_STAMP)

install: $(STAMP)

$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev,bench]"
	touch $(BENCH_STAMP)

# Creates the embedded SQLite database with a demo workspace on first run, then serves.
run: $(STAMP)
	@if [ ! -f data/.demo-initialised ]; then \
		$(BIN)/supportdesk init --workspace "$(WORKSPACE)" --admin-email "$(ADMIN_EMAIL)" \
			--base-url "http://$(HOST):$(PORT)" && \
		touch data/.demo-initialised; \
	else \
		$(BIN)/supportdesk migrate; \
		echo "Demo workspace exists; its key and admin password were printed on the first run."; \
		echo "Settings    http://$(HOST):$(PORT)/settings/api  (log in as $(ADMIN_EMAIL))"; \
		echo "New key: $(BIN)/supportdesk keys create --workspace <ws_id> --name demo --scopes issues:read"; \
	fi
	$(BIN)/supportdesk serve --host $(HOST) --port $(PORT) --workers 1

lint: $(STAMP)
	$(BIN)/ruff check src tests bench $(CLIENT)
	$(BIN)/ruff format --check src tests bench $(CLIENT)
	$(BIN)/mypy

# The committed SDL; tests/graphql/test_schema_file.py fails when it is stale.
schema: $(STAMP)
	$(BIN)/python -c "from supportdesk.graphql.schema import build_schema; print(build_schema().as_str())" > schema.graphql

# The Python client's generated package, from schema.graphql and clients/python/operations;
# tests/client_python/test_generated_code.py fails when it is stale.
client: $(STAMP)
	$(CODEGEN_VENV)/bin/python $(CLIENT)/codegen/generate.py

format: $(STAMP)
	$(BIN)/ruff format src tests bench $(CLIENT)
	$(BIN)/ruff check --fix src tests bench $(CLIENT)

# Browser tests drive Debian's Chromium; install it when it is missing and we may.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			(apt-get install -y -qq chromium >/dev/null 2>&1 || \
			 (apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null)) || \
			echo "chromium could not be installed; browser tests will skip (fail in CI)"; \
		else echo "chromium is missing; browser tests will skip (fail in CI)"; fi; \
	fi

test: lint chromium
	$(BIN)/pytest -q

# GraphQL-over-HTTP conformance: graphql-http's audit suite (npm, into tools/node_modules)
# against a fresh server with a Full-access key. Fails on any MUST failure or > 3 warnings.
audit: $(STAMP)
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
