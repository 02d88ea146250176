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

# Debian packages: the Ukrainian dictionary (full-text morphology; without it search falls
# back to 'simple') and Chromium with its driver for the admin's browser test.
DEB_PACKAGES := hunspell-uk chromium chromium-driver
system-deps:
	@if [ ! -f $(HUNSPELL) ] || [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
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

pytest: install
	$(VENV)/bin/pytest --durations=15

test: install lint typecheck pytest

clean-data:
	rm -rf .data
