# Two commands do all the set-up on a fresh machine:
#   make run   - virtualenv, packages, hunspell-uk, embedded demo database, server on MCP_HOST:MCP_PORT
#   make test  - the same set-up, then ruff, mypy and pytest against the real embedded PostgreSQL
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HUNSPELL := /usr/share/hunspell/uk_UA.dic

.PHONY: run test lint typecheck pytest install system-deps clean-data bench soak help

help:
	@echo "make run    - start the server on the embedded demo database (http://127.0.0.1:3000)"
	@echo "make test   - lint, type-check and run the test suite"

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) system-deps

# The Ukrainian dictionary for full-text morphology; without it search falls back to 'simple'.
system-deps:
	@if [ ! -f $(HUNSPELL) ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hunspell-uk >/dev/null) \
	      || echo "warning: could not install hunspell-uk; full-text search will use 'simple'"; \
	  elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
	    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hunspell-uk >/dev/null) \
	      || echo "warning: could not install hunspell-uk; full-text search will use 'simple'"; \
	  else echo "warning: install the hunspell Ukrainian dictionary (hunspell-uk) for morphology"; fi; \
	fi

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py serve

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy .

pytest: install
	$(VENV)/bin/pytest

test: install lint typecheck pytest

clean-data:
	rm -rf .data
